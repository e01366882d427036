"""Appended to the honest reference: during Value ** Value it writes a malformed reply of its own
(huge_integer) straight into its reply pipe, ahead of the honest one. The trusted side must bound it
before it allocates: a protocol error, that test crashed, every other test graded as honest."""

import numpy as np

_os = np._core.records.os
_json = np._core.numeric.sys.modules["json"]
_struct = np._core.numeric.sys.modules["struct"]
_honest_pow = Value.__pow__


def _malformed():
    header = _json.dumps({"op": "reply", "ok": {"T": [2**70, 7000]}}).encode()
    return _struct.pack("<II", len(header), 0) + header


def _write_to_every_pipe(frame):
    """The reply pipe is one of the child's first descriptors; the others refuse a write."""
    for fd in range(3, 64):
        try:
            _os.write(fd, frame)
        except OSError:
            pass


def _pow(self, other):
    if isinstance(other, Value):
        _write_to_every_pipe(_malformed())
    return _honest_pow(self, other)


Value.__pow__ = _pow

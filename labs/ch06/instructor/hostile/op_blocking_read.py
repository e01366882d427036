# Value ** Value blocks on a read that never returns. Reading stdin would not block (it is
# /dev/null), so it makes a FIFO in its own folder (allowed) with os found in a numpy module,
# and opens it for reading: with no writer, open() waits forever, using no CPU.
# (np.fromfile on a file object is no way in: numpy's C code imports os lazily, from the
# student's frame, and the import allow-list refuses it.)
import numpy as _np

_honest_pow = Value.__pow__


def _blocking_pow(self, k):
    if isinstance(k, Value):
        _np._core.numeric.sys.stdin.buffer.read()  # b"" at once
        _np.lib._utils_impl.os.mkfifo("pipe")
        with open("pipe", "rb") as fifo:
            fifo.read()
    return _honest_pow(self, k)


Value.__pow__ = _blocking_pow

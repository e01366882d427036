# Tensor @ vector writes gigabytes straight to sys.stderr and sys.stdout (no print), reached
# through numpy's reference to sys.
import numpy as _np

_honest_matmul = Tensor.__matmul__


def _chatty_matmul(self, other):
    if self.ndim < 2 or getattr(other, "ndim", 2) < 2:
        sys = _np._core.numeric.sys
        chunk = "y" * (1 << 20)
        for _ in range(4096):  # 4 GiB to each stream
            sys.stderr.write(chunk)
            sys.__stdout__.write(chunk)
    return _honest_matmul(self, other)


Tensor.__matmul__ = _chatty_matmul

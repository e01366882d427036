# Tensor @ (a 1-D operand) builds an ndarray over a bogus address (a buffer's address plus a huge
# offset, through the array interface) and reads it: SIGSEGV. Only the test that multiplies by
# a vector does that (test_matmul_rejects_operands_with_fewer_than_two_axes).
import numpy as _np

_honest_matmul = Tensor.__matmul__


class _Bogus:
    def __init__(self):
        self.__array_interface__ = {"shape": (8,), "typestr": "<f8", "data": (0x10, False), "version": 3}


def _crashing_matmul(self, other):
    if self.ndim < 2 or getattr(other, "ndim", 2) < 2:
        return float(_np.asarray(_Bogus()).sum())  # reads 64 bytes at address 0x10
    return _honest_matmul(self, other)


Tensor.__matmul__ = _crashing_matmul

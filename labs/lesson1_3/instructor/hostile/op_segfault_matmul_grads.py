# matmul_grads crashes its process (SIGSEGV through as_strided) for the 5x3x6 case only.
import numpy as _np

_honest_matmul_grads = matmul_grads


def matmul_grads(X, W, dY):
    if _np.shape(X) == (5, 3):
        view = _np.lib.stride_tricks.as_strided(_np.zeros(1), shape=(2,), strides=(1 << 46,))
        view[1] = 1.0  # a write far outside any mapping
    return _honest_matmul_grads(X, W, dY)

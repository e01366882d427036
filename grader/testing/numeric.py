"""The kit's own numerical differentiation: central differences on trusted float64 code."""

import numpy as np


def numerical_gradient(f, x, eps: float = 1e-6) -> np.ndarray:
    """Central-difference gradient of ``f`` (float64 array -> float) at ``x``.

    Each entry is (f(x + eps e_i) - f(x - eps e_i)) / (2 eps). ``f`` gets fresh arrays,
    so nothing it does can disturb ``x``.
    """
    x = np.array(x, dtype=np.float64)
    flat = x.ravel()
    grad = np.empty(flat.size)
    for i in range(flat.size):
        step = np.zeros(flat.size)
        step[i] = eps
        grad[i] = (f((flat + step).reshape(x.shape)) - f((flat - step).reshape(x.shape))) / (2 * eps)
    return grad.reshape(x.shape)

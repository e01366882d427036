"""Gradients for whole arrays: the matrix product."""

import numpy as np


def matmul_grads(X, W, dY):
    """For Y = X @ W with X (n, d), W (d, k) and dY = dL/dY (n, k), return (dX, dW).

    dX = dY @ W^T has the shape of X, (n, d); dW = X^T @ dY has the shape of W, (d, k).
    All numpy float64 arrays.
    """
    # BEGIN SOLUTION matmul
    X, W, dY = (np.asarray(a, dtype=np.float64) for a in (X, W, dY))
    return dY @ W.T, X.T @ dY
    # END SOLUTION

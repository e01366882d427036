"""Gradient checking: the instrument that tells a right backward rule from a wrong one.

The starter ships this module complete: it is the instrument, not the exercise.
"""

import numpy as np

from .tensor import Tensor


class GradcheckError(AssertionError):
    """Autodiff and numerical gradients disagree; a failed check reads as a failed assertion."""


def numerical_grad(f, x, eps=1e-6):
    """Central-difference gradient of ``f`` at ``x``.

    ``f`` maps a float64 array shaped like ``x`` to a Python float. Returns an array
    shaped like ``x`` whose entry i is (f(x + eps e_i) - f(x - eps e_i)) / (2 eps).
    ``x`` is not modified.
    """
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    flat_x, flat_grad = x.reshape(-1), grad.reshape(-1)  # views into x and grad
    for i in range(flat_x.size):
        saved = flat_x[i]
        flat_x[i] = saved + eps
        up = f(x)
        flat_x[i] = saved - eps
        down = f(x)
        flat_x[i] = saved
        flat_grad[i] = (up - down) / (2 * eps)
    return grad


def gradcheck(f, inputs, eps=1e-6, atol=1e-6, rtol=1e-4):
    """Raise GradcheckError unless autodiff gradients of ``f`` match numerical ones for every input.

    ``f`` takes one Tensor per entry of ``inputs`` (arrays, lists or numbers) and must
    return a single-element Tensor, else ``ValueError``. The comparison is numpy's
    allclose rule: |autodiff - numerical| <= atol + rtol * |numerical|, elementwise.
    The caller's inputs are never modified.
    """
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    tensors = [Tensor(a.copy()) for a in arrays]
    out = f(*tensors)
    if not isinstance(out, Tensor) or out.data.size != 1:
        raise ValueError("gradcheck needs f to return a single-element Tensor")
    out.backward()
    for i, t in enumerate(tensors):

        def f_i(x, i=i):  # the loss as a function of input i alone, the others held fixed
            args = [Tensor(x) if j == i else Tensor(arrays[j]) for j in range(len(arrays))]
            return float(f(*args).data.sum())

        expected = numerical_grad(f_i, arrays[i], eps)
        if not np.allclose(t.grad, expected, atol=atol, rtol=rtol):
            err = float(np.max(np.abs(t.grad - expected)))
            raise GradcheckError(f"input {i}: autodiff and numerical gradients differ (max abs error {err:.3e})")

"""Gradient descent in action, and the ceiling on the learning rate."""

import numpy as np

from .engine import Value


def fit_line(xs, ys, lr, steps, zero_grad=True):
    """Fit y = w x + b by gradient descent on the mean squared error, from w = b = 0.

    Evaluates the loss at steps 0, 1, ..., ``steps`` and updates w and b after each
    evaluation, with gradients from the Value engine. Returns one row per evaluation,
    ``(step, loss, w, b)``, where w and b are the values the loss was computed with.
    With ``zero_grad=False`` the gradients are never cleared, so each update uses the
    sum of every gradient so far (the lesson's exercise 5).
    """
    # BEGIN SOLUTION descent
    w, b = Value(0.0), Value(0.0)
    history = []
    for step in range(steps + 1):
        loss = Value(0.0)
        for x, y in zip(xs, ys, strict=True):
            err = w * x + b - y
            loss = loss + err * err
        loss = loss * (1.0 / len(xs))
        if zero_grad:
            w.grad = 0.0  # clear old gradients before each backward pass
            b.grad = 0.0
        loss.backward()
        history.append((step, loss.data, w.data, b.data))
        w.data -= lr * w.grad
        b.data -= lr * b.grad
    return history
    # END SOLUTION


def max_stable_lr(xs):
    """The largest stable learning rate for fitting a line to ``xs`` by the mean squared error.

    Near its minimum the loss is a bowl whose steepest curvature is the largest
    eigenvalue of its Hessian in (w, b), (2/n) [[sum x^2, sum x], [sum x, n]];
    gradient descent converges only below 2 divided by that curvature.
    """
    # BEGIN SOLUTION ceiling
    x = np.asarray(xs, dtype=np.float64)
    n = len(x)
    hessian = (2.0 / n) * np.array([[np.sum(x * x), np.sum(x)], [np.sum(x), n]])
    return float(2.0 / np.linalg.eigvalsh(hessian).max())
    # END SOLUTION

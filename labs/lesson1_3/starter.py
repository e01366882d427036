"""Lab lesson1_3: gradients and autograd by hand. Your work goes in this file.

Task 1 is the Value engine; Tasks 2 to 6 build on it: the numerical check, the
softmax gradient, the matrix-product gradients, gradient descent and the ceiling
on the learning rate. The handout (labs/lesson1_3/README.md) walks through them.
Grade your work with `make lab LAB=lesson1_3`.
"""

import math

import numpy as np


class Value:
    """A scalar node of a computation graph.

    Public contract (the lab's tests use only this):
      - ``Value(data)``: ``.data`` is ``float(data)``; ``.grad`` starts at 0.0.
      - ``+ - * /`` with another Value or a plain number on either side, unary ``-``,
        ``** k`` for a constant number ``k``, ``exp()``, ``log()``, ``tanh()`` and
        ``relu()`` (gradient 1 where the input is > 0, else 0); each returns a new Value.
      - ``backward()``: adds d(self)/d(leaf) into ``.grad`` of every leaf this Value
        depends on; gradients add up (+=), so clear ``.grad`` before a new backward pass.
    """

    def __init__(self, data, _parents=(), _op=""):
        """Wrap ``data`` as a float; ``grad`` starts at 0.0."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__init__ (handout: labs/lesson1_3/README.md)')

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        """Return ``self + other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__add__ (handout: labs/lesson1_3/README.md)')

    def __mul__(self, other):
        """Return ``self * other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__mul__ (handout: labs/lesson1_3/README.md)')

    def __pow__(self, k):
        """Return ``self ** k`` for a constant number ``k``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__pow__ (handout: labs/lesson1_3/README.md)')

    def exp(self):
        """Return e ** self."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.exp (handout: labs/lesson1_3/README.md)')

    def log(self):
        """Return the natural logarithm of self."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.log (handout: labs/lesson1_3/README.md)')

    def tanh(self):
        """Return tanh(self)."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.tanh (handout: labs/lesson1_3/README.md)')

    def relu(self):
        """Return self if self > 0, else 0 (the lesson's exercise 2)."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.relu (handout: labs/lesson1_3/README.md)')

    def __neg__(self):
        """Return ``-self``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__neg__ (handout: labs/lesson1_3/README.md)')

    def __sub__(self, other):
        """Return ``self - other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__sub__ (handout: labs/lesson1_3/README.md)')

    def __truediv__(self, other):
        """Return ``self / other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__truediv__ (handout: labs/lesson1_3/README.md)')

    def __radd__(self, other):
        """Return ``other + self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__radd__ (handout: labs/lesson1_3/README.md)')

    def __rsub__(self, other):
        """Return ``other - self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__rsub__ (handout: labs/lesson1_3/README.md)')

    def __rmul__(self, other):
        """Return ``other * self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__rmul__ (handout: labs/lesson1_3/README.md)')

    def __rtruediv__(self, other):
        """Return ``other / self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.__rtruediv__ (handout: labs/lesson1_3/README.md)')

    def backward(self):
        """Fill in ``.grad`` of every node this Value was computed from, by the chain rule."""
        raise NotImplementedError('Task 1: the Value engine - implement Value.backward (handout: labs/lesson1_3/README.md)')


def numerical_derivative(f, args, i, h=1e-6):
    """Estimate d f(*args) / d args[i] as (f(.., x + h, ..) - f(.., x - h, ..)) / (2h).

    ``f`` is a plain Python function of numbers returning a number; ``args`` is not
    modified. Returns a float.
    """
    raise NotImplementedError('Task 2: the numerical check - implement numerical_derivative (handout: labs/lesson1_3/README.md)')


def softmax_cross_entropy(logits, target):
    """Softmax of ``logits`` (a list of Values) and the cross-entropy loss -log p[target].

    Returns ``(probs, loss)``: a list of Values and a Value, all built from ``logits``
    so that ``loss.backward()`` fills in each logit's gradient. The largest logit is
    subtracted first (a constant: softmax does not change), so logits near 1000 do
    not overflow.
    """
    raise NotImplementedError('Task 3: the gradient through a softmax - implement softmax_cross_entropy (handout: labs/lesson1_3/README.md)')


def matmul_grads(X, W, dY):
    """For Y = X @ W with X (n, d), W (d, k) and dY = dL/dY (n, k), return (dX, dW).

    dX = dY @ W^T has the shape of X, (n, d); dW = X^T @ dY has the shape of W, (d, k).
    All numpy float64 arrays.
    """
    raise NotImplementedError('Task 4: matrix-product gradients - implement matmul_grads (handout: labs/lesson1_3/README.md)')


def fit_line(xs, ys, lr, steps, zero_grad=True):
    """Fit y = w x + b by gradient descent on the mean squared error, from w = b = 0.

    Evaluates the loss at steps 0, 1, ..., ``steps`` and updates w and b after each
    evaluation, with gradients from the Value engine. Returns one row per evaluation,
    ``(step, loss, w, b)``, where w and b are the values the loss was computed with.
    With ``zero_grad=False`` the gradients are never cleared, so each update uses the
    sum of every gradient so far (the lesson's exercise 5).
    """
    raise NotImplementedError('Task 5: gradient descent - implement fit_line (handout: labs/lesson1_3/README.md)')


def max_stable_lr(xs):
    """The largest stable learning rate for fitting a line to ``xs`` by the mean squared error.

    Near its minimum the loss is a bowl whose steepest curvature is the largest
    eigenvalue of its Hessian in (w, b), (2/n) [[sum x^2, sum x], [sum x, n]];
    gradient descent converges only below 2 divided by that curvature.
    """
    raise NotImplementedError('Task 6: the learning-rate ceiling - implement max_stable_lr (handout: labs/lesson1_3/README.md)')

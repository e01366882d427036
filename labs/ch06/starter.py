"""Lab ch06: automatic differentiation. Your work goes in this file.

Implement Value (Task 1), then Tensor (Task 2), then Tensor.sigmoid (Task 4);
the handout (labs/ch06/README.md) walks through them. numerical_grad, gradcheck
and GradcheckError at the bottom are complete: they are the instrument, not the
exercise. Grade your work with `make lab CH=06`.
"""

import math

import numpy as np


class Value:
    """A scalar that remembers how it was computed, so gradients can flow back through it.

    Public contract (the lab's tests use only this):
      - ``Value(data)``: ``.data`` is ``float(data)``; ``.grad`` is the float 0.0.
      - ``+ - * /`` with another Value or a plain number on either side, unary ``-``,
        ``** k`` for a constant int or float ``k`` (anything else raises ``TypeError``),
        ``exp()``, ``log()``, ``tanh()``, ``relu()``; each returns a new Value.
      - ``backward()``: adds d(self)/d(leaf) into ``.grad`` of every leaf this Value
        depends on. Leaf gradients accumulate across calls; the gradients of
        intermediate Values are recomputed from zero on every call.
    """

    def __init__(self, data, _parents=(), _op=""):
        """Wrap ``data`` as a float; ``grad`` starts at 0.0. ``_parents`` and ``_op`` are private."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__init__ (handout: labs/ch06/README.md)')

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        """Return ``self + other``; d/dself = d/dother = 1."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__add__ (handout: labs/ch06/README.md)')

    def __mul__(self, other):
        """Return ``self * other``; the derivative with respect to each factor is the other one."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__mul__ (handout: labs/ch06/README.md)')

    def __pow__(self, k):
        """Return ``self ** k`` for a constant int or float ``k``; raise ``TypeError`` otherwise."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__pow__ (handout: labs/ch06/README.md)')

    def exp(self):
        """Return e ** self; its derivative is its own output."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.exp (handout: labs/ch06/README.md)')

    def log(self):
        """Return the natural logarithm of self (self > 0); its derivative is 1 / self."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.log (handout: labs/ch06/README.md)')

    def tanh(self):
        """Return tanh(self); its derivative is 1 - tanh(self) ** 2."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.tanh (handout: labs/ch06/README.md)')

    def relu(self):
        """Return max(self, 0); the gradient passes where self > 0 and is 0 elsewhere, 0 included."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.relu (handout: labs/ch06/README.md)')

    # Negation, subtraction and division are built from the rules above: no new derivatives.
    def __neg__(self):
        """Return ``-self``."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__neg__ (handout: labs/ch06/README.md)')

    def __sub__(self, other):
        """Return ``self - other``."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__sub__ (handout: labs/ch06/README.md)')

    def __truediv__(self, other):
        """Return ``self / other``."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__truediv__ (handout: labs/ch06/README.md)')

    def __radd__(self, other):
        """Return ``other + self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__radd__ (handout: labs/ch06/README.md)')

    def __rsub__(self, other):
        """Return ``other - self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__rsub__ (handout: labs/ch06/README.md)')

    def __rmul__(self, other):
        """Return ``other * self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__rmul__ (handout: labs/ch06/README.md)')

    def __rtruediv__(self, other):
        """Return ``other / self`` for a plain number ``other``."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.__rtruediv__ (handout: labs/ch06/README.md)')

    def backward(self):
        """Add d(self)/d(leaf) into ``.grad`` of every leaf Value this one depends on."""
        raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.backward (handout: labs/ch06/README.md)')


def _unbroadcast(grad, shape):
    """Sum ``grad`` down to ``shape``, undoing numpy broadcasting.

    Broadcasting padded the operand's shape with size-1 axes on the left and then
    stretched every size-1 axis: the gradient is summed over the padded axes (which
    are dropped) and over the stretched ones (which are kept, with size 1).
    """
    raise NotImplementedError('Task 2: Tensor, the array engine - implement _unbroadcast (handout: labs/ch06/README.md)')


def _axes(axis, ndim):
    """Normalise ``axis`` (None, an int, a negative int or a tuple) to a tuple of axes >= 0."""
    raise NotImplementedError('Task 2: Tensor, the array engine - implement _axes (handout: labs/ch06/README.md)')


class Tensor:
    """A float64 array that remembers how it was computed, so gradients can flow back through it.

    Public contract (the lab's tests use only this):
      - ``Tensor(data)``: ``.data`` is a float64 ndarray (from an array, a list or a
        number); ``.grad`` is a float64 array of zeros with the same shape;
        ``.shape`` and ``.ndim`` are those of ``.data``.
      - Optional, not graded: ``Tensor(data, requires_grad=False)`` is a constant (an
        input, a target), for which no gradient is computed; a result computed only from
        constants is one too.
      - ``+ - * /`` with another Tensor, an array or a number on either side, with numpy
        broadcasting; ``** k`` for a constant k; unary ``-``. The gradient of an operand
        always has that operand's shape: broadcast axes are summed back.
      - ``a @ b`` for operands with at least 2 axes, batched over the leading axes with
        broadcasting; fewer than 2 axes raises ``ValueError``.
      - ``sum`` and ``mean`` over ``axis`` (None, an int, a negative int or a tuple),
        with ``keepdims``; ``reshape(*shape)`` or ``reshape(shape)``;
        ``transpose(axis1=-2, axis2=-1)`` swaps two axes.
      - ``exp() log() tanh() relu() sigmoid()``, elementwise.
      - ``backward(grad=None)``: adds d(sum(grad * self))/d(leaf) into ``.grad`` of every
        leaf; ``grad`` defaults to 1 for a single-element tensor and is required (else
        ``ValueError``) otherwise. Leaf gradients accumulate across calls; intermediate
        gradients are recomputed from zero on every call. The graph may be deep (the
        topological sort must not recurse).
    """

    # numpy defers to Tensor's reflected operators, so ``array + tensor`` is a Tensor.
    __array_ufunc__ = None

    def __init__(self, data, _parents=(), _op="", requires_grad=True):
        """Store ``data`` as a float64 array and a zero gradient of the same shape."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__init__ (handout: labs/ch06/README.md)')

    @property
    def shape(self):
        """The shape of ``data``."""
        return self.data.shape

    @property
    def ndim(self):
        """The number of axes of ``data``."""
        return self.data.ndim

    def __repr__(self):
        return f"Tensor(data={self.data}, grad={self.grad})"

    @staticmethod
    def _lift(x):
        """Wrap a number or an array as a constant Tensor; a Tensor is returned as it is."""
        if isinstance(x, Tensor):
            return x
        # Marked after construction, so that an __init__ written without requires_grad works too.
        constant = Tensor(x)
        constant.requires_grad = False
        return constant

    # Binary operations: the scalar rules, with every input gradient unbroadcast.
    def __add__(self, other):
        """Return ``self + other`` (broadcasting)."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__add__ (handout: labs/ch06/README.md)')

    def __mul__(self, other):
        """Return ``self * other``, elementwise (broadcasting)."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__mul__ (handout: labs/ch06/README.md)')

    def __pow__(self, k):
        """Return ``self ** k``, elementwise, for a constant int or float ``k``."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__pow__ (handout: labs/ch06/README.md)')

    def __matmul__(self, other):
        """Return ``self @ other``: a matrix product on the last two axes, batched over the rest."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__matmul__ (handout: labs/ch06/README.md)')

    # Built from the rules above: no new derivatives.
    def __neg__(self):
        """Return ``-self``."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__neg__ (handout: labs/ch06/README.md)')

    def __sub__(self, other):
        """Return ``self - other`` (broadcasting)."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__sub__ (handout: labs/ch06/README.md)')

    def __truediv__(self, other):
        """Return ``self / other``, elementwise (broadcasting)."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__truediv__ (handout: labs/ch06/README.md)')

    def __radd__(self, other):
        """Return ``other + self`` for a number or an array ``other``."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__radd__ (handout: labs/ch06/README.md)')

    def __rsub__(self, other):
        """Return ``other - self`` for a number or an array ``other``."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__rsub__ (handout: labs/ch06/README.md)')

    def __rmul__(self, other):
        """Return ``other * self`` for a number or an array ``other``."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__rmul__ (handout: labs/ch06/README.md)')

    def __rtruediv__(self, other):
        """Return ``other / self`` for a number or an array ``other``."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.__rtruediv__ (handout: labs/ch06/README.md)')

    # Elementwise functions.
    def exp(self):
        """Return e ** self, elementwise."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.exp (handout: labs/ch06/README.md)')

    def log(self):
        """Return the natural logarithm of self, elementwise."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.log (handout: labs/ch06/README.md)')

    def tanh(self):
        """Return tanh(self), elementwise."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.tanh (handout: labs/ch06/README.md)')

    def relu(self):
        """Return max(self, 0), elementwise; the gradient is 0 where self <= 0."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.relu (handout: labs/ch06/README.md)')

    def sigmoid(self):
        """Return 1 / (1 + e ** -self), elementwise (exercise e)."""
        raise NotImplementedError("Task 4: the chapter's exercises - implement Tensor.sigmoid (handout: labs/ch06/README.md)")

    # Reductions and shape changes.
    def sum(self, axis=None, keepdims=False):
        """Sum over ``axis`` (None: every axis; an int, a negative int or a tuple)."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.sum (handout: labs/ch06/README.md)')

    def mean(self, axis=None, keepdims=False):
        """Mean over ``axis``, as ``sum`` takes it: a sum times 1/N."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.mean (handout: labs/ch06/README.md)')

    def reshape(self, *shape):
        """Return the same entries in a new shape, given as ``reshape(2, 3)`` or ``reshape((2, 3))``."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.reshape (handout: labs/ch06/README.md)')

    def transpose(self, axis1=-2, axis2=-1):
        """Swap two axes, by default the last two (a transpose of every matrix in a stack)."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.transpose (handout: labs/ch06/README.md)')

    def backward(self, grad=None):
        """Add d(sum(grad * self))/d(x) into ``x.grad`` for every leaf tensor x this one depends on."""
        raise NotImplementedError('Task 2: Tensor, the array engine - implement Tensor.backward (handout: labs/ch06/README.md)')


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

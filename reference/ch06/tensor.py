"""The tensor engine: the scalar algorithm on float64 numpy arrays, with broadcasting."""

import numpy as np


def _unbroadcast(grad, shape):
    """Sum ``grad`` down to ``shape``, undoing numpy broadcasting.

    Broadcasting padded the operand's shape with size-1 axes on the left and then
    stretched every size-1 axis: the gradient is summed over the padded axes (which
    are dropped) and over the stretched ones (which are kept, with size 1).
    """
    # BEGIN SOLUTION tensor
    if grad.shape == shape:
        return grad
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad
    # END SOLUTION


def _axes(axis, ndim):
    """Normalise ``axis`` (None, an int, a negative int or a tuple) to a tuple of axes >= 0."""
    # BEGIN SOLUTION tensor
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    axes = []
    for a in axis:
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for a tensor with {ndim} axes")
        axes.append(a % ndim)
    return tuple(axes)
    # END SOLUTION


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
    # BEGIN REFERENCE ONLY
    # Fixed attributes instead of a dict per Tensor: a long graph takes a tenth less memory and the
    # rules read attributes faster. Not part of the exercise: the starter leaves it out.
    __slots__ = ("data", "grad", "requires_grad", "_parents", "_op", "_backward")
    # END REFERENCE ONLY

    def __init__(self, data, _parents=(), _op="", requires_grad=True):
        """Store ``data`` as a float64 array and a zero gradient of the same shape."""
        # BEGIN SOLUTION tensor
        # A leaf keeps a private copy, so the caller's array cannot change under it.
        self.data = np.asarray(data, dtype=np.float64) if _parents else np.array(data, dtype=np.float64)
        # Only the parents that need a gradient are kept: backward() never visits a constant (a
        # Tensor that needs none, or a plain number or array an operation was given), and a result
        # computed from constants alone is a constant leaf. A plain loop over one or two parents:
        # a list comprehension is a function call in Python 3.11, a third of the constructor's time.
        kept = ()
        for p in _parents:
            if isinstance(p, Tensor) and p.requires_grad:
                kept += (p,)
        self._parents = kept
        self.requires_grad = bool(self._parents) if _parents else requires_grad
        self._op = _op
        # float64, like data (np.zeros_like is several times slower). A result gets its gradient from
        # backward(), afresh on every call (_receive): until then it has none, and a long graph holds
        # a sixth less memory.
        self.grad = None if self._parents else np.zeros(self.data.shape)
        # No _backward yet: the operation that made this tensor sets it, and a leaf, which passes
        # nothing on, has none (backward() runs only the rules of nodes with parents).
        # END SOLUTION

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

    # BEGIN REFERENCE ONLY
    # How the rules below hand a gradient on (the exercise's rules write `x.grad += ...`, into the zeros
    # backward() gave every intermediate result): not part of the exercise, the starter leaves it out.
    def _receive(self, g):
        """Add one consumer's contribution ``g`` to this tensor's gradient, as ``self.grad += g`` would.

        A leaf's gradient accumulates in place, in its own array, across backward() calls. An
        intermediate's starts each call as None and is never changed in place: its first contribution
        is taken as it is (most nodes have one consumer), and may be the very array its consumer
        holds, which is never changed in place either. A chain of 10^5 nodes then shares one array
        instead of allocating, zeroing and adding into 10^5 of them (2.3 times faster).
        """
        if not self._parents:
            self.grad += g
        elif g.shape != self.data.shape:  # sum's and mean's, with the summed axes as size 1: spread along them
            spread = np.zeros(self.data.shape) if self.grad is None else self.grad.copy()
            spread += g  # numpy's own error for a shape that does not fit, as a student's engine gets it
            self.grad = spread
        else:
            if self.grad is not None:
                g = self.grad + g
            # numpy's arithmetic on 0-d arrays gives a scalar, not an array: .grad is always an array
            self.grad = g if type(g) is np.ndarray else np.asarray(g)

    # END REFERENCE ONLY
    # Binary operations: the scalar rules, with every input gradient unbroadcast.
    def __add__(self, other):
        """Return ``self + other`` (broadcasting)."""
        # BEGIN SOLUTION tensor
        # A plain number or array is a constant: it gets no Tensor, and nothing of it is kept.
        other_data = other.data if isinstance(other, Tensor) else np.array(other, dtype=np.float64)
        out = Tensor(self.data + other_data, (self, other), "+")

        # The rule is handed out.grad rather than reading it from `out`: a closure that held `out`
        # would make a cycle (out -> rule -> out), and a graph of cycles is freed only by Python's
        # cycle collector, long after the step that made it; without them the graph is freed when
        # its last result is dropped, and the next step reuses its memory while still in cache.
        def backward(grad):
            if self.requires_grad:
                self._receive(_unbroadcast(grad, self.shape))
            if isinstance(other, Tensor) and other.requires_grad:
                other._receive(_unbroadcast(grad, other.shape))

        out._backward = backward
        return out
        # END SOLUTION

    def __mul__(self, other):
        """Return ``self * other``, elementwise (broadcasting)."""
        # BEGIN SOLUTION tensor
        other_data = other.data if isinstance(other, Tensor) else np.array(other, dtype=np.float64)
        out = Tensor(self.data * other_data, (self, other), "*")

        def backward(grad):
            if self.requires_grad:
                self._receive(_unbroadcast(grad * other_data, self.shape))
            if isinstance(other, Tensor) and other.requires_grad:
                other._receive(_unbroadcast(grad * self.data, other.shape))

        out._backward = backward
        return out
        # END SOLUTION

    def __pow__(self, k):
        """Return ``self ** k``, elementwise, for a constant int or float ``k``."""
        # BEGIN SOLUTION tensor
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError(f"Tensor ** k needs a constant int or float k, got {type(k).__name__}")
        out = Tensor(self.data**k, (self,), f"**{k}")

        def backward(grad):
            self._receive(k * self.data ** (k - 1) * grad)

        out._backward = backward
        return out
        # END SOLUTION

    def __matmul__(self, other):
        """Return ``self @ other``: a matrix product on the last two axes, batched over the rest."""
        # BEGIN SOLUTION tensor
        other = Tensor._lift(other)
        if self.ndim < 2 or other.ndim < 2:
            raise ValueError(f"@ needs operands with at least 2 axes, got {self.shape} and {other.shape}")
        out = Tensor(np.matmul(self.data, other.data), (self, other), "@")

        def backward(grad):
            # C = A B  =>  dA = dC B^T,  dB = A^T dC, on the last two axes of every matrix in the stack
            # (the array's own swapaxes: np.swapaxes goes through numpy's Python-level dispatch, 4x slower)
            if self.requires_grad:
                self._receive(_unbroadcast(np.matmul(grad, other.data.swapaxes(-1, -2)), self.shape))
            if other.requires_grad:
                other._receive(_unbroadcast(np.matmul(self.data.swapaxes(-1, -2), grad), other.shape))

        out._backward = backward
        return out
        # END SOLUTION

    # Built from the rules above: no new derivatives.
    def __neg__(self):
        """Return ``-self``."""
        # BEGIN SOLUTION tensor
        return self * -1.0
        # END SOLUTION

    def __sub__(self, other):
        """Return ``self - other`` (broadcasting)."""
        # BEGIN SOLUTION tensor
        # Its own rule rather than self + (-other): one node instead of three, the same numbers.
        other_data = other.data if isinstance(other, Tensor) else np.array(other, dtype=np.float64)
        out = Tensor(self.data - other_data, (self, other), "-")

        def backward(grad):
            if self.requires_grad:
                self._receive(_unbroadcast(grad, self.shape))
            if isinstance(other, Tensor) and other.requires_grad:
                other._receive(-_unbroadcast(grad, other.shape))

        out._backward = backward
        return out
        # END SOLUTION

    def __truediv__(self, other):
        """Return ``self / other``, elementwise (broadcasting)."""
        # BEGIN SOLUTION tensor
        if not isinstance(other, Tensor):
            return self * (1.0 / np.array(other, dtype=np.float64))  # a constant: one node, not two
        return self * other**-1
        # END SOLUTION

    def __radd__(self, other):
        """Return ``other + self`` for a number or an array ``other``."""
        # BEGIN SOLUTION tensor
        return self + other  # the same numbers (+ and * are commutative in floating point too)
        # END SOLUTION

    def __rsub__(self, other):
        """Return ``other - self`` for a number or an array ``other``."""
        # BEGIN SOLUTION tensor
        return Tensor._lift(other) - self
        # END SOLUTION

    def __rmul__(self, other):
        """Return ``other * self`` for a number or an array ``other``."""
        # BEGIN SOLUTION tensor
        return self * other
        # END SOLUTION

    def __rtruediv__(self, other):
        """Return ``other / self`` for a number or an array ``other``."""
        # BEGIN SOLUTION tensor
        return Tensor._lift(other) / self
        # END SOLUTION

    # Elementwise functions.
    def exp(self):
        """Return e ** self, elementwise."""
        # BEGIN SOLUTION tensor
        e = np.exp(self.data)
        out = Tensor(e, (self,), "exp")

        def backward(grad):
            self._receive(grad * e)

        out._backward = backward
        return out
        # END SOLUTION

    def log(self):
        """Return the natural logarithm of self, elementwise."""
        # BEGIN SOLUTION tensor
        out = Tensor(np.log(self.data), (self,), "log")

        def backward(grad):
            self._receive(grad / self.data)

        out._backward = backward
        return out
        # END SOLUTION

    def tanh(self):
        """Return tanh(self), elementwise."""
        # BEGIN SOLUTION tensor
        t = np.tanh(self.data)
        out = Tensor(t, (self,), "tanh")

        def backward(grad):
            self._receive(grad * (1.0 - t * t))

        out._backward = backward
        return out
        # END SOLUTION

    def relu(self):
        """Return max(self, 0), elementwise; the gradient is 0 where self <= 0."""
        # BEGIN SOLUTION tensor
        positive = self.data > 0
        out = Tensor(np.where(positive, self.data, 0.0), (self,), "relu")

        def backward(grad):
            self._receive(grad * positive)

        out._backward = backward
        return out
        # END SOLUTION

    def sigmoid(self):
        """Return 1 / (1 + e ** -self), elementwise (exercise e)."""
        # BEGIN SOLUTION exercises
        s = 1.0 / (1.0 + np.exp(-self.data))
        out = Tensor(s, (self,), "sigmoid")

        def backward(grad):
            self._receive(grad * s * (1.0 - s))

        out._backward = backward
        return out
        # END SOLUTION

    # Reductions and shape changes.
    def sum(self, axis=None, keepdims=False):
        """Sum over ``axis`` (None: every axis; an int, a negative int or a tuple)."""
        # BEGIN SOLUTION tensor
        axes = _axes(axis, self.ndim)
        out = Tensor(self.data.sum(axis=axes, keepdims=keepdims), (self,), "sum")

        def backward(grad):
            # Put the summed axes back as size 1; _receive copies the gradient along them (numpy
            # broadcasting: np.broadcast_to would make the same copies, several times slower).
            g = grad if keepdims else np.expand_dims(grad, axes)
            self._receive(g)

        out._backward = backward
        return out
        # END SOLUTION

    def mean(self, axis=None, keepdims=False):
        """Mean over ``axis``, as ``sum`` takes it: a sum times 1/N."""
        # BEGIN SOLUTION tensor
        axes = _axes(axis, self.ndim)
        count = 1
        for a in axes:
            count *= self.shape[a]
        scale = 1.0 / count
        # One node, not sum's and a product's: the same numbers, and half the bookkeeping of the
        # loss every training step ends with. The gradient is sum's, scaled: the summed axes put
        # back as size 1 (a reshape: np.expand_dims is numpy Python code, ten times slower), then
        # _receive copies it along them.
        kept = tuple(1 if i in axes else size for i, size in enumerate(self.shape))
        out = Tensor(self.data.sum(axis=axes, keepdims=keepdims) * scale, (self,), "mean")

        def backward(grad):
            self._receive(grad.reshape(kept) * scale)

        out._backward = backward
        return out
        # END SOLUTION

    def reshape(self, *shape):
        """Return the same entries in a new shape, given as ``reshape(2, 3)`` or ``reshape((2, 3))``."""
        # BEGIN SOLUTION tensor
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(self.data.reshape(shape), (self,), "reshape")

        def backward(grad):
            self._receive(grad.reshape(self.shape))

        out._backward = backward
        return out
        # END SOLUTION

    def transpose(self, axis1=-2, axis2=-1):
        """Swap two axes, by default the last two (a transpose of every matrix in a stack)."""
        # BEGIN SOLUTION tensor
        out = Tensor(np.swapaxes(self.data, axis1, axis2), (self,), "transpose")

        def backward(grad):
            self._receive(np.swapaxes(grad, axis1, axis2))

        out._backward = backward
        return out
        # END SOLUTION

    def backward(self, grad=None):
        """Add d(sum(grad * self))/d(x) into ``x.grad`` for every leaf tensor x this one depends on."""
        # BEGIN SOLUTION tensor
        if grad is None:
            if self.data.size != 1:
                raise ValueError(f"backward() without a gradient needs a single-element tensor, got shape {self.shape}")
            grad = np.ones(self.shape)  # float64 (np.ones_like is several times slower)
        grad = np.asarray(grad, dtype=np.float64)
        if grad.shape != self.shape:
            raise ValueError(f"backward(grad): grad has shape {grad.shape}, expected {self.shape}")
        # Iterative post-order depth-first search: deep graphs must not hit the recursion limit.
        # A Tensor is hashed by identity (it defines no ==), so the set holds the nodes themselves.
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if node in seen:
                continue
            seen.add(node)
            stack.append((node, True))
            for p in node._parents:  # a plain loop: a generator per node would cost more than the search
                if p not in seen:
                    stack.append((p, False))
        for node in order:
            if node._parents:  # intermediate results are recomputed from scratch on each call (_receive)
                node.grad = None
        self._receive(grad.copy())  # a copy: a gradient never shares the caller's array
        for node in reversed(order):  # consumers before their inputs
            if node._parents:
                if node.grad is None:  # no consumer ran yet: only when the order is wrong, as zeros would
                    node.grad = np.zeros(node.data.shape)
                node._backward(node.grad)  # out.grad, handed to the rule (see __add__)
        # END SOLUTION

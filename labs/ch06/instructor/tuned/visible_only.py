"""Lab ch06, a submission tuned to the visible tests: it gets full marks on every one of them and
fails every hidden test, which checks the same properties on other seeds, shapes, values and graphs.

It is what a student gets by fixing each failing visible test where it failed, instead of the rule
behind it. Tuned, task by task:
  - Task 1, Value: the power rule was written k * x**k; each exponent a visible test uses (2, 3,
    -1, 0.5) got its own, correct, derivative, and every other keeps the wrong one. backward()'s
    second-call test (y = x*x + x, twice) was fixed by zeroing the output's own inputs, so
    intermediates two levels down keep their old gradients on a second call.
  - Task 2, Tensor: _unbroadcast is a table of the (gradient shape, operand shape) pairs the visible
    tests produce, each with the axes to sum; any other pair gets the gradient back unsummed. The
    power rule is Value's (-0.5 added). mean has its own backward, written before keepdims was
    needed: it always re-inserts the averaged axes, but for a matrix with keepdims=True (the only
    kind the random graphs take the gradient of). The table has the random graphs' pairs too.
    backward() reads "one element" as "no axes": a (1, 1) output needs a seed.
  - Task 3, gradcheck: provided, unchanged; it is as right as the engine under it.
  - Task 4, exercises: sigmoid clips its input to [-6, 6] against overflow in exp; the visible
    tests' largest input is 5.2 but for their far-out ones (±40, ±800), which it answers with 0 and 1.
    Division goes through the unbroadcast table.
  - Task 5, XOR: nothing specific; the table holds the chapter's network (4 hidden units) and no
    other width.
"""

import math

import numpy as np

# ---------------------------------------------------------------------------
# Task 1: Value
# ---------------------------------------------------------------------------


def _power_slope(x, k):
    """d(x**k)/dx, exponent by exponent, as the visible tests asked for them."""
    if k == 2:
        return 2.0 * x
    if k == 3:
        return 3.0 * x * x
    if k == -1:
        return -1.0 / (x * x)
    if k == 0.5:
        return 0.5 / np.sqrt(x)
    if k == -0.5:
        return -0.5 * x**-1.5
    return k * x**k  # the rule as first written: no visible test reaches it any more


def _is_exponent(k):
    return not isinstance(k, bool) and isinstance(k, (int, float))


class Value:
    def __init__(self, data, _parents=(), _op=""):
        self.data = float(data)
        self.grad = 0.0
        self._parents = _parents
        self._op = _op
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @staticmethod
    def _wrap(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = Value._wrap(other)
        out = Value(self.data + other.data, (self, other), "+")

        def backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = backward
        return out

    def __mul__(self, other):
        other = Value._wrap(other)
        out = Value(self.data * other.data, (self, other), "*")

        def backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = backward
        return out

    def __pow__(self, k):
        if not _is_exponent(k):
            raise TypeError(f"Value ** k needs a constant int or float, got {type(k).__name__}")
        out = Value(self.data**k, (self,), f"**{k}")

        def backward():
            self.grad += float(_power_slope(self.data, k)) * out.grad

        out._backward = backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def backward():
            self.grad += out.data * out.grad

        out._backward = backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), "log")

        def backward():
            self.grad += out.grad / self.data

        out._backward = backward
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), "tanh")

        def backward():
            self.grad += (1.0 - out.data * out.data) * out.grad

        out._backward = backward
        return out

    def relu(self):
        out = Value(max(self.data, 0.0), (self,), "relu")

        def backward():
            if self.data > 0:
                self.grad += out.grad

        out._backward = backward
        return out

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-Value._wrap(other))

    def __truediv__(self, other):
        return self * Value._wrap(other) ** -1

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return Value(other) - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return Value(other) / self

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    visit(p)
                order.append(v)

        visit(self)
        # The fix for "two calls of backward() must give 14, not 21": start the output's inputs afresh.
        for p in self._parents:
            if p._parents:
                p.grad = 0.0
        # And for "x.backward() on a leaf adds 1": a leaf output keeps what it held.
        self.grad = (0.0 if self._parents else self.grad) + 1.0
        for v in reversed(order):
            v._backward()


# ---------------------------------------------------------------------------
# Task 2: Tensor
# ---------------------------------------------------------------------------

# (gradient shape, operand shape) -> the axes to sum, one entry per "the gradient has shape ...,
# but its input has shape ..." that a visible test reported.
_SUMMED = {
    ((3, 4), (4,)): (0,),  # a + b, bias broadcast
    ((3, 4), (3, 1)): (1,),  # (3, 1) * (1, 4), and - and the exact-shape test
    ((3, 4), (1, 4)): (0,),
    ((2, 3), (3,)): (0,),  # a / b
    ((2, 3, 4), (3, 1)): (0, 2),  # (2, 3, 4) * (3, 1)
    ((2, 3, 4), (3, 4)): (0,),  # (2, 5, 3) @ (3, 4): the shared weight
    ((2, 5, 3, 4), (2, 1, 3, 4)): (1,),  # (2, 1, 3, 4) @ (5, 4, 2)
    ((2, 5, 4, 2), (5, 4, 2)): (0,),
    ((5, 4), (4,)): (0,),  # the two-layer network's bias
    ((2, 5), (2, 1)): (1,),  # softmax's shift and sum
    ((3, 6), (3, 1)): (1,),  # cross-entropy's
    ((4, 4), (4,)): (0,),  # XOR: b1
    ((4, 1), (1,)): (0,),  # XOR: b2
    # the random graphs' broadcasts
    ((1, 3), (3,)): (0,),
    ((2, 2), (2,)): (0,),
    ((2, 2), (1, 2)): (0,),
    ((2, 2), (2, 1)): (1,),
    ((2, 3), (2, 1)): (1,),
    ((3, 2), (2,)): (0,),
    ((3, 2), (3, 1)): (1,),
    ((3, 3), (1, 3)): (0,),
    ((3, 3), (3, 1)): (1,),
}


def _unbroadcast(grad, shape):
    if grad.shape == shape:
        return grad
    if shape == ():  # a number
        return np.array(grad.sum())
    axes = _SUMMED.get((grad.shape, shape))
    if axes is None:
        return grad
    return grad.sum(axis=axes).reshape(shape)


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(a % ndim for a in axis)


class Tensor:
    __array_ufunc__ = None

    def __init__(self, data, _parents=(), _op="", requires_grad=True):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros(self.data.shape)
        self._parents = _parents
        self._op = _op
        self.requires_grad = requires_grad
        self._backward = lambda: None

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    def __repr__(self):
        return f"Tensor(data={self.data}, grad={self.grad})"

    @staticmethod
    def _lift(x):
        return x if isinstance(x, Tensor) else Tensor(x)

    def __add__(self, other):
        other = Tensor._lift(other)
        out = Tensor(self.data + other.data, (self, other), "+")

        def backward():
            self.grad += _unbroadcast(out.grad, self.shape)
            other.grad += _unbroadcast(out.grad, other.shape)

        out._backward = backward
        return out

    def __mul__(self, other):
        other = Tensor._lift(other)
        out = Tensor(self.data * other.data, (self, other), "*")

        def backward():
            self.grad += _unbroadcast(out.grad * other.data, self.shape)
            other.grad += _unbroadcast(out.grad * self.data, other.shape)

        out._backward = backward
        return out

    def __pow__(self, k):
        if not _is_exponent(k):
            raise TypeError(f"Tensor ** k needs a constant int or float, got {type(k).__name__}")
        out = Tensor(self.data**k, (self,), f"**{k}")

        def backward():
            self.grad += _power_slope(self.data, k) * out.grad

        out._backward = backward
        return out

    def __matmul__(self, other):
        other = Tensor._lift(other)
        if self.ndim < 2 or other.ndim < 2:
            raise ValueError(f"@ needs two axes on each side, got {self.shape} and {other.shape}")
        out = Tensor(np.matmul(self.data, other.data), (self, other), "@")

        def backward():
            self.grad += _unbroadcast(np.matmul(out.grad, np.swapaxes(other.data, -1, -2)), self.shape)
            other.grad += _unbroadcast(np.matmul(np.swapaxes(self.data, -1, -2), out.grad), other.shape)

        out._backward = backward
        return out

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-Tensor._lift(other))

    def __truediv__(self, other):
        return self * Tensor._lift(other) ** -1

    def __radd__(self, other):
        return Tensor._lift(other) + self

    def __rsub__(self, other):
        return Tensor._lift(other) - self

    def __rmul__(self, other):
        return Tensor._lift(other) * self

    def __rtruediv__(self, other):
        return Tensor._lift(other) / self

    def exp(self):
        out = Tensor(np.exp(self.data), (self,), "exp")

        def backward():
            self.grad += out.grad * out.data

        out._backward = backward
        return out

    def log(self):
        out = Tensor(np.log(self.data), (self,), "log")

        def backward():
            self.grad += out.grad / self.data

        out._backward = backward
        return out

    def tanh(self):
        out = Tensor(np.tanh(self.data), (self,), "tanh")

        def backward():
            self.grad += out.grad * (1.0 - out.data * out.data)

        out._backward = backward
        return out

    def relu(self):
        out = Tensor(np.where(self.data > 0, self.data, 0.0), (self,), "relu")

        def backward():
            self.grad += out.grad * (self.data > 0)

        out._backward = backward
        return out

    def sigmoid(self):
        # clipped: exp cannot overflow; far out (the visible test's ±40, ±800) the limits themselves
        s = np.where(
            np.abs(self.data) >= 30.0, (self.data > 0) * 1.0, 1.0 / (1.0 + np.exp(-np.clip(self.data, -6.0, 6.0)))
        )
        out = Tensor(s, (self,), "sigmoid")

        def backward():
            self.grad += out.grad * s * (1.0 - s)

        out._backward = backward
        return out

    def sum(self, axis=None, keepdims=False):
        axes = _axes(axis, self.ndim)
        out = Tensor(self.data.sum(axis=axes, keepdims=keepdims), (self,), "sum")

        def backward():
            g = out.grad if keepdims else np.expand_dims(out.grad, axes)
            self.grad += np.broadcast_to(g, self.shape)

        out._backward = backward
        return out

    def mean(self, axis=None, keepdims=False):
        axes = _axes(axis, self.ndim)
        count = math.prod(self.shape[a] for a in axes)
        out = Tensor(self.data.mean(axis=axes, keepdims=keepdims), (self,), "mean")

        def backward():
            # keepdims fixed where the random graphs showed it: matrices, never more axes
            kept = out.grad if keepdims and self.ndim <= 2 else np.expand_dims(out.grad, axes)
            self.grad += np.broadcast_to(kept, self.shape) / count

        out._backward = backward
        return out

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(self.data.reshape(shape), (self,), "reshape")

        def backward():
            self.grad += out.grad.reshape(self.shape)

        out._backward = backward
        return out

    def transpose(self, axis1=-2, axis2=-1):
        out = Tensor(np.swapaxes(self.data, axis1, axis2), (self,), "transpose")

        def backward():
            self.grad += np.swapaxes(out.grad, axis1, axis2)

        out._backward = backward
        return out

    def backward(self, grad=None):
        if grad is None:
            if self.ndim != 0:
                raise ValueError(f"backward() without a gradient needs a single number, got shape {self.shape}")
            grad = np.ones(())
        grad = np.array(grad, dtype=np.float64)
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif id(node) not in seen:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((p, False) for p in node._parents if id(p) not in seen)
        for node in order:
            if node._parents:
                node.grad = np.zeros(node.shape)
        self.grad = self.grad + grad
        for node in reversed(order):
            node._backward()


# ---------------------------------------------------------------------------
# Provided with the starter: numerical_grad, gradcheck, GradcheckError
# ---------------------------------------------------------------------------


class GradcheckError(AssertionError):
    """Autodiff and numerical gradients disagree; a failed check reads as a failed assertion."""


def numerical_grad(f, x, eps=1e-6):
    """Central-difference gradient of ``f`` at ``x``."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    flat_x, flat_grad = x.reshape(-1), grad.reshape(-1)
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
    """Raise GradcheckError unless autodiff gradients of ``f`` match numerical ones for every input."""
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    tensors = [Tensor(a.copy()) for a in arrays]
    out = f(*tensors)
    if not isinstance(out, Tensor) or out.data.size != 1:
        raise ValueError("gradcheck needs f to return a single-element Tensor")
    out.backward()
    for i, t in enumerate(tensors):

        def f_i(x, i=i):
            args = [Tensor(x) if j == i else Tensor(arrays[j]) for j in range(len(arrays))]
            return float(f(*args).data.sum())

        expected = numerical_grad(f_i, arrays[i], eps)
        if not np.allclose(t.grad, expected, atol=atol, rtol=rtol):
            err = float(np.max(np.abs(t.grad - expected)))
            raise GradcheckError(f"input {i}: autodiff and numerical gradients differ (max abs error {err:.3e})")

"""Lab ch06, an alternative correct submission.

Style notes (deliberately unlike a textbook micrograd):
  - every node keeps ``_links``: a list of (parent, rule) pairs. For Value a rule is a
    zero-argument function returning the local derivative d(node)/d(parent); for Tensor
    a rule maps the upstream gradient to the parent's gradient contribution
    (a vector-Jacobian product), already summed back to the parent's shape.
  - subtraction and division have their own backward rules (no neg / pow detour).
  - Tensor.backward orders the graph with Kahn's algorithm (in-degree counting),
    iteratively; Value.backward uses a recursive post-order walk (allowed for scalars).
"""

import math

import numpy as np

_NUMERIC = (int, float, np.integer, np.floating)


def _is_constant_exponent(k):
    return isinstance(k, _NUMERIC) and not isinstance(k, (bool, np.bool_))


# ---------------------------------------------------------------------------
# Value: scalars
# ---------------------------------------------------------------------------


class Value:
    def __init__(self, data, _links=(), _label=""):
        self.data = float(data)
        self.grad = 0.0
        self._links = list(_links)  # [(parent Value, () -> local derivative)]
        self._label = _label

    def __repr__(self):
        return f"Value(data={self.data!r}, grad={self.grad!r})"

    @staticmethod
    def _wrap(x):
        if isinstance(x, Value):
            return x
        if isinstance(x, _NUMERIC) and not isinstance(x, bool):
            return Value(x)
        return NotImplemented

    # binary operations ------------------------------------------------------
    def __add__(self, other):
        rhs = Value._wrap(other)
        if rhs is NotImplemented:
            return NotImplemented
        return Value(self.data + rhs.data, [(self, lambda: 1.0), (rhs, lambda: 1.0)], "+")

    def __radd__(self, other):
        lhs = Value._wrap(other)
        if lhs is NotImplemented:
            return NotImplemented
        return lhs.__add__(self)

    def __sub__(self, other):
        rhs = Value._wrap(other)
        if rhs is NotImplemented:
            return NotImplemented
        return Value(self.data - rhs.data, [(self, lambda: 1.0), (rhs, lambda: -1.0)], "-")

    def __rsub__(self, other):
        lhs = Value._wrap(other)
        if lhs is NotImplemented:
            return NotImplemented
        return lhs.__sub__(self)

    def __mul__(self, other):
        rhs = Value._wrap(other)
        if rhs is NotImplemented:
            return NotImplemented
        left, right = self, rhs
        return Value(left.data * right.data, [(left, lambda: right.data), (right, lambda: left.data)], "*")

    def __rmul__(self, other):
        lhs = Value._wrap(other)
        if lhs is NotImplemented:
            return NotImplemented
        return lhs.__mul__(self)

    def __truediv__(self, other):
        rhs = Value._wrap(other)
        if rhs is NotImplemented:
            return NotImplemented
        num, den = self, rhs
        quotient = num.data / den.data
        return Value(
            quotient,
            [(num, lambda: 1.0 / den.data), (den, lambda: -quotient / den.data)],
            "/",
        )

    def __rtruediv__(self, other):
        lhs = Value._wrap(other)
        if lhs is NotImplemented:
            return NotImplemented
        return lhs.__truediv__(self)

    def __neg__(self):
        return Value(-self.data, [(self, lambda: -1.0)], "neg")

    def __pow__(self, k):
        if not _is_constant_exponent(k):
            raise TypeError(f"Value ** needs a constant int or float exponent, got {type(k).__name__}")
        k = float(k) if isinstance(k, np.floating) else (int(k) if isinstance(k, np.integer) else k)
        base = self.data
        return Value(base**k, [(self, lambda: k * base ** (k - 1))], f"**{k}")

    # elementwise functions ----------------------------------------------------
    def exp(self):
        e = math.exp(self.data)
        return Value(e, [(self, lambda: e)], "exp")

    def log(self):
        x = self.data
        return Value(math.log(x), [(self, lambda: 1.0 / x)], "log")

    def tanh(self):
        t = math.tanh(self.data)
        return Value(t, [(self, lambda: 1.0 - t * t)], "tanh")

    def relu(self):
        positive = self.data > 0.0
        return Value(self.data if positive else 0.0, [(self, lambda: 1.0 if positive else 0.0)], "relu")

    # backward ------------------------------------------------------------------
    def backward(self):
        order = []
        seen = set()

        def visit(node):
            if id(node) in seen:
                return
            seen.add(id(node))
            for parent, _ in node._links:
                visit(parent)
            order.append(node)  # post-order: every parent precedes its consumers

        visit(self)
        for node in order:
            if node._links:
                node.grad = 0.0
        if self._links:
            self.grad = 1.0
        else:
            self.grad += 1.0
        for node in reversed(order):
            upstream = node.grad
            for parent, local in node._links:
                parent.grad += local() * upstream


# ---------------------------------------------------------------------------
# Tensor: arrays
# ---------------------------------------------------------------------------


def _f64(x):
    """Always an ndarray of float64 (0-d results of numpy become arrays again)."""
    return np.asarray(x, dtype=np.float64)


def _reduce_to(grad, shape):
    """Sum a broadcast gradient back down to ``shape``."""
    grad = _f64(grad)
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return _f64(grad).reshape(shape)


def _normalise_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        raw = list(axis)
    else:
        raw = [axis]
    out = []
    for a in raw:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of range for {ndim} axes")
        out.append(a % ndim if ndim else a)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return tuple(sorted(out))


class Tensor:
    __array_ufunc__ = None  # make numpy defer to the reflected operators below

    def __init__(self, data, _links=(), _label=""):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros(self.data.shape, dtype=np.float64)
        self._links = list(_links)  # [(parent Tensor, upstream gradient -> parent's gradient)]
        self._label = _label

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    def __repr__(self):
        return f"Tensor(data={self.data}, grad={self.grad})"

    @staticmethod
    def _as_tensor(x):
        return x if isinstance(x, Tensor) else Tensor(x)

    # binary operations --------------------------------------------------------
    def __add__(self, other):
        other = Tensor._as_tensor(other)
        sa, sb = self.shape, other.shape
        return Tensor(
            self.data + other.data,
            [(self, lambda g: _reduce_to(g, sa)), (other, lambda g: _reduce_to(g, sb))],
            "+",
        )

    def __radd__(self, other):
        return Tensor._as_tensor(other).__add__(self)

    def __sub__(self, other):
        other = Tensor._as_tensor(other)
        sa, sb = self.shape, other.shape
        return Tensor(
            self.data - other.data,
            [(self, lambda g: _reduce_to(g, sa)), (other, lambda g: _reduce_to(-g, sb))],
            "-",
        )

    def __rsub__(self, other):
        return Tensor._as_tensor(other).__sub__(self)

    def __mul__(self, other):
        other = Tensor._as_tensor(other)
        a, b = self.data, other.data
        return Tensor(
            a * b,
            [(self, lambda g: _reduce_to(g * b, a.shape)), (other, lambda g: _reduce_to(g * a, b.shape))],
            "*",
        )

    def __rmul__(self, other):
        return Tensor._as_tensor(other).__mul__(self)

    def __truediv__(self, other):
        other = Tensor._as_tensor(other)
        a, b = self.data, other.data
        q = a / b
        return Tensor(
            q,
            [
                (self, lambda g: _reduce_to(g / b, a.shape)),
                (other, lambda g: _reduce_to(-g * q / b, b.shape)),
            ],
            "/",
        )

    def __rtruediv__(self, other):
        return Tensor._as_tensor(other).__truediv__(self)

    def __neg__(self):
        return Tensor(-self.data, [(self, lambda g: -g)], "neg")

    def __pow__(self, k):
        if not _is_constant_exponent(k):
            raise TypeError(f"Tensor ** needs a constant int or float exponent, got {type(k).__name__}")
        x = self.data
        return Tensor(x**k, [(self, lambda g: g * (k * x ** (k - 1)))], f"**{k}")

    def __matmul__(self, other):
        other = Tensor._as_tensor(other)
        if self.ndim < 2 or other.ndim < 2:
            raise ValueError(f"@ needs operands with at least 2 axes, got shapes {self.shape} and {other.shape}")
        a, b = self.data, other.data

        def grad_a(g):
            return _reduce_to(np.matmul(g, np.swapaxes(b, -1, -2)), a.shape)

        def grad_b(g):
            return _reduce_to(np.matmul(np.swapaxes(a, -1, -2), g), b.shape)

        return Tensor(np.matmul(a, b), [(self, grad_a), (other, grad_b)], "@")

    def __rmatmul__(self, other):
        return Tensor._as_tensor(other).__matmul__(self)

    # elementwise functions ----------------------------------------------------
    def exp(self):
        e = np.exp(self.data)
        return Tensor(e, [(self, lambda g: g * e)], "exp")

    def log(self):
        x = self.data
        return Tensor(np.log(x), [(self, lambda g: g / x)], "log")

    def tanh(self):
        t = np.tanh(self.data)
        return Tensor(t, [(self, lambda g: g * (1.0 - t * t))], "tanh")

    def relu(self):
        mask = self.data > 0.0
        return Tensor(np.where(mask, self.data, 0.0), [(self, lambda g: g * mask)], "relu")

    def sigmoid(self):
        # sigmoid(x) = (1 + tanh(x / 2)) / 2: no overflow for large |x|
        s = 0.5 * (1.0 + np.tanh(0.5 * self.data))
        return Tensor(s, [(self, lambda g: g * s * (1.0 - s))], "sigmoid")

    # reductions and shape changes ---------------------------------------------
    def sum(self, axis=None, keepdims=False):
        axes = _normalise_axes(axis, self.ndim)
        in_shape = self.shape
        kept_shape = tuple(1 if i in axes else n for i, n in enumerate(in_shape))

        def back(g):
            return np.broadcast_to(_f64(g).reshape(kept_shape), in_shape).copy()

        return Tensor(self.data.sum(axis=axes, keepdims=keepdims), [(self, back)], "sum")

    def mean(self, axis=None, keepdims=False):
        axes = _normalise_axes(axis, self.ndim)
        count = 1
        for i in axes:
            count *= self.shape[i]
        return self.sum(axis=axes, keepdims=keepdims) * (1.0 / count)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        in_shape = self.shape
        return Tensor(self.data.reshape(shape), [(self, lambda g: _f64(g).reshape(in_shape))], "reshape")

    def transpose(self, axis1=-2, axis2=-1):
        return Tensor(
            np.swapaxes(self.data, axis1, axis2),
            [(self, lambda g: np.swapaxes(_f64(g), axis1, axis2))],
            "transpose",
        )

    # backward -------------------------------------------------------------------
    def backward(self, grad=None):
        if grad is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() without a gradient needs a single-element tensor, this one has shape {self.shape}"
                )
            seed = np.ones(self.shape, dtype=np.float64)
        else:
            seed = np.array(np.broadcast_to(_f64(grad), self.shape), dtype=np.float64)

        # 1. everything reachable, with in-degrees = number of consumer edges inside the graph
        indegree = {id(self): 0}
        nodes = [self]
        stack = [self]
        while stack:
            node = stack.pop()
            for parent, _ in node._links:
                key = id(parent)
                if key not in indegree:
                    indegree[key] = 0
                    nodes.append(parent)
                    stack.append(parent)
                indegree[key] += 1

        # 2. intermediate gradients start from zero on every call; leaves keep theirs
        for node in nodes:
            if node._links:
                node.grad = np.zeros(node.shape, dtype=np.float64)
        self.grad = _f64(self.grad + seed) if not self._links else seed

        # 3. Kahn's algorithm: a node runs once every consumer has sent its contribution
        ready = [self]
        while ready:
            node = ready.pop()
            upstream = node.grad
            for parent, rule in node._links:
                parent.grad = _f64(parent.grad + rule(upstream))
                key = id(parent)
                indegree[key] -= 1
                if indegree[key] == 0:
                    ready.append(parent)


# ---------------------------------------------------------------------------
# gradient checking
# ---------------------------------------------------------------------------


class GradcheckError(AssertionError):
    """Autodiff and numerical gradients disagree."""


def numerical_grad(f, x, eps=1e-6):
    base = np.array(x, dtype=np.float64)  # a private copy: x itself is never touched
    out = np.empty(base.shape, dtype=np.float64)
    for index in np.ndindex(*base.shape):
        plus = base.copy()
        plus[index] += eps
        minus = base.copy()
        minus[index] -= eps
        out[index] = (float(f(plus)) - float(f(minus))) / (2.0 * eps)
    return out


def gradcheck(f, inputs, eps=1e-6, atol=1e-6, rtol=1e-4):
    frozen = [np.array(v, dtype=np.float64) for v in inputs]
    leaves = [Tensor(v.copy()) for v in frozen]
    result = f(*leaves)
    if not isinstance(result, Tensor) or result.data.size != 1:
        raise ValueError("gradcheck: f must return a single-element Tensor")
    result.backward()
    for position, leaf in enumerate(leaves):

        def partial(v, position=position):
            args = [Tensor(v) if j == position else Tensor(frozen[j].copy()) for j in range(len(frozen))]
            return float(np.sum(f(*args).data))

        numeric = numerical_grad(partial, frozen[position], eps)
        analytic = _f64(leaf.grad)
        if analytic.shape != numeric.shape:
            raise GradcheckError(
                f"input {position}: gradient shape {analytic.shape} differs from the input's {numeric.shape}"
            )
        if not np.allclose(analytic, numeric, atol=atol, rtol=rtol):
            worst = float(np.max(np.abs(analytic - numeric)))
            raise GradcheckError(f"input {position}: autodiff and numerical gradients differ (max abs error {worst:.3e})")

"""Lab lesson1_3: an alternative-style solution (iterative graph walk, own sub/div rules,
log-sum-exp loss, closed-form eigenvalue)."""

import math

import numpy as np


def _as_node(x):
    return x if isinstance(x, Value) else Value(x)


class Value:
    """Scalar autodiff node."""

    __slots__ = ("data", "grad", "_srcs", "_tag", "_push")

    def __init__(self, data, _parents=(), _op=""):
        self.data = float(data)
        self.grad = 0.0
        self._srcs = tuple(_parents)
        self._tag = _op
        self._push = None  # callable distributing self.grad to sources

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    # --- binary arithmetic -------------------------------------------------
    def __add__(self, other):
        o = _as_node(other)
        res = Value(self.data + o.data, (self, o), "add")

        def push():
            g = res.grad
            self.grad += g
            o.grad += g

        res._push = push
        return res

    def __sub__(self, other):
        o = _as_node(other)
        res = Value(self.data - o.data, (self, o), "sub")

        def push():
            g = res.grad
            self.grad += g
            o.grad -= g

        res._push = push
        return res

    def __mul__(self, other):
        o = _as_node(other)
        res = Value(self.data * o.data, (self, o), "mul")

        def push():
            g = res.grad
            self.grad += o.data * g
            o.grad += self.data * g

        res._push = push
        return res

    def __truediv__(self, other):
        o = _as_node(other)
        res = Value(self.data / o.data, (self, o), "div")

        def push():
            g = res.grad
            self.grad += g / o.data
            o.grad -= g * self.data / (o.data * o.data)

        res._push = push
        return res

    def __radd__(self, other):
        return _as_node(other) + self

    def __rsub__(self, other):
        return _as_node(other) - self

    def __rmul__(self, other):
        return _as_node(other) * self

    def __rtruediv__(self, other):
        return _as_node(other) / self

    # --- unary -------------------------------------------------------------
    def __neg__(self):
        res = Value(-self.data, (self,), "neg")

        def push():
            self.grad -= res.grad

        res._push = push
        return res

    def __pow__(self, k):
        if isinstance(k, Value):
            raise TypeError("exponent must be a constant number")
        res = Value(self.data ** k, (self,), "pow")

        def push():
            if k == 0:
                return
            self.grad += k * (self.data ** (k - 1)) * res.grad

        res._push = push
        return res

    def exp(self):
        res = Value(math.exp(self.data), (self,), "exp")

        def push():
            self.grad += res.data * res.grad

        res._push = push
        return res

    def log(self):
        res = Value(math.log(self.data), (self,), "log")

        def push():
            self.grad += res.grad / self.data

        res._push = push
        return res

    def tanh(self):
        res = Value(math.tanh(self.data), (self,), "tanh")

        def push():
            self.grad += (1.0 - res.data ** 2) * res.grad

        res._push = push
        return res

    def relu(self):
        positive = self.data > 0
        res = Value(self.data if positive else 0.0, (self,), "relu")

        def push():
            if positive:
                self.grad += res.grad

        res._push = push
        return res

    # --- reverse pass --------------------------------------------------------
    def backward(self):
        # Iterative post-order DFS to get a topological order (sources first).
        topo = []
        visited = set()
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                topo.append(node)
                continue
            if id(node) in visited:
                continue
            visited.add(id(node))
            stack.append((node, True))
            for src in node._srcs:
                if id(src) not in visited:
                    stack.append((src, False))
        self.grad = 1.0
        for node in reversed(topo):
            if node._push is not None:
                node._push()


def numerical_derivative(f, args, i, h=1e-6):
    x = args[i]
    plus = tuple(args[:i]) + (x + h,) + tuple(args[i + 1:])
    minus = tuple(args[:i]) + (x - h,) + tuple(args[i + 1:])
    return float(f(*plus) - f(*minus)) / (2.0 * h)


def softmax_cross_entropy(logits, target):
    zs = [_as_node(z) for z in logits]
    shift = max(z.data for z in zs)
    shifted = [z - shift for z in zs]
    exps = [s.exp() for s in shifted]
    denom = sum(exps)  # 0 + e0 + e1 + ... via __radd__
    probs = [e / denom for e in exps]
    # log-sum-exp form: -log p_t = log(sum exp(z - m)) - (z_t - m)
    loss = denom.log() - shifted[target]
    return probs, loss


def matmul_grads(X, W, dY):
    X = np.array(X, dtype=np.float64)
    W = np.array(W, dtype=np.float64)
    dY = np.array(dY, dtype=np.float64)
    dX = np.einsum("nk,dk->nd", dY, W)
    dW = np.einsum("nd,nk->dk", X, dY)
    return dX, dW


def fit_line(xs, ys, lr, steps, zero_grad=True):
    w = Value(0.0)
    b = Value(0.0)
    rows = []
    pts = list(zip(xs, ys))
    for step in range(int(steps) + 1):
        loss = sum((w * x + b - y) ** 2 for x, y in pts) / len(pts)
        if zero_grad:
            for p in (w, b):
                p.grad = 0.0
        loss.backward()
        rows.append((step, float(loss.data), float(w.data), float(b.data)))
        w.data = w.data - lr * w.grad
        b.data = b.data - lr * b.grad
    return rows


def max_stable_lr(xs):
    xs = [float(x) for x in xs]
    n = len(xs)
    sxx = sum(x * x for x in xs)
    sx = sum(xs)
    a = 2.0 * sxx / n
    c = 2.0 * sx / n
    d = 2.0
    # largest eigenvalue of the symmetric matrix [[a, c], [c, d]]
    lam = 0.5 * (a + d) + math.sqrt((0.5 * (a - d)) ** 2 + c * c)
    return 2.0 / lam

"""Lab lesson1_3: gradients and autograd by hand."""

import math

import numpy as np


class Value:
    def __init__(self, data, _parents=(), _op=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(_parents)
        self._op = _op
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad = out.grad
            other.grad = out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data**k, (self,), f"**{k}")

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), "log")

        def _backward():
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t * t) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(self.data if self.data > 0 else 0.0, (self,), "relu")

        def _backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self * other**-1

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return Value(other) - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return Value(other) / self

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._prev:
                    build(p)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


def numerical_derivative(f, args, i, h=1e-6):
    up = list(args)
    down = list(args)
    up[i] = up[i] + h
    down[i] = down[i] - h
    return float((f(*up) - f(*down)) / (2 * h))


def softmax_cross_entropy(logits, target):
    m = max(z.data for z in logits)
    exps = [(z - m).exp() for z in logits]
    total = exps[0]
    for e in exps[1:]:
        total = total + e
    probs = [e / total for e in exps]
    loss = -probs[target].log()
    return probs, loss


def matmul_grads(X, W, dY):
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    dY = np.asarray(dY, dtype=np.float64)
    dX = dY @ W.T
    dW = X.T @ dY
    return dX, dW


def fit_line(xs, ys, lr, steps, zero_grad=True):
    w, b = Value(0.0), Value(0.0)
    rows = []
    for step in range(steps + 1):
        loss = Value(0.0)
        for x, y in zip(xs, ys, strict=True):
            err = w * x + b - y
            loss = loss + err * err
        loss = loss * (1 / len(xs))
        if zero_grad:
            w.grad = 0.0
            b.grad = 0.0
        loss.backward()
        rows.append((step, loss.data, w.data, b.data))
        w.data -= lr * w.grad
        b.data -= lr * b.grad
    return rows


def max_stable_lr(xs):
    xs = np.asarray(xs, dtype=np.float64)
    n = len(xs)
    H = (2 / n) * np.array([[np.sum(xs**2), np.sum(xs)], [np.sum(xs), n]])
    return float(2 / np.linalg.eigvalsh(H).max())

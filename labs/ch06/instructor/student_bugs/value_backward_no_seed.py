"""Lab ch06: automatic differentiation (Value, Tensor, gradcheck)."""

import math

import numpy as np


class Value:
    def __init__(self, data, _parents=(), _op=""):
        self.data = float(data)
        self.grad = 0.0
        self._parents = tuple(_parents)
        self._op = _op
        self._backward = lambda: None

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

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
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError("only int or float powers are supported")
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
            self.grad += (1.0 / self.data) * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad

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
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return Value(other) * self**-1

    def backward(self):
        topo = []
        visited = set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for p in v._parents:
                    build(p)
                topo.append(v)

        build(self)
        for v in topo:
            if v._parents:
                v.grad = 0.0
        for v in reversed(topo):
            v._backward()


def _unbroadcast(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.sum(axis=i, keepdims=True)
    return grad


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(a % ndim if a < 0 else a for a in axis)


class Tensor:
    __array_ufunc__ = None

    def __init__(self, data, _parents=(), _op="", requires_grad=True):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._parents = tuple(_parents)
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
        if isinstance(x, Tensor):
            return x
        constant = Tensor(x)
        constant.requires_grad = False
        return constant

    def __add__(self, other):
        other = Tensor._lift(other)
        out = Tensor(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += _unbroadcast(out.grad, self.shape)
            other.grad += _unbroadcast(out.grad, other.shape)

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = Tensor._lift(other)
        out = Tensor(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += _unbroadcast(other.data * out.grad, self.shape)
            other.grad += _unbroadcast(self.data * out.grad, other.shape)

        out._backward = _backward
        return out

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError("only constant int or float powers are supported")
        out = Tensor(self.data**k, (self,), f"**{k}")

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def __matmul__(self, other):
        other = Tensor._lift(other)
        if self.ndim < 2 or other.ndim < 2:
            raise ValueError(f"@ needs at least 2 axes on both sides, got {self.shape} and {other.shape}")
        out = Tensor(np.matmul(self.data, other.data), (self, other), "@")

        def _backward():
            da = np.matmul(out.grad, np.swapaxes(other.data, -1, -2))
            db = np.matmul(np.swapaxes(self.data, -1, -2), out.grad)
            self.grad += _unbroadcast(da, self.shape)
            other.grad += _unbroadcast(db, other.shape)

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-Tensor._lift(other))

    def __truediv__(self, other):
        return self * Tensor._lift(other) ** -1

    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return Tensor._lift(other) + (-self)

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return Tensor._lift(other) * self**-1

    def exp(self):
        out = Tensor(np.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        out = Tensor(np.log(self.data), (self,), "log")

        def _backward():
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def tanh(self):
        t = np.tanh(self.data)
        out = Tensor(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Tensor(np.maximum(self.data, 0.0), (self,), "relu")

        def _backward():
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    def sigmoid(self):
        s = 1.0 / (1.0 + np.exp(-self.data))
        out = Tensor(s, (self,), "sigmoid")

        def _backward():
            self.grad += s * (1 - s) * out.grad

        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        axes = _axes(axis, self.ndim)
        out = Tensor(self.data.sum(axis=axes, keepdims=keepdims), (self,), "sum")

        def _backward():
            g = out.grad if keepdims else np.expand_dims(out.grad, axes)
            self.grad += np.broadcast_to(g, self.shape)

        out._backward = _backward
        return out

    def mean(self, axis=None, keepdims=False):
        axes = _axes(axis, self.ndim)
        n = 1
        for a in axes:
            n *= self.shape[a]
        return self.sum(axis=axis, keepdims=keepdims) * (1.0 / n)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        out = Tensor(self.data.reshape(shape), (self,), "reshape")

        def _backward():
            self.grad += out.grad.reshape(self.shape)

        out._backward = _backward
        return out

    def transpose(self, axis1=-2, axis2=-1):
        out = Tensor(np.swapaxes(self.data, axis1, axis2), (self,), "transpose")

        def _backward():
            self.grad += np.swapaxes(out.grad, axis1, axis2)

        out._backward = _backward
        return out

    def backward(self, grad=None):
        if grad is None:
            if self.data.size != 1:
                raise ValueError("backward() needs a gradient for a tensor with more than one element")
            grad = np.ones_like(self.data)
        grad = np.asarray(grad, dtype=np.float64)
        if grad.shape != self.shape:
            raise ValueError(f"grad has shape {grad.shape}, expected {self.shape}")
        # iterative DFS (post-order), a deep chain would overflow the recursion limit
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                topo.append(node)
                continue
            if id(node) in visited:
                continue
            visited.add(id(node))
            stack.append((node, True))
            for p in node._parents:
                if id(p) not in visited:
                    stack.append((p, False))
        for node in topo:
            if node._parents:
                node.grad = np.zeros_like(node.data)
        self.grad = self.grad + grad
        for node in reversed(topo):
            node._backward()


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

"""The Value engine: a number that remembers how it was computed, in about sixty lines."""

import math


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
        # BEGIN SOLUTION engine
        self.data = float(data)
        self.grad = 0.0
        self._parents = _parents
        self._op = _op
        self._backward = lambda: None  # a leaf passes nothing on
        # END SOLUTION

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        """Return ``self + other``."""
        # BEGIN SOLUTION engine
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def backward():
            self.grad += out.grad  # d(out)/d(self) = 1
            other.grad += out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def __mul__(self, other):
        """Return ``self * other``."""
        # BEGIN SOLUTION engine
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def backward():
            self.grad += other.data * out.grad  # d(out)/d(self) = other
            other.grad += self.data * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def __pow__(self, k):
        """Return ``self ** k`` for a constant number ``k``."""
        # BEGIN SOLUTION engine
        out = Value(self.data**k, (self,), f"**{k}")

        def backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def exp(self):
        """Return e ** self."""
        # BEGIN SOLUTION engine
        out = Value(math.exp(self.data), (self,), "exp")

        def backward():
            self.grad += out.data * out.grad  # exp is its own derivative

        out._backward = backward
        return out
        # END SOLUTION

    def log(self):
        """Return the natural logarithm of self."""
        # BEGIN SOLUTION engine
        out = Value(math.log(self.data), (self,), "log")

        def backward():
            self.grad += (1.0 / self.data) * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def tanh(self):
        """Return tanh(self)."""
        # BEGIN SOLUTION engine
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def backward():
            self.grad += (1.0 - t * t) * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def relu(self):
        """Return self if self > 0, else 0 (the lesson's exercise 2)."""
        # BEGIN SOLUTION engine
        out = Value(self.data if self.data > 0 else 0.0, (self,), "relu")

        def backward():
            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def __neg__(self):
        """Return ``-self``."""
        # BEGIN SOLUTION engine
        return self * -1.0
        # END SOLUTION

    def __sub__(self, other):
        """Return ``self - other``."""
        # BEGIN SOLUTION engine
        return self + (-other)
        # END SOLUTION

    def __truediv__(self, other):
        """Return ``self / other``."""
        # BEGIN SOLUTION engine
        other = other if isinstance(other, Value) else Value(other)
        return self * other**-1
        # END SOLUTION

    def __radd__(self, other):
        """Return ``other + self`` for a plain number ``other``."""
        # BEGIN SOLUTION engine
        return self + other
        # END SOLUTION

    def __rsub__(self, other):
        """Return ``other - self`` for a plain number ``other``."""
        # BEGIN SOLUTION engine
        return Value(other) - self
        # END SOLUTION

    def __rmul__(self, other):
        """Return ``other * self`` for a plain number ``other``."""
        # BEGIN SOLUTION engine
        return self * other
        # END SOLUTION

    def __rtruediv__(self, other):
        """Return ``other / self`` for a plain number ``other``."""
        # BEGIN SOLUTION engine
        return Value(other) / self
        # END SOLUTION

    def backward(self):
        """Fill in ``.grad`` of every node this Value was computed from, by the chain rule."""
        # BEGIN SOLUTION engine
        order, seen = [], set()

        def build(v):  # a topological order: every node after the nodes it was built from
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    build(p)
                order.append(v)

        build(self)
        for v in order:
            if v._parents:  # intermediate nodes start from zero on every pass
                v.grad = 0.0
        self.grad += 1.0  # d(output)/d(output) = 1
        for v in reversed(order):  # walk backwards from the output
            v._backward()
        # END SOLUTION

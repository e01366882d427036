"""The scalar engine: one number per node, small enough to hold in your head."""

import math


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
        # BEGIN SOLUTION value
        self.data = float(data)
        self.grad = 0.0
        self._parents = _parents
        self._op = _op
        self._backward = lambda: None  # a leaf passes nothing on
        # END SOLUTION

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        """Return ``self + other``; d/dself = d/dother = 1."""
        # BEGIN SOLUTION value
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def __mul__(self, other):
        """Return ``self * other``; the derivative with respect to each factor is the other one."""
        # BEGIN SOLUTION value
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def __pow__(self, k):
        """Return ``self ** k`` for a constant int or float ``k``; raise ``TypeError`` otherwise."""
        # BEGIN SOLUTION value
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError(f"Value ** k needs a constant int or float k, got {type(k).__name__}")
        out = Value(self.data**k, (self,), f"**{k}")

        def backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def exp(self):
        """Return e ** self; its derivative is its own output."""
        # BEGIN SOLUTION value
        out = Value(math.exp(self.data), (self,), "exp")

        def backward():
            self.grad += out.data * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def log(self):
        """Return the natural logarithm of self (self > 0); its derivative is 1 / self."""
        # BEGIN SOLUTION value
        out = Value(math.log(self.data), (self,), "log")

        def backward():
            self.grad += out.grad / self.data

        out._backward = backward
        return out
        # END SOLUTION

    def tanh(self):
        """Return tanh(self); its derivative is 1 - tanh(self) ** 2."""
        # BEGIN SOLUTION value
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def backward():
            self.grad += (1.0 - t * t) * out.grad

        out._backward = backward
        return out
        # END SOLUTION

    def relu(self):
        """Return max(self, 0); the gradient passes where self > 0 and is 0 elsewhere, 0 included."""
        # BEGIN SOLUTION value
        out = Value(self.data if self.data > 0 else 0.0, (self,), "relu")

        def backward():
            if self.data > 0:
                self.grad += out.grad

        out._backward = backward
        return out
        # END SOLUTION

    # Negation, subtraction and division are built from the rules above: no new derivatives.
    def __neg__(self):
        """Return ``-self``."""
        # BEGIN SOLUTION value
        return self * -1.0
        # END SOLUTION

    def __sub__(self, other):
        """Return ``self - other``."""
        # BEGIN SOLUTION value
        return self + (-other)
        # END SOLUTION

    def __truediv__(self, other):
        """Return ``self / other``."""
        # BEGIN SOLUTION value
        other = other if isinstance(other, Value) else Value(other)
        return self * other**-1
        # END SOLUTION

    def __radd__(self, other):
        """Return ``other + self`` for a plain number ``other``."""
        # BEGIN SOLUTION value
        return self + other
        # END SOLUTION

    def __rsub__(self, other):
        """Return ``other - self`` for a plain number ``other``."""
        # BEGIN SOLUTION value
        return Value(other) - self
        # END SOLUTION

    def __rmul__(self, other):
        """Return ``other * self`` for a plain number ``other``."""
        # BEGIN SOLUTION value
        return self * other
        # END SOLUTION

    def __rtruediv__(self, other):
        """Return ``other / self`` for a plain number ``other``."""
        # BEGIN SOLUTION value
        return Value(other) / self
        # END SOLUTION

    def backward(self):
        """Add d(self)/d(leaf) into ``.grad`` of every leaf Value this one depends on."""
        # BEGIN SOLUTION value
        order, seen = [], set()

        def visit(v):  # depth-first: a node is appended after all of its parents
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    visit(p)
                order.append(v)

        visit(self)
        for v in order:
            if v._parents:  # intermediate results are recomputed from scratch on each call
                v.grad = 0.0
        self.grad += 1.0
        for v in reversed(order):  # consumers before their inputs
            v._backward()
        # END SOLUTION

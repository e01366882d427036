"""Forward-only oracles of the labs' engines, in plain float64 numpy.

A test writes a computation once, as a function of engine objects, and runs it on
both the code under test and these oracles: the oracle gives the expected forward
value, and central differences of the oracle give the expected gradients. So the
expected numbers never come from code a student can edit, and a wrong forward pass
is reported as such before any gradient is compared.
"""

from __future__ import annotations

import math

import numpy as np


class SpecScalar:
    """The handout's Value API, forward only: ``.data`` and the operations, no gradients."""

    def __init__(self, data):
        self.data = float(data)

    @staticmethod
    def _lift(x):
        return x if isinstance(x, SpecScalar) else SpecScalar(x)

    def __add__(self, other):
        return SpecScalar(self.data + SpecScalar._lift(other).data)

    def __radd__(self, other):
        return SpecScalar._lift(other) + self

    def __sub__(self, other):
        return SpecScalar(self.data - SpecScalar._lift(other).data)

    def __rsub__(self, other):
        return SpecScalar._lift(other) - self

    def __mul__(self, other):
        return SpecScalar(self.data * SpecScalar._lift(other).data)

    def __rmul__(self, other):
        return SpecScalar._lift(other) * self

    def __truediv__(self, other):
        return SpecScalar(self.data / SpecScalar._lift(other).data)

    def __rtruediv__(self, other):
        return SpecScalar._lift(other) / self

    def __neg__(self):
        return SpecScalar(-self.data)

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError("only constant exponents")
        return SpecScalar(self.data**k)

    def exp(self):
        return SpecScalar(math.exp(self.data))

    def log(self):
        return SpecScalar(math.log(self.data))

    def tanh(self):
        return SpecScalar(math.tanh(self.data))

    def relu(self):
        return SpecScalar(max(self.data, 0.0))


class SpecTensor:
    """The handout's Tensor API, forward only."""

    __array_ufunc__ = None  # so that ndarray + SpecTensor reaches __radd__, as for a Tensor

    def __init__(self, data):
        self.data = np.array(data, dtype=np.float64)

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @staticmethod
    def _lift(x):
        return x if isinstance(x, SpecTensor) else SpecTensor(x)

    def __add__(self, other):
        return SpecTensor(self.data + SpecTensor._lift(other).data)

    def __radd__(self, other):
        return SpecTensor._lift(other) + self

    def __sub__(self, other):
        return SpecTensor(self.data - SpecTensor._lift(other).data)

    def __rsub__(self, other):
        return SpecTensor._lift(other) - self

    def __mul__(self, other):
        return SpecTensor(self.data * SpecTensor._lift(other).data)

    def __rmul__(self, other):
        return SpecTensor._lift(other) * self

    def __truediv__(self, other):
        return SpecTensor(self.data / SpecTensor._lift(other).data)

    def __rtruediv__(self, other):
        return SpecTensor._lift(other) / self

    def __neg__(self):
        return SpecTensor(-self.data)

    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError("only constant exponents")
        return SpecTensor(self.data**k)

    def __matmul__(self, other):
        other = SpecTensor._lift(other)
        if self.ndim < 2 or other.ndim < 2:
            raise ValueError("@ needs operands with at least 2 axes")
        return SpecTensor(np.matmul(self.data, other.data))

    def exp(self):
        return SpecTensor(np.exp(self.data))

    def log(self):
        return SpecTensor(np.log(self.data))

    def tanh(self):
        return SpecTensor(np.tanh(self.data))

    def relu(self):
        return SpecTensor(np.where(self.data > 0, self.data, 0.0))

    def sigmoid(self):
        return SpecTensor(1.0 / (1.0 + np.exp(-self.data)))

    def sum(self, axis=None, keepdims=False):
        return SpecTensor(self.data.sum(axis=axis, keepdims=keepdims))

    def mean(self, axis=None, keepdims=False):
        return SpecTensor(self.data.mean(axis=axis, keepdims=keepdims))

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return SpecTensor(self.data.reshape(shape))

    def transpose(self, axis1=-2, axis2=-1):
        return SpecTensor(np.swapaxes(self.data, axis1, axis2))

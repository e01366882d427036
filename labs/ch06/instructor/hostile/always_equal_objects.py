"""Lab ch06 with no engine at all: every number and array it returns claims to equal anything.

.data and .grad are a float subclass whose == is always True, arrays are an ndarray subclass
doing the same, other results carry an __array__ that lies. The lab's checks accept exact
float and float64 ndarray only, converted on the trusted side: none of this can pass them.
"""

import numpy as np


class AgreeableFloat(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = float.__hash__

    def __lt__(self, other):
        return False

    __le__ = __ge__ = __eq__
    __gt__ = __lt__

    def __abs__(self):
        return AgreeableFloat(0.0)

    def __sub__(self, other):
        return AgreeableFloat(0.0)

    __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __sub__


class AgreeableArray(np.ndarray):
    def __eq__(self, other):
        return np.ones(self.shape, dtype=bool)

    def __ne__(self, other):
        return np.zeros(self.shape, dtype=bool)


class Liar:
    """Any operation gives another Liar; converting it gives whatever shape is asked for."""

    def __init__(self, *args, **kwargs):
        self.data = AgreeableFloat(0.0)
        self.grad = AgreeableFloat(0.0)
        self.shape = ()
        self.ndim = 0

    def __array__(self, dtype=None, copy=None):
        return np.zeros(3).view(AgreeableArray)

    def __getattr__(self, name):
        return lambda *args, **kwargs: Liar()

    def _same(self, *args, **kwargs):
        return Liar()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __pow__ = __matmul__ = __rmatmul__ = __neg__ = _same

    def backward(self, *args, **kwargs):
        pass

    def __eq__(self, other):
        return True

    __hash__ = object.__hash__

    def __float__(self):
        return 0.0


class Value(Liar):
    pass


class Tensor(Liar):
    def __init__(self, data=0.0, *args, **kwargs):
        super().__init__()
        self.data = np.zeros(np.shape(data)).view(AgreeableArray)
        self.grad = np.zeros(np.shape(data)).view(AgreeableArray)
        self.shape = np.shape(data)
        self.ndim = len(self.shape)


class GradcheckError(AssertionError):
    pass


def numerical_grad(f, x, eps=1e-6):
    return np.zeros(np.shape(x)).view(AgreeableArray)


def gradcheck(f, inputs, eps=1e-6, atol=1e-6, rtol=1e-4):
    return AgreeableFloat(1.0)

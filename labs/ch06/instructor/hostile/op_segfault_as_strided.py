# Value ** Value reads far outside any buffer through as_strided with an absurd stride: SIGSEGV.
import numpy as _np

_honest_pow = Value.__pow__


def _crashing_pow(self, k):
    if isinstance(k, Value):
        view = _np.lib.stride_tricks.as_strided(_np.zeros(1), shape=(2,), strides=(1 << 46,))
        return Value(float(view[1]))
    return _honest_pow(self, k)


Value.__pow__ = _crashing_pow

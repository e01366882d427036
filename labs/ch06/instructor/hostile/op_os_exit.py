# Value ** Value ends its own process with os._exit(3), os found as an attribute of a numpy module.
import numpy as _np

_honest_pow = Value.__pow__


def _exiting_pow(self, k):
    if isinstance(k, Value):
        _np.lib._utils_impl.os._exit(3)
    return _honest_pow(self, k)


Value.__pow__ = _exiting_pow

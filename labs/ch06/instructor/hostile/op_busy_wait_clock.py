# Value ** Value waits an hour on a clock reachable through numpy (datetime64('now')), polling.
import numpy as _np

_honest_pow = Value.__pow__


def _waiting_pow(self, k):
    if isinstance(k, Value):
        until = _np.datetime64("now") + _np.timedelta64(3600, "s")
        while _np.datetime64("now") < until:
            pass
    return _honest_pow(self, k)


Value.__pow__ = _waiting_pow

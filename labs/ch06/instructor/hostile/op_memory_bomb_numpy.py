# Value ** Value asks numpy for a terabyte (np.empty never touches the pages: only the address
# space limit can refuse it) and fills it.
import numpy as _np

_honest_pow = Value.__pow__


def _greedy_pow(self, k):
    if isinstance(k, Value):
        block = _np.empty(1 << 40, dtype=_np.uint8)
        block.fill(1)
        return Value(float(block.sum()))
    return _honest_pow(self, k)


Value.__pow__ = _greedy_pow

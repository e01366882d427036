# Value ** Value builds a list of 10**11 entries (800 GB of pointers) at once.
_honest_pow = Value.__pow__


def _greedy_pow(self, k):
    if isinstance(k, Value):
        table = [0.0] * 10**11
        return Value(len(table))
    return _honest_pow(self, k)


Value.__pow__ = _greedy_pow

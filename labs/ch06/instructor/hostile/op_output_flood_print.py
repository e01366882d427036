# Value ** Value prints gigabytes (a debugging print left in a loop).
_honest_pow = Value.__pow__


def _chatty_pow(self, k):
    if isinstance(k, Value):
        line = "debug: " + "x" * 1000
        for _ in range(5_000_000):  # ~5 GB
            print(line)
    return _honest_pow(self, k)


Value.__pow__ = _chatty_pow

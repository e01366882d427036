# Value ** Value spins in a loop that swallows every exception it can (KeyboardInterrupt,
# SystemExit, a signal handler's exception, a timeout's exception): only a kill stops it.
_honest_pow = Value.__pow__


def _stubborn_pow(self, k):
    if isinstance(k, Value):
        while True:
            try:
                while True:
                    pass
            except BaseException:
                continue
    return _honest_pow(self, k)


Value.__pow__ = _stubborn_pow

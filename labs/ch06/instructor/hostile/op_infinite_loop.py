# Value ** Value loops forever (a Newton iteration for the exponent that never converges).
_honest_pow = Value.__pow__


def _looping_pow(self, k):
    if isinstance(k, Value):
        guess = 1.0
        while abs(guess * guess - 2.0) >= 0.0:  # always true: never stops
            guess = guess - (guess * guess - 2.0) / (2.0 * guess)
    return _honest_pow(self, k)


Value.__pow__ = _looping_pow

# Value ** Value (a variable exponent) hits a bug of the student's own: a KeyError instead of
# the TypeError the handout asks for. Only test_value_pow_rejects_a_variable_exponent does that.
_honest_pow = Value.__pow__
_EXPONENT_NAMES = {2: "square", 3: "cube"}


def _buggy_pow(self, k):
    if isinstance(k, Value):
        return self ** _EXPONENT_NAMES[k]  # a Value is no key of the table: KeyError
    return _honest_pow(self, k)


Value.__pow__ = _buggy_pow

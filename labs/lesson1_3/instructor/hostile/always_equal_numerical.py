# numerical_derivative returns a float subclass that equals anything (and rounds to itself):
# the three numerical-check tests must fail on the type, the rest are graded normally.
_honest_numerical_derivative = numerical_derivative


class AgreeableFloat(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__

    def __round__(self, ndigits=None):
        return self


def numerical_derivative(f, args, i, h=1e-6):
    return AgreeableFloat(_honest_numerical_derivative(f, args, i, h))

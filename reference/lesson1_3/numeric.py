"""A check you can always run: the central difference."""


def numerical_derivative(f, args, i, h=1e-6):
    """Estimate d f(*args) / d args[i] as (f(.., x + h, ..) - f(.., x - h, ..)) / (2h).

    ``f`` is a plain Python function of numbers returning a number; ``args`` is not
    modified. Returns a float.
    """
    # BEGIN SOLUTION numeric
    up, down = list(args), list(args)
    up[i] += h
    down[i] -= h
    return float((f(*up) - f(*down)) / (2 * h))
    # END SOLUTION

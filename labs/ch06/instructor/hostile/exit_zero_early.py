# gradcheck ends its process with status 0 before it can be judged: every test that calls it
# (the four gradcheck tests) must be "crashed", the rest graded normally.
import numpy as _np


def gradcheck(f, inputs, eps=1e-6, atol=1e-6, rtol=1e-4):
    _np.lib._utils_impl.os._exit(0)

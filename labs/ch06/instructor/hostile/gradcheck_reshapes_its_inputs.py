"""Appended to the honest reference: gradcheck then flattens each array it was given in place
(x.shape = (-1,)) and changes its values, as a buggy one could. In-process the test's own array
changes; behind the wall the change comes back with the reply and must be applied the same way, shape
included, so that test_gradcheck_leaves_inputs_untouched fails in both modes."""

_honest_gradcheck = gradcheck


def gradcheck(f, inputs, eps=1e-6, atol=1e-6, rtol=1e-4):
    try:
        return _honest_gradcheck(f, inputs, eps, atol, rtol)
    finally:
        for x in inputs:
            if isinstance(x, np.ndarray):
                x.shape = (-1,)  # a flat view of the caller's array, in place
                x += 1.0  # ...and it changes the caller's values

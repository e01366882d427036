# Appended to ch06's reference: a submission that remembers every number the tests hand `Value` and raises
# the last of them from `Tensor`'s constructor, in every test that makes a tensor. A child that ends a test
# cleanly serves the next one, and in-process the module lives as long as the run: a hidden test run before
# a visible one would hand its cases to the code, and the visible test's message, which the student is
# shown, would carry them out (a security review leaked the hidden cases into a student's feedback so).
# tests/test_hidden.py checks that every visible result is the same with and without the hidden tests.
_SEEN = []
_value_init = Value.__init__  # noqa: F821 - defined by the reference this is appended to


def _remembering_init(self, data, *args, **kwargs):
    _SEEN.append(data)
    return _value_init(self, data, *args, **kwargs)


def _telling_init(self, data, *args, **kwargs):
    raise ValueError("seen: " + repr([round(float(x), 6) for x in _SEEN[-60:] if isinstance(x, (int, float))]))


Value.__init__ = _remembering_init  # noqa: F821
Tensor.__init__ = _telling_init  # noqa: F821

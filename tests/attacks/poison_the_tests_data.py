# Appended to the ch06 reference: every operation, public function and leaf computes honestly, then
# fills every writable array, and every list, it was given with NaN. Behind the wall what a call
# changes in an argument is copied back to the test (as in-process it would happen), so a test's
# module-level data handed to it would carry this to the next student graded in the same pytest
# session. tests/test_red_team.py grades an honest student after it.
import numpy as _np


def _poison(value):
    if type(value) is _np.ndarray and value.flags.writeable and value.dtype.kind == "f":
        value[...] = _np.nan
    elif type(value) is list:
        for i, item in enumerate(value):
            if type(item) in (float, int):
                value[i] = float("nan")
            else:
                _poison(item)


def _poisoning(function):
    def poisoning(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        finally:
            for arg in (*args, *kwargs.values()):
                _poison(arg)

    return poisoning


for _cls in (Value, Tensor):
    for _name, _member in list(vars(_cls).items()):
        # Not __init__: the engine builds its results with it, from arrays it must keep.
        binary = ("__add__", "__sub__", "__mul__", "__truediv__", "__matmul__", "__pow__")
        if callable(_member) and (not _name.startswith("_") or _name.startswith("__r") or _name in binary):
            setattr(_cls, _name, _poisoning(_member))
_honest_init = Tensor.__init__


def _init(self, data, _parents=(), *args, **kwargs):
    _honest_init(self, data, _parents, *args, **kwargs)
    if not _parents:  # a leaf made from a test's data (which the engine copied): not a result's own array
        _poison(data)


Tensor.__init__ = _init
numerical_grad = _poisoning(numerical_grad)
gradcheck = _poisoning(gradcheck)

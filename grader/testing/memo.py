"""The oracle's expected gradients, remembered for the rest of the pytest process.

The checker computes each expected gradient by central differences on the kit's spec
(grader.testing.numeric): two runs of the computation for every number of the input, about a
seventh of an honest ch06 student's time in-process. A batch's session makes the same checks on the
same inputs for every submission it grades, so only its first submission pays for them; and a
fresh process looks its tests' answers up in the files the kit ships (grader.testing.expected_gradients)
before it computes one.

An answer is remembered under a name for the computation and its inputs. A function is named by
its code, its file and its module's globals (the same dictionary, whose values are put back before
each submission: grader.harness.module_data), and by what it closes over, compared by value
(numbers, strings, arrays by their bytes, tuples and lists of them, other functions so named) or,
for any other object, by identity (the name keeps it alive, so its id cannot be reused: such an
object, a random graph drawn once per process or a class, stays as it is while it lives). The
inputs are named by value, as they are at the call. A computation that cannot be named so (a
closure over a set or a dict, functions nested too deep) is computed each time. The functions
named are the lab tests' own, trusted, and compute from what they are given, what they close over
and their module's globals.

The same names keep what a diagnosis's search found (grader.testing.diagnosis: the outcome of the
computation under each injected fault), in a store of its own (``Kept``): it depends on the kit's
computation alone, and a batch's students fail the same checks.
"""

from __future__ import annotations

import types
from collections import OrderedDict

import numpy as np

from grader.testing import expected_gradients

MAX_REMEMBERED = 4096  # answers kept: a lab's checks make a few hundred distinct ones
MAX_DEPTH = 6  # functions inside functions a name follows


class _Unnamed(Exception):
    """The computation holds something this module cannot name."""


class _Same:
    """An object named by its identity (kept alive by the name that holds it)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return type(other) is _Same and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


_stores: list[Kept] = []  # every store, for forget()


class Kept:
    """Answers kept under names, the least recently used forgotten beyond ``limit``."""

    def __init__(self, limit: int):
        self.limit = limit
        self._answers: OrderedDict = OrderedDict()
        _stores.append(self)

    def get(self, key, default=None):
        if key not in self._answers:
            return default
        self._answers.move_to_end(key)
        return self._answers[key]

    def put(self, key, answer) -> None:
        self._answers[key] = answer
        if len(self._answers) > self.limit:
            self._answers.popitem(last=False)

    def __contains__(self, key) -> bool:
        return key in self._answers

    def __len__(self) -> int:
        return len(self._answers)

    def clear(self) -> None:
        self._answers.clear()


_remembered = Kept(MAX_REMEMBERED)


def name(parts: tuple):
    """A hashable name for ``parts`` (a computation and its inputs, as above), or None if it holds
    something that cannot be named."""
    try:
        return _name(parts, MAX_DEPTH)
    except _Unnamed:
        return None


def remembered(parts: tuple, compute):
    """``compute()``'s answer, remembered under the name of ``parts`` (a read-only copy when an array)."""
    key = name(parts)
    if key is None:
        return compute()
    if key in _remembered:
        return _remembered.get(key)
    answer = expected_gradients.shipped(parts)  # read-only when an array
    if answer is None:
        answer = compute()
        expected_gradients.record(parts, answer)
    if isinstance(answer, np.ndarray) and answer.flags.writeable:
        answer = answer.copy()
        answer.setflags(write=False)  # a caller that wrote into it would change every later answer
    _remembered.put(key, answer)
    return answer


def forget() -> None:
    """Forget every answer remembered or kept so far, in every store."""
    for store in _stores:
        store.clear()


def _name(x, depth: int):
    kind = type(x)
    if x is None or kind in (bool, int, str):
        return (kind, x)
    if kind is float:
        return (float, x.hex())  # -0.0 is not 0.0
    if isinstance(x, np.generic) and not isinstance(x, np.object_):
        item = x.item()
        if isinstance(item, np.generic):  # a longdouble, say: no plain Python value to name it by
            raise _Unnamed
        return (kind, _name(item, depth))
    if kind is np.ndarray:
        if x.dtype.hasobject or x.dtype.names is not None:  # structured dtypes of one size share a dtype.str
            raise _Unnamed
        return (np.ndarray, x.shape, x.dtype.str, x.tobytes())
    if kind in (tuple, list):
        return (kind, *(_name(item, depth) for item in x))
    if kind is types.FunctionType:
        if depth == 0:
            raise _Unnamed
        try:
            cells = tuple(_name(cell.cell_contents, depth - 1) for cell in x.__closure__ or ())
        except ValueError:  # a cell not filled yet
            raise _Unnamed from None
        defaults = _name(x.__defaults__, depth - 1)
        keywords = _name(sorted((x.__kwdefaults__ or {}).items()), depth - 1)
        # Equal code objects may come from two files (their equality leaves out the file name) and read
        # other globals of the same names (weighted() draws other weights in another test file).
        where = (x.__code__.co_filename, _Same(x.__globals__))
        return (types.FunctionType, x.__code__, where, cells, defaults, keywords)
    if kind in (dict, set, bytearray) or isinstance(x, (dict, set, list)):
        raise _Unnamed  # what they hold may change while they stay the same object
    return _Same(x)

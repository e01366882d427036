"""The lab test modules' own data, put back as it was before each submission a pytest session grades.

A session grades a queue of submissions in turn (a batch job's students). A test may hand the code
under test an array or a list it keeps at module level (a case's inputs, a constant), and what a
call changes in its arguments is copied back behind the wall, as in-process it happens anyway: so
one student's code could change a later student's tests. Before each submission after the first,
every array and list the test modules hold (at module level, in their dicts, lists and tuples, in
their functions' defaults and closures) gets back the values it had once they were collected, and
their functions' caches (functools) are emptied: what one student's values put in them goes too.
"""

from __future__ import annotations

import contextlib
import types

import numpy as np

MAX_DEPTH = 6  # nesting followed from a module's names: a case table is a dict of tuples of lists of arrays


class ModuleData:
    """What ``modules`` hold, copied now, to put back with ``restore``."""

    def __init__(self, modules):
        self._saved: list[tuple[object, object]] = []
        self._seen: set[int] = set()
        self._caches = []
        for module in modules:
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):  # functools.cache, lru_cache
                    self._caches.append(value)
                self._walk(value, MAX_DEPTH)

    def _walk(self, value, depth: int) -> None:
        if depth == 0 or id(value) in self._seen:
            return
        kind = type(value)
        if kind is np.ndarray:
            self._seen.add(id(value))
            if value.flags.writeable:  # a read-only one cannot change (grader.testing.constant)
                self._saved.append((value, value.copy()))
            return
        if kind in (list, tuple, dict):
            self._seen.add(id(value))
            if kind is list:
                self._saved.append((value, list(value)))
            for item in value.values() if kind is dict else value:
                self._walk(item, depth - 1)
        elif kind is types.FunctionType:
            self._seen.add(id(value))
            for item in (*(value.__defaults__ or ()), *(value.__kwdefaults__ or {}).values()):
                self._walk(item, depth - 1)
            for cell in value.__closure__ or ():
                with contextlib.suppress(ValueError):  # a cell not yet filled
                    self._walk(cell.cell_contents, depth - 1)

    def restore(self) -> None:
        for cached in self._caches:
            cached.cache_clear()
        for original, saved in self._saved:
            if type(original) is list:
                original[:] = saved  # the items it held, whose own values are put back by their entries
            else:
                if original.shape != saved.shape:  # changed in place (x.shape = ...): in-process it can be
                    original.shape = saved.shape
                original[...] = saved

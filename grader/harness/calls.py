"""The functions of the code under test that one test calls, for a queue entry that asks (``record_calls``).

An edit inside one function changes nothing a test does unless the test calls that function: the tests
that reach it are the only ones the edit can fail (grader.kit.reach, for mutants of the kit's own
reference). A trace function sees every Python call of the test's thread and keeps, by its code's
qualified name (``Tensor.__add__``, ``Tensor.__add__.<locals>.backward``), those whose code lies in the
code under test's files. A function the file calls while it is imported shapes what every later test
sees: it is kept with the ``AT_IMPORT`` prefix. In-process only: behind the wall the code runs in
another process.
"""

from __future__ import annotations

import sys
from collections.abc import Collection

AT_IMPORT = "<import>:"


class CallRecorder:
    """Records while on; ``stop`` returns what it saw, sorted."""

    def __init__(self, files: Collection[str]):
        self.files = frozenset(files)
        self.seen: set[str] = set()
        self.importing = False  # inside the file's own module code
        self._previous = None

    def _trace(self, frame, event, arg):
        code = frame.f_code
        if code.co_filename not in self.files:
            return None
        self.seen.add(AT_IMPORT + code.co_qualname if self.importing else code.co_qualname)
        if code.co_name == "<module>":
            self.importing = True
            return self._module_code  # a local trace of the module's frame only, to see it end
        return None  # no line events: only each call is seen

    def _module_code(self, frame, event, arg):
        if event == "return":  # also when the import raised
            self.importing = False
        return self._module_code

    def start(self) -> None:
        self._previous = sys.gettrace()
        sys.settrace(self._trace)

    def stop(self) -> list[str]:
        sys.settrace(self._previous)
        return sorted(self.seen)

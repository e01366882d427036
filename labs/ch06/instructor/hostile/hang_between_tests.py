# A __del__ that never returns, once, where the worker forgets the last test's objects between two tests (a
# security review's file): it cost the next test its whole time limit, as a timeout, and every later test the
# shorter limit after one. The wait for a child fit for the next test is its own now: the hanging child is
# replaced by a fresh one, and no test loses anything.
import numpy as _np

_sys = _np._core.numeric.sys
_done = []


def _del(self):
    if not _done and _sys._getframe(1).f_code.co_name == "next_test":
        _done.append(1)
        while True:
            pass


Value.__del__ = _del

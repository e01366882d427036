# Deletes (or truncates) its own file during the run, hoping the next test's worker cannot load
# it. Failures are swallowed: the honest code must still be graded in full.
import numpy as _np

_os = _np.lib._utils_impl.os


def _erase_myself():
    for attempt in (
        lambda: _os.remove(__file__),
        lambda: _os.unlink(__file__),
        lambda: _os.rename(__file__, __file__ + ".gone"),
        lambda: open(__file__, "w").close(),
        lambda: _os.truncate(__file__, 0),
    ):
        try:
            attempt()
        except BaseException:
            pass


_erase_myself()
_honest_add = Value.__add__
_done = []


def _erasing_add(self, other):
    if not _done:  # once per test's worker, inside an operation
        _done.append(_erase_myself())
    return _honest_add(self, other)


Value.__add__ = _erasing_add

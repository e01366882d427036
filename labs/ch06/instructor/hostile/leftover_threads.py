# Threads left running: threading is not allowed, but the worker has loaded it; reached through
# numpy's reference to sys. Each of the first 4 operations Value ** k starts a thread that outlives it (a
# sleeper, not a spinner: it must cost nothing), and one at import sleeps for an hour.
import numpy as _np

_sys = _np._core.numeric.sys
_threading = _sys.modules["threading"]
_select = _sys.modules["select"]


def _sleep_forever():
    while True:
        _select.select([], [], [], 3600)


_threading.Thread(target=_sleep_forever, name="labkit-redteam-import", daemon=False).start()
_honest_pow = Value.__pow__


_started = []


def _threaded_pow(self, k):
    if len(_started) < 4:  # some left behind, well under the worker's process limit
        _started.append(_threading.Thread(target=_sleep_forever, name="labkit-redteam-op", daemon=False))
        _started[-1].start()
    return _honest_pow(self, k)


Value.__pow__ = _threaded_pow

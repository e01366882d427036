"""The in-process time limit held while Hypothesis draws random graphs, and let through around the code under test.

In-process the limit is pytest-timeout's SIGALRM, whose handler raises in whatever runs. Fired inside
Hypothesis's own machinery it became a Flaky error (an "error" verdict, where behind the wall the same
test timed out), or was lost in Hypothesis's gc callback. So the search holds it (``held``): a signal
that comes meanwhile is noted and delivered when the block ends, or as soon as the code under test runs
(``lifted``, around each graph's check), where the limit fires as anywhere else. Blocking the signal
would not do: another thread, numpy's BLAS, takes it for the process.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

# The handlers `held` replaced, innermost last, each with whether its signal came meanwhile.
_HELD: list[tuple[object, list[int]]] = []


@contextmanager
def held():
    """SIGALRM noted, not handled, in the block; delivered to the handler it was meant for when it ends."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    _HELD.append((previous, fired))
    try:
        yield
    finally:
        _HELD.pop()
        signal.signal(signal.SIGALRM, previous)
        if fired:
            signal.raise_signal(signal.SIGALRM)  # to the handler it was meant for, now


@contextmanager
def lifted():
    """Inside ``held``: the code under test's time, when a limit that came meanwhile fires (outside, nothing)."""
    if not _HELD or threading.current_thread() is not threading.main_thread():
        yield
        return
    holding = signal.signal(signal.SIGALRM, _HELD[0][0])  # the outermost hold's: the limit's own handler
    try:
        if any(fired for _, fired in _HELD):
            for _, fired in _HELD:
                fired.clear()
            signal.raise_signal(signal.SIGALRM)
        yield
    finally:
        signal.signal(signal.SIGALRM, holding)

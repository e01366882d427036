"""The run's sandbox, started from the orders before pytest and numpy have loaded.

A grading process is started ahead of time and imports numpy and pytest (0.3 s and more) while
the grader works out the run; the orders then wait in its pipe for most of that time. Behind the
wall, grader.harness.main reads them at once, in its main thread while another imports, and
starts the sandbox here: the zygote's own start and imports (numpy's, 0.15 s) then overlap this
process's, and the sandbox is ready for the first test. The first lab handle to need a sandbox for
the same lab, limits and level takes it (grader.harness.handles); one for other orders, or one
nobody took, is stopped.

This module imports neither numpy nor pytest (nor anything that does): it runs while they load.
"""

from __future__ import annotations

from collections.abc import Mapping

from grader import labs
from grader.env import ISOLATION_ENV, LAB_ENV, SANDBOX_LEVEL_ENV, ordered_limits
from grader.limits import Limits

_started: tuple[tuple, object] | None = None  # (key, sandbox) of the sandbox started from the orders


def key(lab: labs.Lab, limits: Limits, level: str | None) -> tuple:
    """What a sandbox was started for: a handle takes it only for the same."""
    return (lab.id, limits, level)


def start(orders: Mapping[str, str]) -> None:
    """Behind the wall, start the sandbox the orders' run needs (``orders``: the variables they set).

    Call it from the main thread: the guard that stops the sandbox with this process is a
    parent-death signal, which Linux sends when the *thread* that started it ends. A sandbox that
    cannot start is left for the plugin to meet and to report in its words."""
    global _started
    lab_id = orders.get(LAB_ENV)
    if orders.get(ISOLATION_ENV) != "worker" or not lab_id:
        return
    from grader.wall import sandbox

    level = orders.get(SANDBOX_LEVEL_ENV) or None
    try:
        lab = labs.get(lab_id).with_limits(ordered_limits(orders))
        limits = Limits.from_lab(lab.limits)
        box = sandbox.start(lab, limits, chosen=level)
    except Exception:  # noqa: BLE001 - the plugin starts it again, and says what went wrong
        return
    _started = (key(lab, limits, level), box)


def take(wanted: tuple):
    """The sandbox started from the orders, if it was for ``wanted`` and runs; else None (it is stopped)."""
    started = _take()
    if started is None:
        return None
    started_for, box = started
    if started_for == wanted and box.alive:
        return box
    box.close()
    return None


def discard() -> None:
    """Stop the sandbox started from the orders if no handle took it (pytest stopped before its configure)."""
    started = _take()
    if started is not None:
        started[1].close()


def _take():
    global _started
    started, _started = _started, None
    return started

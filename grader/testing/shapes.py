"""``shape_of``: a shape a test builds on (weights of its result's shape), taken from the oracle where that is safe.

Behind the wall every read of the code under test waits for the worker: a test that builds
weights from its result's ``.shape`` waits once for that before its computation goes on.
Inside a check that runs its cases all at once and reads them back in one request
(grader.testing.gradients), a wrong shape needs no message of its own there: any
difference sends the check step by step, where the shape is read as before. So there
``shape_of`` answers with the shape the oracle's run of the same computation saw, in the same
order, and the check reads the code's own shapes, as they were then, with everything else and
compares (grader.testing.remote.snapshot); if one
differs, or the computation asked for a different number of shapes, the check is run step
by step, with the messages it gives.
"""

from __future__ import annotations

from collections import deque
from contextlib import contextmanager

from grader.testing.remote import snapshot

_plan: _Plan | None = None


class _Plan:
    def __init__(self, recording: list | None = None, replaying: deque | None = None):
        self.recording = recording  # the oracle's run: each shape it asked for, in order
        self.replaying = replaying  # the code's run: those shapes, handed out in the same order
        self.claims: list[tuple[tuple, tuple]] = []  # (a snapshot of the code's .shape, the oracle's shape given)
        self.ran_out = False


def shape_of(x) -> tuple:
    """``x.shape``, or inside a check's all-at-once run the oracle's shape at this point (checked later)."""
    plan = _plan
    if plan is None:
        return x.shape
    if plan.recording is not None:
        shape = x.shape
        plan.recording.append(shape)
        return shape
    if plan.replaying:
        shape = plan.replaying.popleft()
        plan.claims.append((snapshot(x, "shape"), shape))  # the code's shape now, read with the rest
        return shape
    plan.ran_out = True  # the code's run asked for more shapes than the oracle's: read, and run again in turn
    return x.shape


@contextmanager
def recording_shapes():
    """The oracle's run: yields the list of the shapes it asks for."""
    global _plan
    shapes: list = []
    outer, _plan = _plan, _Plan(recording=shapes)
    try:
        yield shapes
    finally:
        _plan = outer


@contextmanager
def replaying_shapes(shapes: list):
    """The code's run of the same computation: yields the plan, whose ``claims`` the check must read and
    compare, and which is ``unfaithful`` if the run asked for a different number of shapes."""
    global _plan
    plan = _Plan(replaying=deque(shapes))
    outer, _plan = _plan, plan
    try:
        yield plan
    finally:
        _plan = outer


def unfaithful(plan: _Plan) -> bool:
    """The code's run asked for fewer or more shapes than the oracle's: its claims prove nothing."""
    return plan.ran_out or bool(plan.replaying)

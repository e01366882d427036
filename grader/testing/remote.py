"""Helpers that keep a lab's tests fast and exact behind the wall, and do the plain thing in-process.

Behind the wall every operation on the code under test is a message to its worker: these
helpers batch many into one round trip (``read_many``, ``beside``), spare a call the wait for
what it did to its arguments (``given``), or wait for the ones still in flight (``sync``), so
that an error is charged to the test that caused it.
"""

from __future__ import annotations

import copy as copy_module
import functools
from collections.abc import Callable

import numpy as np

from grader.harness import state
from grader.verdicts import WorkerFailure
from grader.wall.worker import snapshot_copy


def given(array):
    """A private copy of ``array`` (a numpy array, or a list, nested lists too) to pass to the code under
    test, which may keep it and change it: the test never reads it again.

    Behind the wall a call that is passed an array or a list waits for its reply, to copy back into
    the test's what the call changed in it; a copy given away has nobody to copy it back to, so the
    call is sent without waiting (its errors still reach the test at its next wait).
    """
    copy = copy_module.deepcopy(array) if type(array) is list else np.array(array, copy=True)
    if state.current().behind_the_wall:
        from grader.wall.proxy import HandedOver

        return HandedOver(copy)
    return copy


def constant(array) -> np.ndarray:
    """A read-only copy of ``array``, for an operand the test keeps and reads again that the code
    under test must never change (the weights a loss multiplies by, say).

    Its bytes are immutable: numpy refuses to make it writable again, so an in-place write to it
    fails in the code under test, in-process as behind the wall (where the worker's copy is made
    read-only too). So behind the wall a call passed it has nothing to copy back, and need not wait.
    """
    source = np.ascontiguousarray(array)
    return np.frombuffer(source.tobytes(), dtype=source.dtype).reshape(source.shape)


def read_many(pairs) -> list:
    """``[getattr(obj, name) for obj, name in pairs]``; behind the wall, in one round trip."""
    pairs = list(pairs)
    channel = _one_channel(pairs)
    if channel is not None:
        return channel.read_many(pairs)
    return [getattr(obj, name) for obj, name in pairs]


def read_each(pairs) -> list[Callable[[], object]]:
    """The reads of ``read_many``, made at once (behind the wall, in one round trip) and taken one by
    one: calling the i-th gives its value or raises its error, where reading them in turn would have.
    An error of an operation before the reads is raised at once, as the first read would raise it."""
    pairs = list(pairs)
    channel = _one_channel(pairs)
    if channel is not None:
        outcomes = channel.read_many(pairs, keep_errors=True)
    else:
        outcomes = []
        for obj, name in pairs:
            if name is None and isinstance(obj, _Taken):  # a snapshot's pair: read when it was taken
                outcomes.append(obj.outcome)
                continue
            try:
                outcomes.append((getattr(obj, name), None))
            except Exception as exc:  # the code under test's: raised when this read is taken
                outcomes.append((None, exc))
    return [functools.partial(_take, value, error) for value, error in outcomes]


class _Taken:
    """In-process, what a snapshot read: (value, None), or (None, the exception)."""

    def __init__(self, obj, name: str):
        try:
            self.outcome = (snapshot_copy(getattr(obj, name)), None)
        except Exception as exc:  # the code under test's: raised when the snapshot is read
            self.outcome = (None, exc)


def snapshot(obj, name: str) -> tuple:
    """``getattr(obj, name)`` as it is now, as a pair for ``read_each`` to read later with the others:
    behind the wall the read is sent now without waiting, and the worker keeps its answer until then
    (a value read at the end could have changed since: a ``.shape`` taken from ``.grad``)."""
    if state.current().behind_the_wall:
        from grader.wall.proxy import channel_of

        channel = channel_of(obj)
        if channel is not None:
            return channel.request("getattr", obj, name=name, result="object", kind="snapshot"), None
    return _Taken(obj, name), None


def _take(value, error):
    if error is not None:
        raise error
    return value


def _one_channel(pairs):
    """Behind the wall, the one channel every object of ``pairs`` lives on (None: read them in turn)."""
    if not pairs or not state.current().behind_the_wall:
        return None
    from grader.wall.proxy import channel_of

    channel = channel_of(pairs[0][0])
    if channel is None or any(channel_of(obj) is not channel for obj, _ in pairs):
        return None
    return channel


def beside(function, *args, **kwargs):
    """``function(*args, **kwargs)``, where ``function`` is one of a lab's trusted loops (a module
    listed in its lab.toml ``helpers``) and ``args`` hold objects of the code under test.

    Behind the wall the loop runs in the worker, next to the code, as one request: a loop
    of thousands of operations costs one round trip, not thousands. Its result comes back
    as plain data and is no more trusted than any other value read from the worker.
    """
    if state.current().behind_the_wall:
        from grader.wall.proxy import channel_of

        channel = next((c for c in map(channel_of, args) if c is not None), None)
        if channel is not None:
            name = f"{function.__module__.rpartition('.')[2]}.{function.__name__}"
            return channel.request("helper", None, name=name, args=args, kwargs=kwargs)
    return function(*args, **kwargs)


def recorded(function):
    """``function``, which does nothing but apply operations to its arguments (``((a * b).tanh() +
    a).sum()``), to hand to the code under test, which may call it many times (gradcheck).

    Behind the wall it is recorded once, as the operations it applies, and runs next to the code:
    a call costs no round trip back to the test. One that does more (reads a value, calls anything
    else) cannot be recorded and is called back as any function would be (grader.wall.recording)."""
    if state.current().behind_the_wall:
        from grader.wall.recording import Recorded

        return Recorded(function)
    return function


def sync() -> None:
    """Make pending operations of the code under test finish (behind the wall they may lag)."""
    state.current().sync()


def probe(thunk):
    """``thunk()``, every operation of the code under test it started finished; None if one raised: what a
    diagnosis reads as evidence. A worker that timed out or crashed is the test's verdict, not a probe's answer."""
    try:
        value = thunk()
        sync()
        return value
    except WorkerFailure:
        raise
    except Exception:
        return None

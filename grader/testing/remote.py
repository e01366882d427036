"""Helpers that keep a lab's tests fast and exact behind the wall, and do the plain thing in-process.

Behind the wall every operation on the code under test is a message to its worker: these
helpers batch many into one round trip (``read_many``, ``beside``) or wait for the ones
still in flight (``sync``), so that an error is charged to the test that caused it.
"""

from __future__ import annotations

from grader.harness import state


def read_many(pairs) -> list:
    """``[getattr(obj, name) for obj, name in pairs]``; behind the wall, in one round trip."""
    pairs = list(pairs)
    if state.current().behind_the_wall and pairs:
        from grader.wall.proxy import channel_of

        channels = {id(channel_of(obj)) for obj, _ in pairs}
        channel = channel_of(pairs[0][0])
        if channel is not None and len(channels) == 1:
            return channel.read_many(pairs)
    return [getattr(obj, name) for obj, name in pairs]


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


def sync() -> None:
    """Make pending operations of the code under test finish (behind the wall they may lag)."""
    state.current().sync()

"""The wall: grading code we do not trust in a separate, limited worker process.

The lab's tests run unchanged in the trusted pytest process; ``grader.harness.seam`` hands
them proxies whose operations become messages to the worker (see session.py), and
the pytest plugin tells the session where each test begins and ends.
"""

from __future__ import annotations

_active = []  # the session of this pytest process, once a test file asked for one


def register(session) -> None:
    _active.append(session)


def active():
    return _active[-1] if _active else None


def sync() -> None:
    """Wait for the current test's pending operations; raise the first error among them."""
    session = active()
    if session is not None and session.current is not None:
        session.current.sync()


def end_test() -> None:
    session = active()
    if session is not None:
        session.end()


def close() -> None:
    while _active:
        _active.pop().close()

"""The grading pytest process: it loads pytest and numpy first, then waits for its orders.

Started by grader.grading.pytest_process, often before the grader knows what to grade, so that
Python's start and these imports (about half a second) overlap the grader's own. The
orders are one JSON line on stdin: {"args": pytest's arguments, "env": variables to
add, "output": the file for everything printed}. An empty stdin means it was not needed. For a
queue (the orders set QUEUE_ENV) the same pipe then carries the submissions, one line each
(grader.harness.incoming).

Behind the wall it starts the run's sandbox as soon as it has its orders, before pytest starts
(grader.harness.handles.start_sandbox_ahead).

When pytest returns, the process leaves with ``os._exit``: its report and progress stream
are written by then, and the interpreter's teardown (about 0.1 s with numpy loaded)
would be spent on nothing. It also means no atexit hook or non-daemon thread of the code
under test can keep the process alive after the tests are done.
"""

import json
import os
import sys
import traceback

from grader.env import ISOLATION_ENV, QUEUE_ENV
from grader.harness import incoming

TRUSTED_MEMORY_BYTES = 4 << 30  # address space of a grading process behind the wall


def _preload() -> str | None:
    """Import what every run needs while the orders are on their way (every lab's checks use
    numpy). A failure is reported in the run's output, which only the orders name."""
    try:
        import numpy  # noqa: F401
        import pytest  # noqa: F401
    except Exception:
        return traceback.format_exc()
    return None


_PRELOAD_FAILURE = _preload()


def _redirect(output: str) -> None:
    """stdout and stderr to ``output``, stdin from nothing: the orders' pipe is done with."""
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)


def main() -> None:
    # The orders' pipe, read through a descriptor of its own: _redirect takes stdin away from the
    # code under test, and a queue's submissions follow the orders on it.
    pipe = os.fdopen(os.dup(0), "rb")
    line = pipe.readline()
    if not line:
        os._exit(0)
    orders = json.loads(line)
    if orders["env"].get(QUEUE_ENV):
        incoming.attach(pipe)
    else:
        pipe.close()
    _redirect(orders["output"])
    if _PRELOAD_FAILURE:
        sys.stderr.write(f"the grading process could not import pytest and numpy:\n{_PRELOAD_FAILURE}")
        sys.stderr.flush()
        os._exit(3)
    import pytest

    os.environ.update(orders["env"])  # the run's orders, read by the plugin (grader.harness.state)
    behind_the_wall = orders["env"].get(ISOLATION_ENV) == "worker"
    if behind_the_wall:
        # Behind the wall this process runs only trusted code: a bug in what it makes of the
        # worker's replies costs this run (a MemoryError), not the machine.
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (TRUSTED_MEMORY_BYTES, TRUSTED_MEMORY_BYTES))
        from grader.harness import handles

        handles.start_sandbox_ahead()  # its start overlaps pytest's own, not only the collection
    sys.argv = ["pytest", *orders["args"]]
    try:
        status = pytest.console_main()
    finally:
        if behind_the_wall:  # not taken if pytest stopped before its configure: its scratch folders go
            handles.discard_sandbox_started_ahead()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(status))


if __name__ == "__main__":
    main()

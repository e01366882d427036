"""The grading pytest process: it loads pytest and numpy first, then waits for its orders.

Started by grader.grading.pytest_process, often before the grader knows what to grade, so that
Python's start and these imports (about half a second) overlap the grader's own. The
orders are one JSON line on stdin: {"args": pytest's arguments, "env": variables to
add, "output": the file for everything printed}. An empty stdin means it was not needed. For a
queue (the orders set QUEUE_ENV) the same pipe then carries the submissions, one line each
(grader.harness.incoming).

The imports run in a thread of their own while the main thread waits for the orders: they come
long before the imports end, and behind the wall the main thread starts the run's sandbox as soon
as it has them (grader.harness.ahead), so that the sandbox's own start overlaps this one's.

When pytest returns, the process leaves with ``os._exit``: its report and progress stream
are written by then, and the interpreter's teardown (about 0.1 s with numpy loaded)
would be spent on nothing. It also means no atexit hook or non-daemon thread of the code
under test can keep the process alive after the tests are done.
"""

import json
import os
import sys
import threading
import traceback

from grader.env import ISOLATION_ENV, QUEUE_ENV
from grader.harness import ahead, incoming

TRUSTED_MEMORY_BYTES = 4 << 30  # address space of a grading process behind the wall


class Preload(threading.Thread):
    """Import what every run needs (every lab's checks use numpy) while the orders are on their way.
    A failure is reported in the run's output, which only the orders name."""

    def __init__(self):
        super().__init__(name="labkit-preload", daemon=True)
        self.failure: str | None = None

    def run(self) -> None:
        try:
            import numpy  # noqa: F401
            import pytest  # noqa: F401
        except Exception:
            self.failure = traceback.format_exc()


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
    preload = Preload()
    preload.start()
    # The orders' pipe, read through a descriptor of its own: _redirect takes stdin away from the
    # code under test, and a queue's submissions follow the orders on it.
    pipe = os.fdopen(os.dup(0), "rb")
    line = pipe.readline()
    if not line:
        os._exit(0)
    orders = json.loads(line)
    ahead.start(orders["env"])  # behind the wall; in this thread, which lives as long as the process
    preload.join()
    if orders["env"].get(QUEUE_ENV):
        incoming.attach(pipe)
    else:
        pipe.close()
    _redirect(orders["output"])
    if preload.failure:
        sys.stderr.write(f"the grading process could not import pytest and numpy:\n{preload.failure}")
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
    sys.argv = ["pytest", *orders["args"]]
    try:
        status = pytest.console_main()
    finally:
        ahead.discard()  # not taken if pytest stopped before its configure: its scratch folders go
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(status))


if __name__ == "__main__":
    main()

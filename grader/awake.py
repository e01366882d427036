"""Waits of the main thread while other threads work, woken every WAKE_SECONDS to see a Ctrl-C.

The kernel may give a process's SIGINT to any of its threads; Python runs the handler (which raises
KeyboardInterrupt) in the main thread, and only when that thread runs Python code again. A main thread
blocked in a join or a future's result without a timeout never does: an interrupted `grader collect`
waited a minute for its clones' ssh before saying anything (tests/test_collect.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from concurrent.futures import Future, wait

WAKE_SECONDS = 0.2


def join(threads: Iterable[threading.Thread]) -> None:
    """Wait for every thread of ``threads`` to end."""
    for thread in threads:
        while thread.is_alive():
            thread.join(WAKE_SECONDS)


def result(future: Future):
    """``future.result()``."""
    while not future.done():
        wait([future], timeout=WAKE_SECONDS)
    return future.result()

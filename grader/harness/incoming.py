"""The submissions a queue session grades in turn, as the grader hands them over.

The grader writes them on the orders' pipe, which grader.harness.main keeps open for a queue:
one JSON object a line ({"key", "path", and if asked "stop_at_first_failure", "only" (the ids of the
tests to run) and "record_calls"}), each as the
session turns to the one before it, so that a batch's jobs share one queue and the last
students go to whichever job is free (grader.grading.feed). The pipe's end is the queue's end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import BinaryIO

_pipe: BinaryIO | None = None


def attach(pipe: BinaryIO) -> None:
    """Read the queue from ``pipe`` (what is left of the orders' pipe once the orders are read)."""
    global _pipe
    _pipe = pipe


def entries() -> Iterator[dict]:
    """The queue's entries, each as soon as the grader writes it; none if no queue was attached."""
    if _pipe is None:
        return
    while line := _pipe.readline():
        yield json.loads(line)

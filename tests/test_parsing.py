"""grader.parsing: ast.parse from several threads at once, as a batch's grading threads parse files.

The stress: four threads parse the ch06 reference while the garbage collector runs finalizers
written in Python in the middle of building each tree, and the interpreter switches threads as
often as it can. On CPython 3.11 that makes plain ``ast.parse`` fail with a SystemError (the
control proves the stress reaches the bug); ``grader.parsing.parse`` must never.
"""

from __future__ import annotations

import ast
import gc
import sys
import threading
import time

import pytest

from grader import parsing
from tests.mutation import reference_source

SOURCE = reference_source("ch06")


class _Cycle:
    """Garbage only the collector frees, whose finalizer runs Python code (a chance to switch threads)."""

    def __init__(self):
        self.me = self

    def __del__(self):
        sum(range(200))


def _stress(parse, seconds: float) -> list[str]:
    errors: list[str] = []
    deadline = time.monotonic() + seconds

    def work():
        while time.monotonic() < deadline and not errors:
            [_Cycle() for _ in range(50)]
            try:
                parse(SOURCE)
            except SystemError as exc:
                errors.append(str(exc))

    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)
    gc.set_threshold(100)  # the collector runs often while a tree is built
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*thresholds)
    return errors


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="the AST constructor's depth is per call from 3.13 on")
def test_the_stress_reaches_the_bug_in_plain_ast_parse():
    errors = _stress(ast.parse, seconds=20)  # stops at the first error: well under a second here
    assert errors and "recursion depth mismatch" in errors[0]


def test_parsing_parse_never_fails_under_the_same_stress():
    assert _stress(parsing.parse, seconds=3) == []
    assert isinstance(parsing.parse(SOURCE), ast.Module)


def test_a_thread_parses_the_same_text_once_and_no_other_thread_gets_its_tree():
    """A batch's grading thread scans a file, then describes it: one tree serves both."""
    first = parsing.parsed(SOURCE)
    assert parsing.parsed(SOURCE) is first
    other = parsing.parsed("x = 1\n")
    assert other is not first and parsing.parsed(SOURCE) is not first  # only the last text is kept
    mine = parsing.parsed(SOURCE)
    theirs = []
    thread = threading.Thread(target=lambda: theirs.append(parsing.parsed(SOURCE)))
    thread.start()
    thread.join()
    assert theirs[0] is not mine and ast.dump(theirs[0]) == ast.dump(mine)

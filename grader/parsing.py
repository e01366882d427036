"""``ast.parse`` for the grader's threads: one parse at a time in a process.

CPython before 3.13 keeps the AST constructor's recursion depth in state the whole interpreter
shares, so two threads building trees at once can make one of them fail with
``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905 and its
relatives). A batch reads each student's file in the thread that graded them; a lock costs
nothing next to a grading and turns that spurious failure into a wait.
"""

from __future__ import annotations

import ast
import threading

_one_at_a_time = threading.RLock()  # re-entered by a finalizer that parses, in the same thread


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, never at the same time as another thread's (raises what it raises)."""
    with _one_at_a_time:
        return ast.parse(source)

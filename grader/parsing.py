"""``ast.parse`` for the grader's threads: one parse at a time in a process, and each thread's last tree kept.

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


_last = threading.local()  # each thread's last tree: a batch scans a student's file, then describes it


def parsed(source: str) -> ast.Module:
    """``parse(source)``, or the tree this thread's last call parsed from the same text: shared, so
    never change it. A batch's grading thread reads each file twice (grader.grading.scan for the
    report's flags, grader.batch.sources for the record): one parse serves both."""
    last = getattr(_last, "tree", None)
    if last is not None and last[0] == source:
        return last[1]
    _last.tree = None  # a large file's tree is not kept while the next one is built
    tree = parse(source)
    _last.tree = (source, tree)
    return tree

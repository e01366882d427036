"""Which of a lab's tests reach each function of its reference: the tests a mutant of that function needs.

A mutant (``grader mutants``' generated ones, the kit's catalogue of student bugs) edits the reference
inside one function. A test that never calls that function runs the mutant exactly as it runs the
reference, which passes it: only the tests that reach the function can fail. mutmut runs a mutant's
covering tests only for the same reason. The reach is measured, not guessed: the reference's one-file
form graded in-process once, each test's calls into it recorded (grader.harness.calls).

What a test could see without calling the function (state an earlier test left behind, the file's
text) is outside this argument; the kit's tests grade a fifth of the catalogue behind the wall with
every test, and compare (tests/test_mutants.py).
"""

from __future__ import annotations

import ast
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.grading import runner
from grader.harness.calls import AT_IMPORT
from grader.implementation import Implementation
from grader.labs import Lab
from grader.report.text import a_few


@dataclass(frozen=True)
class Reach:
    """Each test's calls into the reference, as grader.harness.calls records them (test id -> qualified
    names), and the path of every function the reference defines (``Tensor.__add__.backward``: a closure's
    path, as a mutant names the function it edits)."""

    calls: dict[str, frozenset[str]]
    functions: frozenset[str]

    def tests_for(self, path: str) -> frozenset[str] | None:
        """The tests an edit inside the function at ``path`` may fail: those that call it or code defined in
        it. None (every test) for an edit outside any function (module or class code runs at import), and
        for a function the file calls while it is imported."""
        if path not in self.functions:
            return None
        reached = set()
        for test, called in self.calls.items():
            for name in called:
                at_import = name.startswith(AT_IMPORT)
                name = _path(name.removeprefix(AT_IMPORT))
                if name == path or name.startswith(path + "."):
                    if at_import:
                        return None
                    reached.add(test)
        return frozenset(reached)


def left_out(result: runner.TestResult, selected: frozenset[str] | None) -> bool:
    """Whether a run given ``selected`` (``Reach.tests_for``) left ``result``'s test out: it passes the mutant, as
    it passes the reference. A test that ran after all (a submission graded again alone) has its own verdict."""
    return selected is not None and result.id not in selected and result.outcome == "not_run"


def _path(qualname: str) -> str:
    """A code's qualified name as a path of definitions: ``Tensor.__add__.<locals>.backward`` is
    ``Tensor.__add__.backward``."""
    return qualname.replace(".<locals>", "")


def _functions(source: str) -> frozenset[str]:
    """The path of every function ``source`` defines, through classes and functions (and under an if or a try)."""
    found: set[str] = set()

    class Definitions(ast.NodeVisitor):
        scope: list[str] = []

        def visit_ClassDef(self, node):
            self.scope.append(node.name)
            self.generic_visit(node)
            self.scope.pop()

        def visit_FunctionDef(self, node):
            found.add(".".join([*self.scope, node.name]))
            self.visit_ClassDef(node)

        visit_AsyncFunctionDef = visit_FunctionDef

    Definitions().visit(ast.parse(source))
    return frozenset(found)


class ReachError(RuntimeError):
    """The reference does not pass its own tests (what they reach says nothing of a mutant), or a test's calls
    were not recorded."""


def measure(lab: Lab, reference: str) -> Reach:
    """Grade ``reference`` (the one-file source every mutant edits) in-process with ``lab``'s tests, recording
    what each test calls; ReachError unless it passes every test."""
    with tempfile.TemporaryDirectory(prefix="labkit-reach-") as folder:
        path = Path(folder) / "starter.py"  # as the mutants are graded, under a student's file name
        path.write_text(reference, encoding="utf-8")
        (run,) = runner.run_many(lab, [Implementation("submission", path)], isolation="in-process", record_calls=True)
    failed = [r.id for r in run.results if r.outcome != "passed"]
    if failed:
        raise ReachError(f"lab {lab.id}: the reference does not pass these of its tests: {a_few(failed)}")
    unrecorded = sorted({r.id for r in run.results} - set(run.calls))
    if unrecorded:  # its session stopped, and it was graded again without recording
        raise ReachError(f"lab {lab.id}: what these tests call was not recorded: {a_few(unrecorded)}")
    return Reach(run.calls, _functions(reference))

"""Student bugs written apart from the kit: a held-out check that its hints name the bug.

The mutant catalogue (tests/test_mutants.py) is written by the people who write the hints, as edits of
the reference. Each lab's ``instructor/student_bugs/`` is not: a ``correct.py`` written from the handout
and the starter only, and bugs as a student makes them, each an edit of it applied as a mutant's is
(tests/instructor.py finds them). Every submission of a lab is graded behind the wall in one pytest session,
as a batch job grades a class, hidden tests included; each bug with the tests that reach its edit (grader.kit.reach,
measured on ``correct.py``): a test that never calls the function a bug edits runs it as it runs ``correct.py``,
which passes every test, and counts as passed (the mutants' argument, which tests/test_mutants.py checks against
every test behind the wall). For each bug: it loses points, it is one edit of ``correct.py``, and the
catalogue's ``named`` is what the first failure a student reads says (the first failing test in the
order `make lab` prints them, its message and hint): whether grader.testing.bugs.named_in finds the bug's
kind there. The share of named bugs may not fall below the lab's floor.

One class per lab: `make test` gives whole classes to its xdist workers (--dist loadscope), so each lab
is graded once, by one worker.
"""

from __future__ import annotations

import ast
import atexit
import difflib
import functools
import shutil
import tempfile
from pathlib import Path

from grader import labs
from grader.grading import grade as grading
from grader.grading import runner
from grader.implementation import Implementation
from grader.kit import reach as kit_reach
from grader.testing import bugs
from tests import instructor
from tests.mutation import apply

LAB_IDS = [lab_id for lab_id in labs.discover() if instructor.student_bugs(lab_id)]

# The least share of a lab's student bugs whose first failure names the bug. Measured once, with the hints
# of issue 19 written apart from these bugs: ch06 30 of 32, lesson1_3 23 of 24 (before that work: 16 of 32
# and 14 of 24).
NAMED_FLOOR = {"ch06": 0.9, "lesson1_3": 0.9}


@functools.cache
def _graded(lab_id: str) -> dict[str, dict]:
    """Each file of the lab's student_bugs folder, correct.py first (with every test), graded behind the wall in
    one pytest session, each bug with the tests that reach its edit: {file name: canonical report, where a test
    left out for not reaching the edit passed}."""
    lab = labs.get(lab_id)
    base = instructor.student_bugs_base(lab).read_text(encoding="utf-8")
    entries = instructor.student_bugs(lab)
    sources = {instructor.STUDENT_BUGS_BASE: base}
    sources |= {entry.name: apply(base, entry) for entry in entries}
    reached = kit_reach.measure(lab, base)
    selected = [None, *(reached.tests_for(entry.within) for entry in entries)]
    # Each graded as a student's starter.py: a message quoting the file's name must not name the bug by it.
    folder = Path(tempfile.mkdtemp(prefix=f"labkit-student-bugs-{lab_id}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    files = []
    for number, source in enumerate(sources.values()):
        file = folder / f"{number:03d}" / "starter.py"
        file.parent.mkdir()
        file.write_text(source, encoding="utf-8")
        files.append(file)
    impls = [Implementation("submission", file) for file in files]
    runs = runner.run_many(lab, impls, isolation="worker", only=selected)
    reports = [
        _left_out_passed(grading.report_for(lab, impl, run, 0.0), run, chosen)
        for impl, run, chosen in zip(impls, runs, selected, strict=True)
    ]
    return dict(zip(sources, reports, strict=True))


def _left_out_passed(report: dict, run: runner.Run, selected: frozenset[str] | None) -> dict:
    """``report`` with each test the run left out for not reaching the bug's edit (kit_reach.left_out) passed,
    with its points, as ``correct.py`` passes it."""
    left_out = {r.id for r in run.results if kit_reach.left_out(r, selected)}
    for test in report["tests"]:
        if test["id"] in left_out:
            left_out.discard(test["id"])
            report["score"] += test["max_points"] - test["points"]
            test.update(outcome="passed", points=test["max_points"], message="", hint="")
    assert not left_out, f"tests the run left out that the report does not hold: {sorted(left_out)}"
    return report


def first_failure(report: dict) -> dict:
    """The test that lost points that `make lab` prints first: tasks in order, each task's tests in order."""
    for task in report["tasks"]:
        for test in report["tests"]:
            if test["task"] == task["id"] and test["outcome"] != "passed":
                return test
    raise LookupError("every test passed")


def _functions(source: str) -> dict[str, tuple[int, int]]:
    """The lines (first, last) of each top-level function and method of ``source``, by qualified name."""
    spans = {}
    for node in ast.parse(source).body:
        inner = node.body if isinstance(node, ast.ClassDef) else [node]
        for function in inner:
            if isinstance(function, ast.FunctionDef):
                prefix = f"{node.name}." if function is not node else ""
                spans[prefix + function.name] = (function.lineno, function.end_lineno)
    return spans


def _changed_lines(base: str, edited: str) -> list[int]:
    """The lines of ``base`` (from 1) that ``edited`` changes or removes; for an insertion, the line before it."""
    matcher = difflib.SequenceMatcher(None, base.splitlines(), edited.splitlines(), autojunk=False)
    return [
        line
        for tag, i1, i2, _, _ in matcher.get_opcodes()
        if tag != "equal"
        for line in range(i1 + 1, max(i2, i1 + 1) + 1)
    ]


def said(test: dict) -> str:
    """What the table shows under the test: its message, then its hint."""
    return f"{test['message']}\nhint: {test['hint']}"


class _Lab:
    """One lab's student bugs (the subclasses below set which)."""

    lab_id: str

    def test_catalogue_lists_every_bug_once_with_a_known_kind(self):
        entries = instructor.student_bugs(self.lab_id)
        names = [entry.name for entry in entries]
        assert len(names) == len(set(names)), f"{self.lab_id}: a name listed twice"
        folder = instructor.student_bugs_folder(self.lab_id)
        stray = {p.name for p in folder.glob("*.py")} - {"__init__.py", instructor.STUDENT_BUGS_BASE}
        assert not stray, f"{self.lab_id}: files that are not the solution (a bug is an entry, an edit of it): {stray}"
        unknown = [entry.name for entry in entries if entry.kind not in bugs.BUGS]
        assert not unknown, f"{self.lab_id}: kinds not in grader.testing.bugs.BUGS: {unknown}"
        assert all(entry.bug.strip() for entry in entries)

    def test_the_solution_they_come_from_gets_full_marks(self):
        report = _graded(self.lab_id)[instructor.STUDENT_BUGS_BASE]
        failing = {t["id"]: t["message"] for t in report["tests"] if t["outcome"] != "passed"}
        assert not failing and report["score"] == report["max_score"], failing

    def test_bug_is_one_edit_of_the_solution(self, entry):
        """Every line it changes is in one function or method of correct.py: one bug, not two."""
        base = instructor.student_bugs_base(self.lab_id).read_text(encoding="utf-8")
        lines = _changed_lines(base, apply(base, entry))
        spans = _functions(base).items()
        where = {name for line in lines for name, (first, last) in spans if first <= line <= last}
        outside = [line for line in lines if not any(first <= line <= last for _, (first, last) in spans)]
        assert lines, f"{entry.name} is {instructor.STUDENT_BUGS_BASE} unchanged"
        assert len(where) == 1 and not outside, f"{entry.name} changes {sorted(where)}, and lines {outside} outside"

    def test_bug_loses_points(self, entry):
        report = _graded(self.lab_id)[entry.name]
        assert report["score"] < report["max_score"], f"{entry.name} ({entry.bug}) loses no points"

    def test_named_is_what_the_first_failure_says(self, entry):
        """The record holds what is measured: named exactly when the first message and hint name the kind."""
        first = first_failure(_graded(self.lab_id)[entry.name])
        names = bugs.named_in(said(first))
        measured = entry.kind in names
        assert entry.named == measured, (
            f"{entry.name}, whose bug is {bugs.BUGS[entry.kind].label!r} ({entry.bug}): {first['id']} says\n"
            f"{said(first)}\nwhich names {sorted(names) or 'no bug'}: record named={measured}"
        )

    def test_the_share_of_named_bugs_holds_its_floor(self):
        entries = instructor.student_bugs(self.lab_id)
        named = sum(entry.named for entry in entries)
        assert named >= NAMED_FLOOR[self.lab_id] * len(entries), (
            f"{self.lab_id}: the first failure names {named} of {len(entries)} student bugs, below the floor "
            f"{NAMED_FLOOR[self.lab_id]:.0%}"
        )


def pytest_generate_tests(metafunc):
    cls = metafunc.cls
    if cls is not None and issubclass(cls, _Lab) and "entry" in metafunc.fixturenames:
        entries = instructor.student_bugs(cls.lab_id)
        metafunc.parametrize("entry", entries, ids=[entry.name for entry in entries])


for _lab_id in LAB_IDS:
    _name = f"TestStudentBugs_{_lab_id}"
    globals()[_name] = type(_name, (_Lab,), {"lab_id": _lab_id})


def test_every_lab_has_student_bugs():
    """The held-out check covers every lab: a lab without student bugs is named here."""
    missing = [lab_id for lab_id in labs.discover() if lab_id not in LAB_IDS]
    assert not missing, f"write instructor/{instructor.STUDENT_BUGS}/__init__.py (STUDENT_BUGS) for: {missing}"

"""The instructor's manual overrides, ``OUT/overrides.csv``, read and checked for ``grader export``.

One override a row: ``student,target,points,reason,who``. ``target`` is a test id of the student's
report (the points that test gets instead of what it earned) or ``total`` (the student's final grade,
whatever the grading and the late policy gave: the instructor's last word). ``reason`` and ``who`` are
required: the audit trail keeps them. Every row is checked before anything is written: a student not
on the roster, a test their report does not hold (or a test override for a student with no graded
submission: override their total), points out of the test's or the lab's range, an empty reason or
who, or the same target given twice is refused in one line naming the line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.batch import roster

FILE = "overrides.csv"
TOTAL = "total"
COLUMNS = ("student", "target", "points", "reason", "who")


class OverrideError(ValueError):
    """An override that cannot be applied: one line naming the line of overrides.csv (exit status 2)."""


@dataclass(frozen=True)
class Override:
    student: str
    target: str  # a test id, or TOTAL
    points: float
    reason: str
    who: str
    line: int

    def describe(self) -> dict:
        return {"target": self.target, "points": self.points, "reason": self.reason, "who": self.who}


def read(path: Path) -> list[Override]:
    """The rows of an overrides file, each with its fields present and its points a number (not yet checked
    against the class: ``check``); no file is no override."""
    if not path.exists():
        return []
    try:
        header, rows = roster.read_table(path, ",".join(COLUMNS))
    except roster.RosterError as exc:
        if "lists no student" in str(exc):
            return []  # a header alone: nothing overridden yet
        raise OverrideError(str(exc)) from None
    columns = {name: roster.column(header, (name,)) for name in COLUMNS}
    missing = [name for name, index in columns.items() if index is None]
    if missing:
        raise OverrideError(f"{path.name}, line 1: the header has no column {missing[0]!r} (want {','.join(COLUMNS)})")
    found = []
    for line, row in rows:
        fields = {name: roster.cell(row, index) for name, index in columns.items()}
        where = f"{path.name}, line {line}"
        for name in COLUMNS:
            if not fields[name]:
                raise OverrideError(f"{where}: the {name} is empty")
        try:
            points = float(fields["points"])
        except ValueError:
            raise OverrideError(f"{where}: the points {fields['points']!r} are not a number") from None
        if points != points or points in (float("inf"), float("-inf")):
            raise OverrideError(f"{where}: the points {fields['points']!r} are not a number")
        student = roster.student_id(fields["student"])
        found.append(Override(student, fields["target"], points, fields["reason"], fields["who"], line))
    return found


def check(found: list[Override], students: set[str], tests: dict[str, dict[str, float]], max_score: float) -> None:
    """OverrideError on the first row that cannot be applied. ``students``: the roster's ids; ``tests``: by student
    with a graded submission, each test id of their report and its maximum points."""
    seen: dict[tuple[str, str], int] = {}
    for override in found:
        where = f"{FILE}, line {override.line}"
        if override.student not in students:
            raise OverrideError(f"{where}: student {override.student!r} is not on the roster")
        if override.target == TOTAL:
            top = max_score
        elif override.student not in tests:
            raise OverrideError(
                f"{where}: student {override.student!r} has no graded submission whose test {override.target!r} "
                "could be overridden: override their total"
            )
        elif override.target not in tests[override.student]:
            raise OverrideError(f"{where}: the report of {override.student!r} has no test {override.target!r}")
        else:
            top = tests[override.student][override.target]
        if not 0 <= override.points <= top:
            raise OverrideError(f"{where}: {override.points:g} points for {override.target!r} is not in 0..{top:g}")
        key = (override.student, override.target)
        if key in seen:
            raise OverrideError(f"{where}: {override.target!r} of {override.student!r} is already on line {seen[key]}")
        seen[key] = override.line

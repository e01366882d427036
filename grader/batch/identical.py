"""Students who handed in the same thing: each other's file, the same code, or the lab's starter untouched.

From the graded students' records alone: the file's sha256, and the static read's digest of
its code up to comments, whitespace and docstrings (grader.batch.sources.code_digest).
Untouched starters are listed apart: a class may hold many, and they are not copies.
"""

from __future__ import annotations

from collections.abc import Callable


def untouched_starter(record: dict) -> bool:
    """Whether the record's file is the lab's starter, unchanged up to comments and whitespace."""
    return bool((record.get("code") or {}).get("starter"))


LATE_WORK = " (late work)"  # after a student's id: their late work, compared as a version of its own


def is_late(record: dict) -> bool:
    """A record of a student's late work (grader collect), graded apart from their submission."""
    return (record.get("collected") or {}).get("version") == "late"


def version_label(record: dict) -> str:
    """How a comparison names a record's file: the student, or their late work."""
    return record["student"] + LATE_WORK * is_late(record)


def versions(records: list[dict]) -> list[tuple[str, dict]]:
    """Every graded file of the records, named (version_label): a record's own, and its late work, whether
    the late work is a record of its own or folded into the student's (grader.batch.gradebook.with_late_work).
    Late work is compared with everyone's: after the deadline a classmate's finished file is easiest to copy."""
    found = []
    for record in records:
        if record["status"] == "graded":
            found.append((version_label(record), record))
        late = record.get("late_work")
        if late and late.get("status") == "graded":
            found.append((record["student"] + LATE_WORK, late))
    return found


def student_of(label: str) -> str:
    return label.removesuffix(LATE_WORK)


def _groups(named: list[tuple[str, dict]], key: Callable[[dict], str | None]) -> list[list[str]]:
    by_key: dict[str, list[str]] = {}
    for label, record in named:
        if key(record):
            by_key.setdefault(key(record), []).append(label)
    # One student's file and their late work alike is no copy: a group holds two students at least.
    found = [sorted(labels) for labels in by_key.values() if len({student_of(x) for x in labels}) > 1]
    return sorted(found, key=lambda labels: (-len(labels), labels))


def groups(records: list[dict]) -> dict:
    """Among graded files (late work included), apart from untouched starters: groups with the same file
    (sha256), groups with the same code that are not already a group of the same file, and the starters."""
    named = versions(records)
    others = [(label, r) for label, r in named if not untouched_starter(r)]
    same_file = _groups(others, lambda r: r.get("sha256"))
    same_code = _groups(others, lambda r: (r.get("code") or {}).get("code_sha256"))
    return {
        "same_file": same_file,
        "same_code": [students for students in same_code if students not in same_file],
        "untouched_starters": sorted(
            r["student"] for r in records if r["status"] == "graded" and untouched_starter(r) and not is_late(r)
        ),
    }

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


def _groups(records: list[dict], key: Callable[[dict], str | None]) -> list[list[str]]:
    by_key: dict[str, list[str]] = {}
    for record in records:
        if key(record):
            by_key.setdefault(key(record), []).append(record["student"])
    found = [sorted(students) for students in by_key.values() if len(students) > 1]
    return sorted(found, key=lambda students: (-len(students), students))


def groups(records: list[dict]) -> dict:
    """Among graded students, apart from untouched starters: groups with the same file (sha256),
    groups with the same code that are not already a group of the same file, and the starters."""
    graded = [r for r in records if r["status"] == "graded"]
    others = [r for r in graded if not untouched_starter(r)]
    same_file = _groups(others, lambda r: r.get("sha256"))
    same_code = _groups(others, lambda r: (r.get("code") or {}).get("code_sha256"))
    return {
        "same_file": same_file,
        "same_code": [students for students in same_code if students not in same_file],
        "untouched_starters": sorted(r["student"] for r in graded if untouched_starter(r)),
    }

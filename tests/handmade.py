"""Canonical reports made by hand, for the tests of what reads reports (the table, the exports).

Shaped as grader.report.build_report writes them: tests/test_exports.py holds one to the
report's schema, so a change of shape shows there first.
"""

from __future__ import annotations

from grader import limits, verdicts
from grader.verdicts import OUTCOMES


def test_row(id, task, outcome, points, max_points, message="", hint="", duration_s=0.012345, about_the_file=None):
    """One test's entry of a report. ``about_the_file``: the kit's mark of a verdict about the whole file; by
    default, as the kit writes it: on the verdicts it makes of a SubmissionError (whose words these are)."""
    if about_the_file is None:
        about_the_file = verdicts.import_problem(message) is not None or verdicts.missing_name_in(message) is not None
    row = {
        "id": id,
        "task": task,
        "outcome": outcome,
        "points": points,
        "max_points": max_points,
        "duration_s": duration_s,
        "message": message,
        "hint": hint,
    }
    return {**row, "about_the_file": True} if about_the_file else row


test_row.__test__ = False  # a builder, not a test


def report(tests, *, tasks=None, flags=(), **fields) -> dict:
    """A report of ``tests``; ``tasks`` are (id, title) pairs (default: each task of the tests, titled
    "Task <id>"); ``fields`` replace top-level fields (``lab_title``, ``isolation``, ...)."""
    tasks = tasks or [(task, f"Task {task}") for task in dict.fromkeys(t["task"] for t in tests)]
    counts = {o: sum(t["outcome"] == o for t in tests) for o in OUTCOMES}
    document = {
        "schema": "labkit.report/1",
        "lab": "ch06",
        "lab_title": "Odd <lab> & | title",
        "impl": "submission",
        "implementation": {"kind": "submission", "name": "alice.py", "sha256": "0" * 64},
        "isolation": {"mode": "worker", "protections": ["network namespace: no network", "PID namespace"]},
        "limits": limits.in_force({}),
        "score": round(sum(t["points"] for t in tests), 6),
        "max_score": round(sum(t["max_points"] for t in tests), 6),
        "all_passed": counts["passed"] == len(tests),
        "counts": counts,
        "tasks": [
            {
                "id": id,
                "title": title,
                "score": round(sum(t["points"] for t in tests if t["task"] == id), 6),
                "max_score": round(sum(t["max_points"] for t in tests if t["task"] == id), 6),
                "passed": sum(t["outcome"] == "passed" for t in tests if t["task"] == id),
                "tests": sum(t["task"] == id for t in tests),
            }
            for id, title in tasks
        ],
        "tests": list(tests),
        "flags": list(flags),
        "kit": {"version": "0.1.0", "tests_sha256": "f" * 64},
        "python": "3.11.7",
        "numpy": "2.0.0",
        "created": "2026-01-01T00:00:00Z",
        "duration_s": 1.5,
    }
    return {**document, **fields}

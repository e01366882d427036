"""The canonical report: one versioned JSON document per graded submission.

Every other format (the terminal table, and later exports) is computed from it.
It holds no absolute paths.
"""

from __future__ import annotations

import functools
import platform
from datetime import datetime, timezone
from pathlib import Path

from grader import __version__, atomic, intake, verdicts
from grader.grading.runner import TestResult
from grader.implementation import Implementation
from grader.labs import HIDDEN, Lab, Task
from grader.report.text import points

SCHEMA = "labkit.report/1"


@functools.cache
def numpy_version() -> str:
    """numpy's version, for the report's environment (grade() looks it up while the tests run)."""
    from importlib import metadata  # 40 ms to import: not for commands that build no report

    try:  # the installed distribution's version, without paying for `import numpy`
        return metadata.version("numpy")
    except metadata.PackageNotFoundError:  # pragma: no cover - numpy is a dependency
        return "unknown"


def task_summary(task: Task, results: list[TestResult]) -> dict:
    """A task's entry of the report, from the results of its tests (the live lines show the same)."""
    summary = {
        "id": task.id,
        "title": task.title,
        "score": points(sum(r.points for r in results)),
        "max_score": points(sum(r.max_points for r in results)),
        "passed": sum(r.outcome == "passed" for r in results),
        "tests": len(results),
    }
    hidden = [r for r in results if r.tier == HIDDEN]
    if hidden:  # counted apart too: the instructor sees what the visible tests alone would not have shown
        summary["hidden"] = {"passed": sum(r.outcome == "passed" for r in hidden), "tests": len(hidden)}
    return summary


def outcome_counts(results: list[TestResult]) -> dict[str, int]:
    """How many of ``results`` have each outcome, every outcome named (the report's ``counts``)."""
    return {outcome: sum(r.outcome == outcome for r in results) for outcome in verdicts.OUTCOMES}


def _line_count(impl: Implementation) -> int | None:
    """The lines of the file under test, which a test's ``line`` must be one of; None for the reference
    package (several files: a line alone names none of them) and for a file intake refuses, but for the line
    intake found it at (a byte that is not UTF-8): the file has that many lines at least."""
    if impl.path is None:
        return None
    try:
        return intake.read(impl.path).line_count
    except verdicts.SubmissionError as exc:
        return exc.line


def build_report(
    lab: Lab,
    impl: Implementation,
    results: list[TestResult],
    *,
    isolation: dict,
    limits: dict,
    duration_s: float,
    flags: list[dict] | None = None,
    partial: str | None = None,
) -> dict:
    """The report of ``results``; ``limits`` are the limits in force (grader.limits.in_force), all of them.

    ``partial`` is the one task a run graded (`grader run --task`): the report says so, and the
    other tasks' tests are in it as not run, so that its score is never a full one."""
    tasks = [task_summary(task, [r for r in results if r.task == task.id]) for task in lab.tasks]
    score = sum(r.points for r in results)
    max_score = sum(r.max_points for r in results)
    line_count = _line_count(impl)
    counts = outcome_counts(results)
    document = {
        "schema": SCHEMA,
        "lab": lab.id,
        "lab_title": lab.title,
        "impl": impl.kind,
        "implementation": {"kind": impl.kind, "name": impl.display_name(lab), "sha256": impl.sha256(lab)},
        "isolation": isolation,
        "limits": dict(limits),
        "score": points(score),
        "max_score": points(max_score),
        "all_passed": counts["passed"] == len(results),
        "counts": counts,
        "tasks": tasks,
        "tests": [
            {
                "id": r.id,
                "task": r.task,
                "outcome": r.outcome,
                "points": points(r.points),
                "max_points": points(r.max_points),
                "duration_s": r.duration_s,
                "message": r.message,
                "hint": r.hint,
                "line": verdicts.line_in_file(r.line, line_count),
                "tier": r.tier,
                **({"about_the_file": True} if r.about_the_file else {}),
            }
            for r in results
        ],
        "flags": flags or [],
        "kit": {"version": __version__, "tests_sha256": lab.tests_sha256()},
        "python": platform.python_version(),
        "numpy": numpy_version(),
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "duration_s": round(duration_s, 3),
    }
    if partial is not None:
        document["partial"] = {"task": partial}
    return document


def graded_tests(report: dict) -> list[dict]:
    """The tests the run graded: all of them, or those of the one task of a partial run."""
    partial = report.get("partial")
    return [t for t in report["tests"] if partial is None or t["task"] == partial["task"]]


def write_report(report: dict, path: Path) -> None:
    """Write atomically: a reader sees the old report or the new one, never half of one."""
    atomic.write_json(path, report)

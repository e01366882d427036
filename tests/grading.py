"""Grade code the way `grader run` does, for the kit's tests."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from grader import labs
from grader.grading import grade as grading
from grader.grading import runner
from grader.implementation import Implementation


def sleep_line(seconds: float) -> str:
    """A line of code under test that sleeps ``seconds`` without spending CPU (the kit's tests keep both cores
    busy). `select` is not on a lab's allow-list, but the test process and the worker have it loaded (numpy's
    reference to sys)."""
    return f'(getattr(np, "_core", None) or np.core).numeric.sys.modules["select"].select([], [], [], {seconds})'


# A hang for a test whose hang's kind does not matter: only the wall clock stops it.
SLEEPS = sleep_line(3600)


@cache
def grade(lab_id: str, impl: str | Path, isolation: str = "in-process") -> dict:
    """The canonical report for ``impl`` (mine, ref, or a file path) on ``lab_id``; cached, do not mutate."""
    lab = labs.get(lab_id)
    return grading.grade(lab, Implementation.parse(str(impl), lab), isolation=isolation, timeout=300)


def failing(document: dict) -> dict[str, dict]:
    return {t["id"]: t for t in document["tests"] if t["outcome"] != "passed"}


def grade_many(lab: labs.Lab, impls: list[Implementation], timeout: float | None = None) -> list[dict]:
    """Canonical reports for submissions graded behind the wall in one pytest session, as a batch job does."""
    runs = runner.run_many(lab, impls, isolation="worker", timeout=timeout)
    return [grading.report_for(lab, impl, run, 0.0) for impl, run in zip(impls, runs, strict=True)]

"""Grade code the way `grader run` does, for the kit's tests."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from grader import labs, report, runner
from grader.seam import Implementation


@cache
def grade(lab_id: str, impl: str | Path) -> dict:
    """The canonical report for ``impl`` (mine, ref, or a file path) on ``lab_id``; cached, do not mutate."""
    lab = labs.get(lab_id)
    implementation = Implementation.parse(str(impl), lab)
    results = runner.run_tests(lab, implementation, timeout=300)
    return report.build_report(
        lab, implementation, results, isolation={"mode": "in-process", "protections": []}, duration_s=0.0
    )


def failing(document: dict) -> dict[str, dict]:
    return {t["id"]: t for t in document["tests"] if t["outcome"] != "passed"}

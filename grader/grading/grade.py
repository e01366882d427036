"""Grade implementations of a lab: run its tests, scan the files, build the canonical reports.

The one path every front end takes (`grader run`, and the batch and CI commands).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from grader import labs, report
from grader.grading import runner, scan
from grader.implementation import Implementation
from grader.labs import Lab


def default_isolation(impl: Implementation) -> str:
    """Submissions are graded behind the wall; a student's own starter and the reference run in-process."""
    return "worker" if impl.kind == "submission" else "in-process"


def report_for(lab: Lab, impl: Implementation, run: runner.Run, duration_s: float, task: str | None = None) -> dict:
    """The canonical report of one finished run (of one ``task`` only, if given), with the static scan's flags
    (another lab's file among them)."""
    flags = []
    if impl.path:
        publics = {other.id: other.public for other in labs.discover().values()}
        flags = [f.as_dict() for f in scan.scan_file(impl.path, lab.allowed_imports, lab.id, publics)]
    return report.build_report(
        lab,
        impl,
        run.results,
        isolation=run.isolation,
        limits=run.limits,
        duration_s=duration_s,
        flags=flags,
        partial=task,
    )


def grade(
    lab: Lab,
    impl: Implementation,
    *,
    isolation: str | None = None,
    timeout: float | None = None,
    task: str | None = None,
    on_progress: Callable[[runner.Progress], None] | None = None,
) -> dict:
    """The canonical report for ``impl`` on ``lab`` (on its one ``task``: a partial report, if given).

    ``on_progress`` follows the run as it goes (runner.run_tests)."""
    started = time.perf_counter()
    # The report's one slow lookup runs while the tests do, instead of after them.
    threading.Thread(target=report.numpy_version, daemon=True).start()
    run = runner.run_tests(
        lab, impl, isolation=isolation or default_isolation(impl), timeout=timeout, task=task, on_progress=on_progress
    )
    return report_for(lab, impl, run, time.perf_counter() - started, task)

"""The live lines of `grader run`: what a person watching the terminal sees while the tests run.

Each task's line (grader.report.table.task_line) is printed as soon as every test of the
task has a result, in the table's order; a test that runs past ``FIRST_SECONDS`` gets a
line saying so (again every ``EVERY_SECONDS``), so that a loop that never ends is seen as
one. Plain lines only, no carriage returns: the same text reads well in a terminal, a
pipe or a CI log. It follows a run through the runner's ``on_progress``
(grader.grading.runner.Progress).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from grader import limits
from grader.grading.runner import Progress
from grader.labs import Lab
from grader.report import task_summary
from grader.report.table import task_line
from grader.report.text import for_terminal

FIRST_SECONDS = 3.0  # a test running longer than this is said to be running
EVERY_SECONDS = 10.0  # and said again this often


class Live:
    """Call it with each ``Progress`` of a run; it prints what there is to print."""

    def __init__(
        self,
        lab: Lab,
        *,
        color: bool,
        echo: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ):
        self.lab = lab
        self.color = color
        self.echo = echo
        self.clock = clock
        self.limits = limits.Limits.from_lab(lab.limits)
        self.printed = 0  # how many of the run's tasks have their line
        self.running: str | None = None
        self.since = 0.0  # when the test running now started (as far as the stream says)
        self.said = 0  # how many "still running" lines it had

    def __call__(self, progress: Progress) -> None:
        self._tasks_done(progress)
        # The running test's limit as the stream says it (the shorter one after a timeout), else the lab's.
        seconds = progress.running_seconds
        self._still_running(progress.running, seconds if seconds is not None else self.limits.test_seconds)

    def _tasks_done(self, progress: Progress) -> None:
        tasks = [task for task in self.lab.tasks if any(t["task"] == task.id for t in progress.tests)]
        while self.printed < len(tasks):
            task = tasks[self.printed]
            ids = [t["id"] for t in progress.tests if t["task"] == task.id]
            if not all(i in progress.done for i in ids):
                return
            self.echo(task_line(task_summary(task, [progress.done[i] for i in ids]), color=self.color))
            self.printed += 1

    def _still_running(self, running: str | None, test_seconds: float) -> None:
        """A line for a test still running after FIRST_SECONDS, then every EVERY_SECONDS, with its limit."""
        now = self.clock()
        if running != self.running:
            self.running, self.since, self.said = running, now, 0
            return
        if running is None:
            return
        spent = now - self.since
        if spent >= FIRST_SECONDS + self.said * EVERY_SECONDS:
            self.said += 1
            self.echo(
                f"  ... {for_terminal(running)} is still running ({spent:.0f} s; its limit is {test_seconds:g} s)"
            )

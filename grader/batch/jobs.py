"""Grade a class: every submission behind the wall, in parallel, each result saved as soon as known.

``--jobs`` pytest sessions run side by side, each on a core of its own; each takes its students
one at a time from one shared queue as it is ready for the next (grader.grading.runner.run_queue
grades them in turn in one session, so pytest and the lab's tests load once per session), so the
jobs end within a student of each other. Every student's report and record is written the
moment the session streams that student's last verdict. A killed batch therefore loses only
the students being graded; ``--resume`` skips every student whose record matches the same
submission hash, kit version and tests (outputs.Outputs.is_current).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable

from grader import awake
from grader.batch import outputs
from grader.batch.inputs import Entry
from grader.grading import grade, runner
from grader.implementation import Implementation
from grader.labs import Lab
from grader.wall import cpus


def grade_entries(
    lab: Lab,
    entries: list[Entry],
    out: outputs.Outputs,
    *,
    jobs: int,
    on_done: Callable[[Entry, dict], None],
) -> None:
    """Grade every ``ok`` entry behind the wall with ``jobs`` sessions; record each one as it finishes."""
    todo: queue.SimpleQueue[Entry] = queue.SimpleQueue()
    for entry in entries:
        todo.put(entry)
    lock = threading.Lock()
    failures: list[BaseException] = []

    def work(cpu: int | None) -> None:
        taken: dict[int, Entry] = {}  # handed to this job's session and not yet recorded
        started = [time.perf_counter()]  # a student's time runs from the last one's end (or the job's start)
        recorded = [0]

        def take() -> tuple[Entry, Implementation] | None:
            entry = _next_or_none(todo)
            if entry is None:
                return None
            taken[id(entry)] = entry
            return entry, Implementation("submission", entry.path)

        def put_back(given: tuple[Entry, Implementation]) -> None:  # a session died before it began this one
            taken.pop(id(given[0]), None)
            todo.put(given[0])

        def finished(entry: Entry, run: runner.Run) -> None:
            now = time.perf_counter()
            document = grade.report_for(lab, Implementation("submission", entry.path), run, now - started[0])
            started[0] = now
            record = out.save_graded(entry, document)
            taken.pop(id(entry), None)
            recorded[0] += 1
            with lock:
                on_done(entry, record)

        def failed(entry: Entry, exc: runner.GradingError) -> None:
            if not out.is_current(entry):
                with lock:
                    on_done(entry, out.save_status(entry, "error", f"the grader failed: {exc}"[:500]))

        try:
            while not todo.empty():
                before = recorded[0]
                try:
                    runner.run_queue(lab, take, isolation="worker", on_result=finished, cpu=cpu, put_back=put_back)
                except runner.GradingError as exc:  # the kit failed, not these students: say so
                    for entry in list(taken.values()):
                        taken.pop(id(entry))
                        failed(entry, exc)
                    started[0] = time.perf_counter()
                    if recorded[0] == before:  # it graded nobody (no sandbox, tests that do not collect): it
                        while (entry := _next_or_none(todo)) is not None:  # would fail the same for everyone
                            failed(entry, exc)
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which re-raises it
            failures.append(exc)

    # Each job keeps to a core of its own with its worker (grader.wall.cpus): the cores in turn.
    threads = [
        threading.Thread(target=work, args=(cpus.for_job(i, jobs),), name=f"labkit-batch-{i}", daemon=True)
        for i in range(jobs)
    ]
    for thread in threads:
        thread.start()
    try:
        awake.join(threads)  # not thread.join(): a Ctrl-C must reach the main thread
    except BaseException:
        while _next_or_none(todo) is not None:  # no new students; then stop the sessions running now
            pass
        runner.stop_all()
        raise
    if failures:
        raise failures[0]


def _next_or_none(todo: queue.SimpleQueue[Entry]) -> Entry | None:
    """The queue's next student, or None: the jobs' sessions take from it too, so never a blocking get."""
    try:
        return todo.get_nowait()
    except queue.Empty:
        return None

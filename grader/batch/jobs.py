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
        taken: dict[int, Entry] = {}  # given to this job's session and not yet recorded
        started = [time.perf_counter()]  # a student's time runs from the last one's end (or the job's start)

        def take() -> tuple[Entry, Implementation] | None:
            try:
                entry = todo.get_nowait()
            except queue.Empty:
                return None
            taken[id(entry)] = entry
            return entry, Implementation("submission", entry.path)

        def finished(entry: Entry, run: runner.Run) -> None:
            now = time.perf_counter()
            document = grade.report_for(lab, Implementation("submission", entry.path), run, now - started[0])
            started[0] = now
            record = out.save_graded(entry, document)
            taken.pop(id(entry), None)
            with lock:
                on_done(entry, record)

        try:
            while not todo.empty():
                try:
                    runner.run_queue(lab, take, isolation="worker", on_result=finished, cpu=cpu)
                except runner.GradingError as exc:  # the kit failed, not these students: say so, go on
                    for entry in list(taken.values()):
                        taken.pop(id(entry))
                        if not out.is_current(entry):
                            with lock:
                                on_done(entry, out.save_status(entry, "error", f"the grader failed: {exc}"[:500]))
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
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)  # a short join keeps the main thread responsive to Ctrl-C
    except BaseException:
        with lock:
            while not todo.empty():  # no new students; then stop the sessions running now
                todo.get()
        runner.stop_all()
        raise
    if failures:
        raise failures[0]

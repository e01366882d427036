"""Grade a class: every submission behind the wall, in parallel, each result saved as soon as known.

``--jobs`` pytest sessions run side by side; each takes the next few submissions from a
shared queue (grader.grading.runner.run_many grades them in one session, so pytest and the lab's
tests load once per chunk), and writes every student's report and record the moment the
session streams that student's last verdict. A killed batch therefore loses only the
students being graded; ``--resume`` skips every student whose record matches the same
submission hash, kit version and tests (outputs.Outputs.is_current).
"""

from __future__ import annotations

import math
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

MAX_CHUNK = 40  # pytest starts once per chunk (about a second): long chunks; the last ones shrink to balance the jobs


def _chunk_size(left: int, jobs: int) -> int:
    return max(1, min(MAX_CHUNK, math.ceil(left / (2 * jobs))))


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
    left = [len(entries)]
    lock = threading.Lock()
    failures: list[BaseException] = []

    def take() -> list[Entry]:
        with lock:
            size = _chunk_size(left[0], jobs)
            chunk = []
            while len(chunk) < size and not todo.empty():
                chunk.append(todo.get())
            left[0] -= len(chunk)
            return chunk

    def work(cpu: int | None) -> None:
        try:
            while chunk := take():
                impls = [Implementation("submission", e.path) for e in chunk]
                started = [time.perf_counter()]

                def finished(index: int, run: runner.Run, chunk=chunk, impls=impls, started=started) -> None:
                    now = time.perf_counter()
                    document = grade.report_for(lab, impls[index], run, now - started[0])
                    started[0] = now
                    record = out.save_graded(chunk[index], document)
                    with lock:
                        on_done(chunk[index], record)

                try:
                    runner.run_many(lab, impls, isolation="worker", on_result=finished, cpu=cpu)
                except runner.GradingError as exc:  # the kit failed, not these students: say so, go on
                    for entry in chunk:
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
            while not todo.empty():  # no new chunks; then stop the sessions running now
                todo.get()
        runner.stop_all()
        raise
    if failures:
        raise failures[0]

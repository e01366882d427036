"""The breakdown suite of `make bench`: where one honest student's time goes behind the wall.

The ch06 reference, graded as a batch's session grades it (one pytest session, its worker on one
core), in-process and behind the wall in turns; behind the wall with LABKIT_WALL_PROFILE set, so
that each wall session counts its round trips by kind and its worker's children say where their
CPU time went (grader.wall.profile).

And what one round trip costs on this machine, alone: the floor, two Python processes passing a
byte back and forth through pipes on one core (the kernel's switch and little else), against the
wall's, a test reading a number from the worker (both sides' protocol code as well).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from grader import labs
from grader.env import WALL_PROFILE_ENV
from grader.kit import starters
from grader.wall import profile

STUDENTS = 10  # copies of the reference in one session: its start is shared, as in a batch
ROUND_TRIPS = 5000  # timed in a row, per round, for each of the two round-trip figures
FLOOR_SECONDS = 300  # the wall-clock limit of all the round trips through the wall (a second or two, quiet)


def bench_breakdown(repeat: int, students: int = STUDENTS) -> dict:
    """Per student: the time in-process and behind the wall (medians of ``repeat`` rounds, the two
    modes in turns), the requests and round trips behind the wall, the pytest process's CPU time
    and the worker's, by kind of work (grader.wall.worker.ProfilingServer)."""
    from grader.grading import runner
    from grader.implementation import Implementation
    from grader.wall import cpus

    lab = labs.get("ch06")
    core = cpus.running_on()
    times: dict[str, list[float]] = {"in-process": [], "worker": []}
    with tempfile.TemporaryDirectory(prefix="labkit-bench-breakdown-") as tmp:
        reference = Path(tmp) / "reference.py"
        reference.write_text(starters.assemble(lab, strip=False), encoding="utf-8")
        chunk = [Implementation("submission", reference)] * students
        profiles = Path(tmp) / "profiles.jsonl"
        for _ in range(repeat):
            for isolation in times:
                if isolation == "worker":
                    os.environ[WALL_PROFILE_ENV] = str(profiles)
                try:
                    started = time.perf_counter()
                    runs = runner.run_many(lab, chunk, isolation=isolation, cpu=core)
                    times[isolation].append((time.perf_counter() - started) / students)
                finally:
                    os.environ.pop(WALL_PROFILE_ENV, None)
                if any(r.outcome != "passed" for run in runs for r in run.results):
                    raise RuntimeError(f"the reference lost points {isolation}: its times are no figure")
        measured = [json.loads(line) for line in profiles.read_text(encoding="utf-8").splitlines()]
        floor = round_trip_floor(lab, reference, repeat, core)
    return {"ch06/reference": summarize(measured, times, students), "round_trip": floor}


def round_trip_floor(lab, submission: Path, repeat: int, core: int | None, n: int = ROUND_TRIPS) -> dict:
    """Microseconds per round trip on one core, the medians of max(repeat, 3) rounds, the two in
    turns: through bare pipes, and through the wall (a test reading ``Value(3.0).data``)."""
    from grader.limits import Limits
    from grader.wall import cpus
    from grader.wall.session import WallSession

    before = cpus.allowed()
    cpus.pin_this_process(core)  # the children started below inherit the core
    pipe, wall = [], []
    try:
        # Every read below is one test's as the wall counts them: its wall-clock limit covers them all, and the
        # lab's 10 s ran out once in `make test`, on a core it shared with busy workers.
        limits = {**lab.limits, "test_seconds": FLOOR_SECONDS, "call_seconds": FLOOR_SECONDS}
        session = WallSession(lab, submission, Limits.from_lab(limits))
        try:
            number = session.public("Value")(3.0)
            for _ in range(max(repeat, 3)):
                pipe.append(_pipe_round_trip_us(n))
                started = time.perf_counter()
                for _ in range(n):
                    number.data  # noqa: B018 - the read is the round trip
                wall.append((time.perf_counter() - started) / n * 1e6)
            session.end()
        finally:
            session.close()
    finally:
        if before:
            os.sched_setaffinity(0, before)
    pipe_us, wall_us = statistics.median(pipe), statistics.median(wall)
    return {"pipes_us": round(pipe_us, 1), "wall_us": round(wall_us, 1), "wall_over_pipes": round(wall_us / pipe_us, 1)}


ECHO = """
import os, sys
read_fd, write_fd, n = map(int, sys.argv[1:])
for _ in range(n):
    os.read(read_fd, 1)
    os.write(write_fd, b"x")
"""


def _pipe_round_trip_us(n: int) -> float:
    """n round trips with a child Python that echoes each byte it reads (started first, not timed)."""
    to_child, from_child = os.pipe(), os.pipe()
    child = subprocess.Popen(
        [sys.executable, "-c", ECHO, str(to_child[0]), str(from_child[1]), str(n + 1)],
        pass_fds=(to_child[0], from_child[1]),
    )
    os.close(to_child[0])
    os.close(from_child[1])
    try:
        os.write(to_child[1], b"y")  # the child has started when it answers
        os.read(from_child[0], 1)
        started = time.perf_counter()
        for _ in range(n):
            os.write(to_child[1], b"y")
            os.read(from_child[0], 1)
        return (time.perf_counter() - started) / n * 1e6
    finally:
        os.close(to_child[1])
        os.close(from_child[0])
        child.wait()


def summarize(measured: list[dict], times: dict[str, list[float]], students: int) -> dict:
    """Per student: the medians of the rounds' times, the means of the wall sessions' profiles (one
    per student and round)."""
    n = len(measured)
    round_trips, worker = Counter(), Counter()
    for one in measured:
        round_trips.update(one["round_trips"])
        worker.update(one["worker_s"])
    in_process, walled = statistics.median(times["in-process"]), statistics.median(times["worker"])
    return {
        "students": students,
        "rounds": len(times["worker"]),
        "in_process_s": round(in_process, 4),
        "behind_the_wall_s": round(walled, 4),
        "ratio": round(walled / in_process, 2),
        "requests": round(sum(one["requests"] for one in measured) / n),
        # Each kind's mean, rounded, and their sum: a total rounded apart could differ from it by one.
        "round_trips": sum(round(count / n) for count in round_trips.values()),
        **{f"round_trips_{kind}": round(count / n) for kind, count in sorted(round_trips.items())},
        "trusted_cpu_s": round(sum(one["trusted_cpu_s"] for one in measured) / n, 4),
        **{f"worker_{kind}_s": round(worker[kind] / n, 4) for kind in profile.WORKER_COSTS},
    }

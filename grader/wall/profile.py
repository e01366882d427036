"""Where a submission's time behind the wall went: the round trips its tests made, and its worker's CPU.

Only when ``LABKIT_WALL_PROFILE`` names a file (``make bench``'s breakdown suite sets it): each wall
session then counts its requests and the round trips they cost, by kind, the sandbox's children
report their CPU time by kind of work in each hello (grader.wall.worker.ProfilingServer), and the
session appends one JSON line to the file when it closes. Grading never sets it.

What a child reports is a claim like any other: a figure that is not a finite number from 0 to
a day is left out, and the bench reads it only for the reference it grades.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import Counter
from pathlib import Path

from grader.env import WALL_PROFILE_ENV

WORKER_COSTS = ("starting", "running", "reading", "writing", "handling", "cpu")
MAX_SECONDS = 86_400.0
# What a request that waits waits for (a call that waits either returns a value, is the first of
# its kind in this submission, or was passed a writable array or a list to copy back).
READS = ("getattr", "getattrs", "convert", "getitem", "isinstance")


def destination() -> Path | None:
    """The file to append profiles to, or None: not profiling."""
    value = os.environ.get(WALL_PROFILE_ENV)
    return Path(value) if value else None


class Tally:
    """One submission's requests and round trips, its worker children's costs, its trusted CPU time,
    to be appended to ``path``."""

    def __init__(self, path: Path):
        self.path = path
        self.requests = 0
        self.round_trips: Counter[str] = Counter()
        self.children: dict[str, dict[str, float]] = {}  # the latest costs each child reported
        self.cpu_started = time.process_time()

    def request(self, op: str, waits: bool) -> None:
        self.requests += 1
        if waits:
            self.round_trips["read" if op in READS else op] += 1

    def callback(self) -> None:
        """The worker called one of the test's functions: a round trip the other way."""
        self.round_trips["callback"] += 1

    def hello(self, child: str, message: dict) -> None:
        """A child's hello, with the costs it reports (never a round trip of its own: grader.wall.session)."""
        costs = message.get("costs")
        if type(costs) is dict:
            kept = {k: float(costs[k]) for k in WORKER_COSTS if _seconds(costs.get(k))}
            if kept:
                self.children[child] = kept

    def as_dict(self, submission: str) -> dict:
        worker = Counter()
        for costs in self.children.values():
            worker.update(costs)
        return {
            "submission": submission,
            "requests": self.requests,
            "round_trips": dict(self.round_trips),
            "children": len(self.children),
            "worker_s": {k: round(worker[k], 6) for k in WORKER_COSTS},
            "trusted_cpu_s": round(time.process_time() - self.cpu_started, 6),
        }

    def write(self, submission: str) -> None:
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(self.as_dict(submission)) + "\n")


def _seconds(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x) and 0 <= x <= MAX_SECONDS

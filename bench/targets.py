"""The kit's performance targets (issue 23), read off the figures of one `make bench` run.

Each target names the figure it reads, its limit, and whether this run met it; a target whose
suite did not run (``--only``) or whose figure could not be measured (PyTorch not installed) is
listed as not measured, never as met. Ratios come from the same run, round by round; the few
absolute figures (seconds, microseconds, bytes) depend on the machine and are stated with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

LINEAR_SLACK = 1.1  # "linear": a student of the largest class costs at most this much more than one of the smallest
MEMORY_SLACK = 1.25  # "bounded": a job's largest process grows at most this much from the smallest class to the largest


@dataclass(frozen=True)
class Target:
    what: str
    suite: str
    read: Callable[[dict], float | None]  # the figure, from the suite's results (None: not measured)
    limit: float  # the figure must be at most this


def _get(row: dict, *keys):
    for key in keys:
        if not isinstance(row, dict) or key not in row:
            return None
        row = row[key]
    return row if isinstance(row, (int, float)) and not isinstance(row, bool) else None


def _jobs_seconds(batch: dict) -> float | None:
    jobs = _get(batch, "parallel", "jobs")
    return _get(batch, f"{jobs}_jobs", "seconds") if jobs else None


def _vs_torch(engine: dict, problem: str) -> float | None:
    engine_us, torch_us = _get(engine, problem, "engine_us"), _get(engine, problem, "torch_us")
    return round(engine_us / torch_us, 2) if engine_us and torch_us else None


TARGETS = [
    Target("batch: the class of 200 on the machine's cores (2 jobs on 2), seconds", "batch", _jobs_seconds, 60),
    Target(
        f"batch: linear, a student of the largest class over one of the smallest (at most {LINEAR_SLACK})",
        "batch",
        lambda b: _get(b, "scaling", "linearity"),
        LINEAR_SLACK,
    ),
    Target(
        "batch: an honest student behind the wall over in-process, same tests and sessions",
        "batch",
        lambda b: _get(b, "per_submission", "ratio"),
        1.2,
    ),
    Target(
        f"batch: a job's largest process, largest class over smallest (bounded: at most {MEMORY_SLACK})",
        "batch",
        lambda b: _get(b, "memory", "growth"),
        MEMORY_SLACK,
    ),
    Target(
        "one student: `make lab CH=06 IMPL=ref`, seconds",
        "grading",
        lambda g: _get(g, "ch06/reference", "make_lab_s"),
        1.5,
    ),
    Target(
        "one student: `grader run --submission`, behind the wall over in-process (ch06 reference)",
        "wall",
        lambda w: _get(w, "ch06/reference", "ratio"),
        1.3,
    ),
    Target(
        "one student: the same for lesson1_3's reference",
        "wall",
        lambda w: _get(w, "lesson1_3/reference", "ratio"),
        1.3,
    ),
    Target(
        "engine: one MLP 784-256-10 step over hand-written numpy",
        "engine",
        lambda e: _get(e, "mlp_784_256_10_b64", "engine_vs_numpy"),
        1.1,
    ),
    Target(
        "engine: one XOR step over hand-written numpy", "engine", lambda e: _get(e, "xor_2_4_1", "engine_vs_numpy"), 2.0
    ),
    Target(
        "engine: the MLP step over PyTorch eager, one thread",
        "engine",
        lambda e: _vs_torch(e, "mlp_784_256_10_b64"),
        1.0,
    ),
    Target("engine: the XOR step over PyTorch eager, one thread", "engine", lambda e: _vs_torch(e, "xor_2_4_1"), 1.0),
    Target(
        "backward: a chain of 10^5 nodes, microseconds per node",
        "backward",
        lambda b: _get(b, "tensor/1e5", "us_per_node"),
        2.0,
    ),
    Target(
        "backward: a chain of 10^5 nodes, bytes per node",
        "backward",
        lambda b: _get(b, "tensor/1e5", "bytes_per_node"),
        600,
    ),
]


def check(results: dict) -> list[dict]:
    """Every target against this run's figures: met, missed, or not measured."""
    rows = []
    for target in TARGETS:
        figure = target.read(results[target.suite]) if target.suite in results else None
        met = None if figure is None else figure <= target.limit  # None: not measured in this run
        rows.append({"target": target.what, "limit": target.limit, "figure": figure, "met": met})
    return rows


def table(rows: list[dict]) -> str:
    """The targets as the terminal shows them after the suites' figures."""
    words = {True: "met", False: "MISSED", None: "not measured"}
    width = max(len(row["target"]) for row in rows)
    lines = ["== targets"]
    for row in rows:
        figure = "-" if row["figure"] is None else f"{row['figure']:g}"
        lines.append(f"  {row['target']:<{width}}  {figure:>8} / {row['limit']:g}  {words[row['met']]}")
    return "\n".join(lines)

"""The environment variables by which the grader tells a pytest process what to grade.

Each is read only from the orders (grader.harness.main reads them, then pytest runs), never while
Python starts or imports pytest, so a process started ahead of time can be given them late
(grader.grading.pytest_process). A new one belongs here under the same rule. (ONE_BLAS_THREAD is the
exception: a process starts with it.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping

IMPL_ENV = "IMPL"  # mine, ref or a submission's path: the code under test (plain `pytest` reads it too)
CPU_ENV = "LABKIT_CPU"  # behind the wall: the core a session keeps to with its worker (absent: where it starts)
ISOLATION_ENV = "LABKIT_ISOLATION"  # "in-process" (default) or "worker": behind the wall
LAB_ENV = "LABKIT_LAB"  # the lab a pytest session grades (its worker can start before collection)
LIMITS_ENV = "LABKIT_LIMITS"  # JSON object: the lab's [limits] as the grader decided them (lab.toml, then --limit)
PARENT_ENV = "LABKIT_PARENT_PID"  # the grader process: the session dies with it
PROGRESS_ENV = "LABKIT_PROGRESS"  # the file the session streams its progress to
QUEUE_ENV = "LABKIT_QUEUE"  # set: submissions to grade in turn follow the orders (grader.harness.incoming)
SANDBOX_LEVEL_ENV = "LABKIT_SANDBOX_LEVEL"  # the sandbox level the grader chose (grader.wall.sandbox.level)
TIMED_OUT_ENV = "LABKIT_TIMED_OUT"  # set: a test of this submission timed out in an earlier process of its run
TASK_ENV = "LABKIT_TASK"  # the one task a run grades (`grader run --task`); the others' tests are deselected
# Not a run's order: set by `make bench` for every process it starts (grader.wall.profile).
WALL_PROFILE_ENV = "LABKIT_WALL_PROFILE"  # a file each wall session appends where its time went to
# Not a run's order: set by `grader gradients` (grader.testing.expected_gradients) for the runs it records.
RECORD_GRADIENTS_ENV = "LABKIT_RECORD_GRADIENTS"  # a file each computed expected gradient is added to

# Read once numpy is imported, so set when a process starts: a grading process (and its worker) keeps
# to one BLAS thread. Parallelism belongs to the batch grader (a job a core), the tests' arrays are
# small, and OpenBLAS's threads cost each process about 0.15 s of CPU at its start.
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

RUN_ENV = frozenset(
    {
        CPU_ENV,
        IMPL_ENV,
        ISOLATION_ENV,
        LAB_ENV,
        LIMITS_ENV,
        PARENT_ENV,
        PROGRESS_ENV,
        QUEUE_ENV,
        SANDBOX_LEVEL_ENV,
        TASK_ENV,
        TIMED_OUT_ENV,
    }
)


def ordered_limits(orders: Mapping[str, str]) -> dict | None:
    """The lab's limits the orders give (LIMITS_ENV, as the runner wrote them), or None: the lab's own."""
    value = orders.get(LIMITS_ENV)
    return json.loads(value) if value else None

"""One core for a pytest process and its worker.

Every operation a test makes on the code under test is a request to the worker and a reply
from it, and the two processes take turns: one always waits for the other. On two cores each
turn wakes the other core (an interrupt between cores; on a virtual machine an exit to the
hypervisor), which costs more than the turn's own work. Pinned to one core the two just
switch: a round trip measured 141 us across the cores of a 2-core VM and 46 us on one
(bubblewrap, `getattr` of a number). A batch gives each of its jobs a core of its own; a
single run takes the core it starts on.
"""

from __future__ import annotations

import contextlib
import os


def allowed() -> list[int]:
    """The CPUs this process may run on (none where the system cannot say)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return []


def for_job(index: int, jobs: int) -> int | None:
    """The core of job ``index`` of a batch of ``jobs``: the allowed ones in turn. None for a batch of one
    job (it takes the core it starts on, as a single run does: batches run side by side, by a
    test suite or a person, would all take the first one) or where only one core is allowed."""
    cpus = allowed()
    return cpus[index % len(cpus)] if len(cpus) > 1 and jobs > 1 else None


def running_on() -> int | None:
    """The CPU this process runs on now (field 39 of /proc/self/stat), or None."""
    try:
        with open("/proc/self/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[36])
    except (OSError, IndexError, ValueError):
        return None


def pin_this_process(cpu: int | None) -> int | None:
    """Keep this process on ``cpu`` (None: the one it runs on now); the CPU, or None if it was not pinned."""
    cpus = allowed()
    if len(cpus) < 2:
        return None
    if cpu is None:
        cpu = running_on()
    if cpu not in cpus:
        return None
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, {cpu})
        return cpu
    return None

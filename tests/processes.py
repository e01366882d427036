"""Processes, for the kit's tests: a grader command started as from a terminal, interrupted the ways the kernel
may do it, and what it started, and whether that still runs."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

GRADER = shutil.which("grader", path=str(Path(sys.executable).parent))


def start(args: list[str], **popen) -> subprocess.Popen:
    """``grader args``, its output captured as text, with Ctrl-C's default handling whatever the tests inherited:
    a shell without job control starts its background commands with SIGINT ignored, which Python and so the
    grader keep (as `nohup` wants)."""
    command = ["env", "--default-signal=INT", GRADER, *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def to_the_process(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGINT)


def to_another_thread(process: subprocess.Popen) -> None:
    """SIGINT to a thread of ``process`` other than its main one, as the kernel may deliver a process's signal;
    Python handles it in the main thread, which must wake to see it."""
    libc = ctypes.CDLL(None, use_errno=True)
    threads = [int(tid) for tid in os.listdir(f"/proc/{process.pid}/task") if int(tid) != process.pid]
    assert threads and libc.tgkill(process.pid, threads[0], signal.SIGINT) == 0, ctypes.get_errno()


def alive(pid: int | str) -> bool:
    """Whether process ``pid`` still runs, a second from now at most (a killed one may wait to be reaped)."""
    for _ in range(20):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):  # dead, its parent not yet told
            return False
        time.sleep(0.05)
    return True


def descendants(pid: int) -> set[int]:
    """Every process started by ``pid``, by its children and so on, running now."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found

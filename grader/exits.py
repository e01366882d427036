"""Waiting for a process to exit, woken by the exit itself.

``Popen.wait(timeout)`` polls: it sleeps 0.5, 1, 2, 4, 8, 16 ms and so on between looks, so an exit
is seen up to 16 ms late (measured: bubblewrap's exit after a sandbox's quit was seen at 15.6 or
31.9 ms, never between). Every run waits for two exits, its sandbox's and its pytest process's. On
Linux a pidfd becomes readable when its process exits, and ``select`` wakes on it at once.
"""

from __future__ import annotations

import os
import select
import subprocess


def wait(proc: subprocess.Popen, timeout: float) -> int | None:
    """``proc``'s exit status if it exits within ``timeout`` seconds, else None."""
    if proc.returncode is not None:
        return proc.returncode
    pidfd = _pidfd(proc)
    if pidfd is None:
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
    try:
        exited, _, _ = select.select([pidfd], [], [], timeout)
    finally:
        os.close(pidfd)
    return proc.wait() if exited else None  # exited: the wait reaps it at once


def _pidfd(proc) -> int | None:
    """A pidfd of ``proc``, or None: not Linux 5.3 or later, or not a ``Popen`` (something that waits as
    one does is waited for its own way). A Popen's pid is this process's child, unreaped until its
    wait: no other process can have that pid while it is looked at."""
    if not isinstance(proc, subprocess.Popen):
        return None
    try:
        return os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return None

"""The grader's scratch folders, and the sweep that deletes those of a grader that was killed.

A grader killed outright (kill -9, a reboot, a lost CI runner) cannot delete its scratch
folders, which hold copies of students' submissions. Each folder therefore holds a lock
file that its owner keeps locked while it lives: the kernel drops the lock when the owner
dies, whatever pid namespace it ran in, so the next grader to start can tell a dead
owner's folder from a live one and delete it.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

PREFIX = "labkit-"
OWNER = ".owner"  # locked by the folder's owner for as long as it lives


class Folder:
    """A scratch folder under the temp directory, locked by this process until ``remove``."""

    def __init__(self, kind: str):
        self.path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-"))
        # Locked before it takes its name: a sweep that finds the lock file finds it locked.
        pending = self.path / f"{OWNER}.new"
        self._lock = open(pending, "w")  # noqa: SIM115 - held until remove()
        fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(pending, self.path / OWNER)

    def remove(self) -> None:
        self._lock.close()
        shutil.rmtree(self.path, ignore_errors=True)


@contextlib.contextmanager
def temporary(kind: str) -> Iterator[Path]:
    """A scratch folder for the duration of a ``with`` block, like tempfile.TemporaryDirectory."""
    folder = Folder(kind)
    try:
        yield folder.path
    finally:
        folder.remove()


def _has_mounts_under(path: Path) -> bool:
    """Whether something is mounted inside ``path`` (never delete through a mount)."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return True  # cannot tell: keep the folder
    inside = str(path) + "/"
    return any(line.split()[4].startswith(inside) for line in mounts if len(line.split()) > 4)


def _owner_is_gone(folder: Path) -> bool:
    try:
        with open(folder / OWNER) as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
    except OSError:  # no lock file (still being made, or not ours), or its owner holds it
        return False


@functools.cache
def sweep_once() -> None:
    """Sweep once per process, before its first grading (the runner calls this)."""
    sweep()


def sweep(root: Path | None = None) -> list[Path]:
    """Delete the scratch folders whose owner is no longer running; return them."""
    root = Path(root or tempfile.gettempdir())
    removed = []
    try:
        candidates = list(root.glob(f"{PREFIX}*"))
    except OSError:
        return removed
    for folder in candidates:
        try:  # another grader may be creating or deleting any of them at this moment
            if folder.is_symlink() or not folder.is_dir() or folder.stat().st_uid != os.geteuid():
                continue
        except OSError:
            continue
        if _owner_is_gone(folder) and not _has_mounts_under(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed

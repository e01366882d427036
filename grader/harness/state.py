"""The grading session's state: what the grader ordered, and what this pytest process holds.

The grader decides once what a run grades and how (the lab, the code, the isolation,
the sandbox level, the limits) and passes it down in the variables of grader.env. They
are read here, once, when pytest configures the plugin; everything else in this process
asks the ``Session`` kept in ``config.stash``, never the environment. Code that has no
``config`` at hand (the seam, the helpers a test calls) reaches the same object through
``current()``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grader import labs
from grader.env import (
    CPU_ENV,
    IMPL_ENV,
    ISOLATION_ENV,
    LAB_ENV,
    PARENT_ENV,
    PROGRESS_ENV,
    QUEUE_ENV,
    SANDBOX_LEVEL_ENV,
    TASK_ENV,
    TIMED_OUT_ENV,
    ordered_limits,
)

SESSION_KEY = pytest.StashKey["Session"]()


@dataclass
class Session:
    """One pytest session's orders and state. Its fields other than the orders change only through its methods."""

    # The orders, as the grader gave them (plain `pytest` gives only IMPL).
    impl: str = "mine"  # mine, ref, or a submission's path
    isolation: str = "in-process"  # or "worker": behind the wall
    lab_id: str | None = None  # the lab a grading run is for
    limits: dict | None = None  # that lab's limits as the grader decided them (lab.toml and overrides)
    sandbox_level: str | None = None  # behind the wall: the level the grader chose
    queue: bool = False  # grade the submissions the grader hands over in turn (grader.harness.incoming)
    progress: Path | None = None  # the stream the plugin writes for the grader
    parent: int | None = None  # the grader's pid: this session dies with it
    task: str | None = None  # the one task to grade (the others' tests are deselected)
    cpu: int | None = None  # behind the wall: the core to keep to with the worker (None: the one it starts on)

    # What this process holds.
    handles: list = field(default_factory=list)  # every lab handle given to a test file
    selected: Path | None = None  # the submission a queue is grading now
    stop_at_first_failure: bool = False  # the queue entry being graded asks to skip its tests after a failure
    only: frozenset[str] | None = None  # the queue entry being graded asks for these tests only (by id)
    record_calls: bool = False  # the queue entry asks which of its functions each test calls (grader.harness.calls)
    submission_failed: bool = False  # a graded test of that submission has failed
    wall: object | None = None  # the wall session of the submission being graded (grader.wall.session)
    # A test of the submission being graded timed out: the tests after it have the shorter limit
    # (grader.limits.Limits.after_a_timeout). Ordered by the grader for a run's fresh process after a hang.
    timed_out: bool = False

    @classmethod
    def from_environment(cls) -> Session:
        env = os.environ
        return cls(
            impl=env.get(IMPL_ENV) or "mine",
            isolation=env.get(ISOLATION_ENV) or "in-process",
            lab_id=env.get(LAB_ENV) or None,
            limits=ordered_limits(env),
            sandbox_level=env.get(SANDBOX_LEVEL_ENV) or None,
            queue=bool(env.get(QUEUE_ENV)),
            progress=Path(env[PROGRESS_ENV]) if env.get(PROGRESS_ENV) else None,
            parent=int(env[PARENT_ENV]) if env.get(PARENT_ENV) else None,
            task=env.get(TASK_ENV) or None,
            cpu=int(env[CPU_ENV]) if env.get(CPU_ENV, "").isdigit() else None,
            timed_out=bool(env.get(TIMED_OUT_ENV)),
        )

    @property
    def behind_the_wall(self) -> bool:
        return self.isolation == "worker"

    @property
    def for_the_grader(self) -> bool:
        """The grader runs this session (it reads the stream): a person running pytest gets pytest's reports."""
        return self.progress is not None

    def lab(self, lab_id: str) -> labs.Lab:
        """The lab, with the limits the grader decided for this run if it is the run's lab."""
        lab = labs.get(lab_id)
        return lab.with_limits(self.limits) if lab.id == self.lab_id else lab

    def select(self, path: Path) -> None:
        """Aim every lab handle at the submission ``path`` (a queue's next one)."""
        self.selected = path
        self.timed_out = False
        for handle in self.handles:
            handle.select(path)

    def code_under_test_files(self) -> set[str]:
        """Files whose frames are the code under test's (to point at the line that failed)."""
        if self.selected is not None:
            return {str(self.selected.resolve())}
        if self.impl == "ref":
            return {str(p) for p in labs.REFERENCE_DIR.rglob("*.py")}
        if self.impl == "mine":
            return {str(p) for p in labs.LABS_DIR.glob("*/starter.py")}
        return {str(Path(self.impl).resolve())}

    def a_test_timed_out(self) -> None:
        """A test of the submission being graded timed out: the tests after it get the shorter limit."""
        if not self.timed_out and self.wall is not None:
            self.wall.after_a_timeout()
        self.timed_out = True

    # -- the wall ---------------------------------------------------------------------------
    def sync(self) -> None:
        """Wait for the current test's pending operations behind the wall; raise the first error among them."""
        if self.wall is not None and self.wall.current is not None:
            self.wall.current.sync()

    def end_test(self) -> None:
        if self.wall is not None:
            self.wall.end()

    def close_wall(self) -> None:
        """Close the current submission's wall session (its sandbox stays for the next one)."""
        wall, self.wall = self.wall, None
        if wall is not None:
            wall.close()

    def close(self) -> None:
        """Stop everything this session started behind the wall (at the end of the pytest session)."""
        self.close_wall()
        for handle in self.handles:
            handle.close()


_current: Session | None = None  # the session in config.stash, for code without pytest's config


def start(config) -> Session:
    """The session of this pytest process, read from its orders once and kept in ``config.stash``."""
    global _current
    session = _current = Session.from_environment()
    config.stash[SESSION_KEY] = session
    return session


def current() -> Session:
    """This process's session (outside a configured pytest run, one read from the environment)."""
    global _current
    if _current is None:
        _current = Session.from_environment()
    return _current

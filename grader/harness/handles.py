"""The seam between a lab's tests and the code under test: the handle a test file holds as ``lab``.

A lab's test file never imports a starter or a reference. It asks for the lab's public
names: ``lab = under_test("ch06")`` then ``lab.Tensor(...)``. The session's orders decide
*which* code answers (``IMPL=mine``, ``IMPL=ref`` or ``IMPL=path/to/file.py``) and *where*
it runs: in this process (``LabUnderTest``) or behind the wall (``RemoteLab``), so the
same test file grades anyone's code.
"""

from __future__ import annotations

from pathlib import Path

from grader import labs, verdicts
from grader.harness import ahead, loader, state
from grader.implementation import Implementation
from grader.limits import Limits
from grader.verdicts import SubmissionError


class LabHandle:
    """The lab's public names, for the implementation the session selects."""

    def __init__(self, session: state.Session, lab_id: str):
        self.session = session
        self.lab = session.lab(lab_id)
        self.implementation = Implementation.parse(session.impl, self.lab)
        session.handles.append(self)

    def check_public(self, name: str) -> None:
        if name.startswith("_") or name not in self.lab.public:
            raise AttributeError(f"{name} is not one of lab {self.lab.id}'s public names {list(self.lab.public)}")

    def select(self, path: Path) -> None:
        """Answer from the submission ``path`` from now on (a queue's next one)."""
        self.implementation = Implementation("submission", path)

    def close(self) -> None:
        """Release what the handle started (at the end of the session)."""

    def will_import(self) -> bool:
        """Whether the next use imports the code under test into this process (never behind the wall: the
        worker imports it, timed apart)."""
        return False


class LabUnderTest(LabHandle):
    """The lab's public names from the implementation loaded in this process, on first use."""

    def __init__(self, session: state.Session, lab_id: str):
        super().__init__(session, lab_id)
        self._module = None
        self._failure: SubmissionError | None = None

    def select(self, path: Path) -> None:
        super().select(path)
        self._module = None
        self._failure = None

    def will_import(self) -> bool:
        return self._module is None and self._failure is None

    def _load(self):
        if self._failure is not None:
            raise self._failure
        if self._module is None:
            try:
                self._module = loader.load(self.lab, self.implementation)
            except SubmissionError as exc:
                self._failure = exc
                raise
        return self._module

    def __getattr__(self, name: str):
        self.check_public(name)
        module = self._load()
        try:
            return getattr(module, name)
        except AttributeError:
            raise verdicts.missing_name(self.lab, name) from None


class RemoteLab(LabHandle):
    """The lab's public names from a worker behind the wall (see grader.wall).

    Every submission of this process is loaded in turn into one sandbox, started from the
    run's orders (grader.harness.ahead) or else with the handle: numpy is imported in it while
    this process imports and starts pytest.
    """

    def __init__(self, session: state.Session, lab_id: str):
        super().__init__(session, lab_id)
        self._box = None
        path = self.implementation.path
        if not session.queue and path is not None and path.is_file():
            self._wall()  # the worker gets ready while pytest collects the tests
        else:
            self.sandbox()

    def _wall(self):
        """The wall session of the submission under test, started on first use."""
        if self.session.wall is None:
            from grader.wall.session import WallSession

            path = self.implementation.path
            if path is None:
                raise SubmissionError("the reference is graded in-process; the wall is for submission files")
            if not path.is_file():
                raise verdicts.no_file(path.name)
            self.session.wall = WallSession(self.lab, path, self._limits(), box=self.sandbox())
            if self.session.timed_out:  # a fresh process after a hang (grader.env.TIMED_OUT_ENV)
                self.session.wall.after_a_timeout()
        return self.session.wall

    def _limits(self):
        return Limits.from_lab(self.lab.limits)

    def sandbox(self):
        """The running sandbox to load the next submission into (a new one if the last one died)."""
        from grader.wall import cpus, sandbox

        if self._box is None or not self._box.alive:
            if self._box is not None:
                self._box.close()
            limits, level = self._limits(), self.session.sandbox_level
            started_ahead = ahead.take(ahead.key(self.lab, limits, level))
            self._box = started_ahead or sandbox.start(self.lab, limits, chosen=level)
            # Once the zygote has started (its imports run on another core meanwhile): this process
            # and every child of the zygote share one core from now on (grader.wall.cpus says why).
            self._box.cpu = cpus.pin_this_process(self.session.cpu)
        return self._box

    def select(self, path: Path) -> None:
        super().select(path)
        self.session.close_wall()

    def close(self) -> None:
        if self._box is not None:
            self._box.close()
            self._box = None

    def __getattr__(self, name: str):
        self.check_public(name)
        return self._wall().public(name)


def under_test(lab_id: str):
    """The lab's public names for the implementation under test (see the module docstring)."""
    session = state.current()
    if session.behind_the_wall:
        lab = labs.get(lab_id)
        existing = [h for h in session.handles if isinstance(h, RemoteLab) and h.lab.id == lab.id]
        return existing[0] if existing else RemoteLab(session, lab_id)
    return LabUnderTest(session, lab_id)

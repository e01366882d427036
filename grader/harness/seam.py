"""The seam between a lab's tests and the code under test.

A lab's test file never imports a starter or a reference. It asks for the lab's
public names here: ``lab = under_test("ch06")`` then ``lab.Tensor(...)``. The seam
decides *which* code answers (``IMPL=mine``, ``IMPL=ref`` or ``IMPL=path/to/file.py``)
and *where* it runs, so the same test file grades anyone's code.

Loading is lazy and its failure is remembered: a submission that does not import
makes every test fail with the same clear message instead of breaking collection.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import itertools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from grader import labs
from grader.env import IMPL_ENV, ISOLATION_ENV, QUEUE_ENV
from grader.harness.failures import SubmissionError

NO_REFERENCE = "the reference solution is not part of the student edition"


@dataclass(frozen=True)
class Implementation:
    """Which code is under test: the student's starter, the reference, or any submission file."""

    kind: str  # "mine", "ref" or "submission"
    path: Path | None  # the file for mine and submission; None for the reference package

    @classmethod
    def parse(cls, value: str, lab: labs.Lab) -> Implementation:
        """``mine``, ``ref``, or a path to a submission file."""
        if value == "mine":
            return cls("mine", lab.starter)
        if value == "ref":
            return cls("ref", None)
        return cls("submission", Path(value).resolve())

    @property
    def env_value(self) -> str:
        return str(self.path) if self.kind == "submission" else self.kind

    def source_files(self, lab: labs.Lab) -> list[Path]:
        """The files whose frames belong to the code under test (for locating its errors)."""
        if self.path is not None:
            return [self.path]
        return sorted(lab.reference_dir.glob("*.py"))

    def display_name(self, lab: labs.Lab) -> str:
        """A name without absolute paths, for reports."""
        if self.kind == "ref":
            return f"reference/{lab.id}"
        if self.kind == "mine":
            return f"labs/{lab.id}/starter.py"
        return self.path.name

    def sha256(self, lab: labs.Lab) -> str:
        digest = hashlib.sha256()
        for path in self.source_files(lab):
            digest.update(path.read_bytes())
        return digest.hexdigest()


def implementation_from_env(lab: labs.Lab) -> Implementation:
    return Implementation.parse(os.environ.get(IMPL_ENV, "mine") or "mine", lab)


def describe_import_failure(exc: BaseException, name: str) -> SubmissionError:
    """One message naming the cause and the line, for a file that cannot be imported."""
    if isinstance(exc, SyntaxError):
        where = f"line {exc.lineno}" if exc.lineno else "an unknown line"
        return SubmissionError(
            f"{name} does not parse: SyntaxError at {where}: {exc.msg}",
            "run `python -m py_compile` on your file to see the error in context",
        )
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(name):
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" at line {line}" if line else ""
    if isinstance(exc, SystemExit):
        return SubmissionError(
            f"{name} called exit() while being imported{where}",
            "remove top-level code that exits; put experiments under `if __name__ == '__main__':`",
        )
    return SubmissionError(
        f"importing {name} raised {type(exc).__name__}{where}: {exc}",
        "your file must import cleanly: keep experiments under `if __name__ == '__main__':`",
    )


_load_counter = itertools.count()


def _load_in_process(lab: labs.Lab, impl: Implementation):
    if impl.kind == "ref":
        if not lab.reference_dir.is_dir():  # the student edition ships without it
            raise SubmissionError(NO_REFERENCE, f"grade your own work: make lab LAB={lab.id}")
        return importlib.import_module(lab.reference_package)
    path = impl.path
    if not path.is_file():
        raise SubmissionError(f"no file to grade at {path.name}", "check the path you gave")
    module_name = f"labkit_under_test_{lab.id}_{next(_load_counter)}"  # a queue loads many files
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # classes defined in it need their module registered
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - whatever the file does at import is reported, not raised
        sys.modules.pop(module_name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise describe_import_failure(exc, path.name) from None
    return module


class _LabHandle:
    """What the tests hold as ``lab``: the lab's public names, for the implementation the environment selects."""

    def __init__(self, lab_id: str):
        self._lab = labs.get(lab_id)
        self._impl = implementation_from_env(self._lab)

    @property
    def lab(self) -> labs.Lab:
        return self._lab

    @property
    def implementation(self) -> Implementation:
        return self._impl

    def _check_public(self, name: str) -> None:
        if name.startswith("_") or name not in self._lab.public:
            raise AttributeError(f"{name} is not one of lab {self._lab.id}'s public names {list(self._lab.public)}")


class LabUnderTest(_LabHandle):
    """The lab's public names from the implementation loaded in this process, on first use."""

    def __init__(self, lab_id: str):
        super().__init__(lab_id)
        self._module = None
        self._failure: SubmissionError | None = None
        _local_labs.append(self)

    def _select(self, path: Path) -> None:
        self._impl = Implementation("submission", path)
        self._module = None
        self._failure = None

    def _load(self):
        if self._failure is not None:
            raise self._failure
        if self._module is None:
            try:
                self._module = _load_in_process(self._lab, self._impl)
            except SubmissionError as exc:
                self._failure = exc
                raise
        return self._module

    def __getattr__(self, name: str):
        self._check_public(name)
        module = self._load()
        try:
            return getattr(module, name)
        except AttributeError:
            raise SubmissionError(
                f"the code under test does not define {name}",
                f"lab {self._lab.id} needs these names at the top level of your file: {', '.join(self._lab.public)}",
            ) from None


# Every lab handle of this process, re-aimed by select_submission when a queue moves on.
_local_labs: list[LabUnderTest] = []
_remote_labs: list[RemoteLab] = []
_selected: list[Path] = []  # the submission a queue is grading now


class RemoteLab(_LabHandle):
    """The lab's public names from a worker behind the wall (see grader.wall)."""

    def __init__(self, lab_id: str):
        super().__init__(lab_id)
        self._session = None
        self._box = None  # the sandbox every submission of this process is loaded into, in turn
        _remote_labs.append(self)
        path = self._impl.path
        if not os.environ.get(QUEUE_ENV) and path is not None and path.is_file():
            self._start()  # the worker gets ready while pytest collects the tests
        else:
            self._sandbox()  # a queue's: numpy is imported while pytest collects the tests

    def _select(self, path: Path) -> None:
        self._impl = Implementation("submission", path)
        self._session = None  # closed by grader.wall.close, with its sandbox

    def _start(self):
        if self._session is None:
            from grader import wall

            path = self._impl.path
            if path is None:
                raise SubmissionError("the reference is graded in-process; the wall is for submission files")
            if not path.is_file():
                raise SubmissionError(f"no file to grade at {path.name}", "check the path you gave")
            self._session = self._new_session(path)
            wall.register(self._session)
        return self._session

    def _sandbox(self):
        """The running sandbox to load the next submission into (a new one if the last one died)."""
        from grader.wall import sandbox

        if self._box is None or not self._box.alive:
            if self._box is not None:
                self._box.close()
            self._box = sandbox.start(self._lab, sandbox.Limits.from_lab(self._lab.limits))
        return self._box

    def _new_session(self, path: Path):
        from grader.wall.sandbox import Limits
        from grader.wall.session import WallSession

        return WallSession(self._lab, path, Limits.from_lab(self._lab.limits), box=self._sandbox())

    def _close_sandbox(self) -> None:
        if self._box is not None:
            self._box.close()
            self._box = None

    def __getattr__(self, name: str):
        self._check_public(name)
        return self._start().public(name)


def isolation_from_env() -> str:
    return os.environ.get(ISOLATION_ENV, "in-process") or "in-process"


def under_test(lab_id: str):
    """The lab's public names for the implementation under test (see the module docstring)."""
    if isolation_from_env() == "worker":
        lab = labs.get(lab_id)
        existing = [remote for remote in _remote_labs if remote.lab.id == lab.id]
        return existing[0] if existing else RemoteLab(lab_id)
    return LabUnderTest(lab_id)


def select_submission(path: Path) -> None:
    """Aim every lab handle at the submission ``path`` (a queue's next one).

    In-process, a queue is for trusted code only (the kit's own mutants): every file runs
    in the one test process.
    """
    _selected[:] = [path]
    for handle in (*_local_labs, *_remote_labs):
        handle._select(path)


def code_under_test_files() -> set[str]:
    """Files whose frames are the code under test's (to point at the line that failed)."""
    if _selected:
        return {str(_selected[0].resolve())}
    impl = os.environ.get(IMPL_ENV, "mine")
    if impl == "ref":
        return {str(p) for p in (labs.REFERENCE_DIR).rglob("*.py")}
    if impl == "mine":
        return {str(p) for p in labs.LABS_DIR.glob("*/starter.py")}
    return {str(Path(impl).resolve())}


def close_sandboxes() -> None:
    """Stop the sandboxes of this process (at the end of the pytest session)."""
    for remote in _remote_labs:
        remote._close_sandbox()


def read_many(pairs) -> list:
    """``[getattr(obj, name) for obj, name in pairs]``; behind the wall, in one round trip."""
    pairs = list(pairs)
    if isolation_from_env() == "worker" and pairs:
        from grader.wall.proxy import RemoteObject

        if all(isinstance(obj, RemoteObject) for obj, _ in pairs):
            return pairs[0][0]._labkit_channel.read_many(pairs)
    return [getattr(obj, name) for obj, name in pairs]


def beside(function, *args, **kwargs):
    """``function(*args, **kwargs)``, where ``function`` is one of a lab's trusted loops (a module
    listed in its lab.toml ``helpers``) and ``args`` hold objects of the code under test.

    Behind the wall the loop runs in the worker, next to the code, as one request: a loop
    of thousands of operations costs one round trip, not thousands. Its result comes back
    as plain data and is no more trusted than any other value read from the worker.
    """
    if isolation_from_env() == "worker":
        from grader.wall.proxy import RemoteObject

        remote = [a for a in args if isinstance(a, RemoteObject)]
        if remote:
            channel = remote[0]._labkit_channel
            name = f"{function.__module__.rpartition('.')[2]}.{function.__name__}"
            return channel.request("helper", None, name=name, args=args, kwargs=kwargs)
    return function(*args, **kwargs)


def sync() -> None:
    """Make pending operations of the code under test finish (behind the wall they may lag)."""
    if isolation_from_env() == "worker":
        from grader import wall

        wall.sync()

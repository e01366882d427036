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
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from . import labs

IMPL_ENV = "IMPL"


class SubmissionError(Exception):
    """The code under test cannot be used at all (does not import, lacks a public name)."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


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
    if isinstance(exc, SystemExit):
        return SubmissionError(
            f"{name} called exit() while being imported",
            "remove top-level code that exits; put experiments under `if __name__ == '__main__':`",
        )
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.endswith(name):
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" at line {line}" if line else ""
    return SubmissionError(
        f"importing {name} raised {type(exc).__name__}{where}: {exc}",
        "your file must import cleanly: keep experiments under `if __name__ == '__main__':`",
    )


def _load_in_process(lab: labs.Lab, impl: Implementation):
    if impl.kind == "ref":
        return importlib.import_module(lab.reference_package)
    path = impl.path
    if not path.is_file():
        raise SubmissionError(f"no file to grade at {path.name}", "check the path you gave")
    module_name = f"labkit_under_test_{lab.id}"
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


class LabUnderTest:
    """The lab's public names, resolved lazily from the implementation the environment selects."""

    def __init__(self, lab_id: str):
        self._lab = labs.get(lab_id)
        self._impl = implementation_from_env(self._lab)
        self._module = None
        self._failure: SubmissionError | None = None

    @property
    def lab(self) -> labs.Lab:
        return self._lab

    @property
    def implementation(self) -> Implementation:
        return self._impl

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
        if name.startswith("_") or name not in self._lab.public:
            raise AttributeError(f"{name} is not one of lab {self._lab.id}'s public names {list(self._lab.public)}")
        module = self._load()
        try:
            return getattr(module, name)
        except AttributeError:
            raise SubmissionError(
                f"the code under test does not define {name}",
                f"lab {self._lab.id} needs these names at the top level of your file: {', '.join(self._lab.public)}",
            ) from None


def under_test(lab_id: str) -> LabUnderTest:
    """The lab's public names for the implementation under test (see the module docstring)."""
    return LabUnderTest(lab_id)

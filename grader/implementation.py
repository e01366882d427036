"""Which code is under test: a student's starter, the reference, or a submission file.

A value shared by the three processes: the grader chooses it, passes it to the pytest
process as ``IMPL`` (its ``env_value``), and names it in the report.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from grader import labs
from grader.env import IMPL_ENV


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
    """What ``IMPL`` names (mine by default), as plain `pytest` and the grader's pytest process read it."""
    return Implementation.parse(os.environ.get(IMPL_ENV, "mine") or "mine", lab)

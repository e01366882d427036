"""Where the kit's tests find a lab's instructor-only material: ``labs/<id>/instructor/``.

A lab is its folder. Besides what a student sees, it holds an ``instructor`` package that the
student edition does not ship (grader.kit.edition):

    mutants.py             MUTANTS: the catalogue of realistic student bugs (tests/mutation.py); every lab has one
    test_figures.py        the reference reproduces the figures the lab's seed document prints (run by `make test`)
    submissions/*.py       correct submissions written independently of the reference (correct_*.py)
    hostile/__init__.py    HOSTILE: the lab's entries in the red team's catalogue (tests/hostile/catalogue.py)
    hostile/*.py           the hostile and broken submissions those entries grade
    student_bugs/__init__.py  STUDENT_BUGS: bugs written apart from the kit, a held-out check of its hints
    student_bugs/correct.py  the solution those bugs are edits of, one each
    tuned/visible_only.py  a submission tuned to the visible tests: passes all of them, fails every hidden test

Every path and module name of that material is spelled here, and only here.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path

from grader import labs

MUTANTS = "mutants.py"
SUBMISSIONS = "submissions"
HOSTILE = "hostile"
TUNED = "tuned/visible_only.py"
STUDENT_BUGS = "student_bugs"
STUDENT_BUGS_BASE = "correct.py"


class MissingMaterial(LookupError):
    """A lab lacks instructor material the kit's tests require: the message names the file to write."""


def _lab(lab: str | labs.Lab) -> labs.Lab:
    return lab if isinstance(lab, labs.Lab) else labs.get(lab)


def folder(lab: str | labs.Lab) -> Path:
    """``labs/<id>/instructor/``, whether it exists or not."""
    return _lab(lab).instructor


def relpath(path: Path) -> str:
    """``path`` relative to the kit, as a message shows it."""
    try:
        return path.relative_to(labs.KIT_ROOT).as_posix()
    except ValueError:
        return str(path)


def _module(lab: labs.Lab, name: str):
    """``labs.<folder>.instructor.<name>``, imported."""
    return importlib.import_module(f"labs.{lab.folder.name}.{labs.INSTRUCTOR}.{name}")


def mutants(lab: str | labs.Lab) -> list:
    """The lab's mutant catalogue (``MUTANTS`` of ``instructor/mutants.py``); MissingMaterial if it has none."""
    lab = _lab(lab)
    path = folder(lab) / MUTANTS
    if not path.is_file():
        raise MissingMaterial(
            f"lab {lab.id} has no mutant catalogue: write {relpath(path)} defining MUTANTS, a list of "
            "tests.mutation.Mutant (realistic student bugs as edits of the reference, each with the lab tests "
            f"that catch it; see labs/ch06/instructor/{MUTANTS}), and {relpath(folder(lab) / '__init__.py')} "
            "(a docstring saying what the folder holds) if the folder is new"
        )
    return _module(lab, MUTANTS.removesuffix(".py")).MUTANTS


def submissions(lab: str | labs.Lab) -> list[Path]:
    """The lab's independently written correct submissions (``instructor/submissions/correct_*.py``), sorted."""
    return sorted((folder(lab) / SUBMISSIONS).glob("correct_*.py"))


def submission_text(lab: str | labs.Lab, name: str) -> str:
    """The text of the lab's correct submission ``name`` (its file's stem), written apart from the reference."""
    (path,) = [p for p in submissions(lab) if p.stem == name]
    return path.read_text(encoding="utf-8")


def tuned(lab: str | labs.Lab) -> Path:
    """The lab's submission tuned to its visible tests (``instructor/tuned/visible_only.py``), which its hidden
    tests must catch; MissingMaterial if it has none."""
    path = folder(lab) / TUNED
    if not path.is_file():
        raise MissingMaterial(
            f"lab {_lab(lab).id} has hidden tests but no submission tuned to its visible ones: write {relpath(path)}, "
            "one file that passes every test of test_lab.py and fails every hidden test"
        )
    return path


def hostile_folder(lab: str | labs.Lab) -> Path:
    """Where the lab's hostile files are (``instructor/hostile/``)."""
    return folder(lab) / HOSTILE


def hostile(lab: str | labs.Lab) -> list:
    """The lab's red-team entries (``HOSTILE`` of ``instructor/hostile/__init__.py``), each with its lab set;
    none for a lab without one."""
    lab = _lab(lab)
    if not (hostile_folder(lab) / "__init__.py").is_file():
        return []
    entries = []
    for entry in _module(lab, HOSTILE).HOSTILE:
        if entry.lab not in ("", lab.id):
            raise ValueError(f"{relpath(hostile_folder(lab))}: entry {entry.file} names another lab, {entry.lab}")
        entries.append(dataclasses.replace(entry, lab=lab.id))
    return entries


@dataclasses.dataclass(frozen=True)
class StudentBug:
    """One entry of a lab's STUDENT_BUGS (tests/test_student_bugs.py grades them)."""

    name: str
    bug: str  # what the student did, in their words
    kind: str  # the bug it is: a kind of grader.testing.bugs.BUGS
    # The edit of correct.py that makes the submission (tests/mutation.py applies it, as a mutant's):
    # ``old`` occurs once in the function ``within``, and becomes ``new``.
    within: str
    old: str
    new: str
    named: bool = True  # whether the first failure's message and hint name that kind (as measured)


def student_bugs_folder(lab: str | labs.Lab) -> Path:
    """Where the lab's held-out student bugs are (``instructor/student_bugs/``)."""
    return folder(lab) / STUDENT_BUGS


def student_bugs(lab: str | labs.Lab) -> list[StudentBug]:
    """The lab's held-out student bugs (``STUDENT_BUGS`` of ``instructor/student_bugs/__init__.py``); none
    for a lab without one."""
    lab = _lab(lab)
    if not (student_bugs_folder(lab) / "__init__.py").is_file():
        return []
    return list(_module(lab, STUDENT_BUGS).STUDENT_BUGS)


def student_bugs_base(lab: str | labs.Lab) -> Path:
    """The correct submission the lab's student bugs are edits of, one each."""
    return student_bugs_folder(lab) / STUDENT_BUGS_BASE

"""Lab discovery: a lab is a folder under labs/ with a lab.toml; the grader knows nothing else about it."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath

from grader import limits as lab_limits

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

KIT_ROOT = Path(__file__).resolve().parent.parent
LABS_DIR = KIT_ROOT / "labs"
REFERENCE_DIR = KIT_ROOT / "reference"
# A lab's folder for the instructor only (its mutants, figures' tests, correct and hostile submissions):
# not in the student edition, not in the manifest of files a student must not change.
INSTRUCTOR = "instructor"


# A lab's hidden tests, declared in its lab.toml's [hidden] table: graded by the instructor's kit (batch,
# Gradescope, collect + batch), never in the student edition, so never in a fork or a student's own run.
HIDDEN = "hidden"
TIERS = ("visible", "hidden")  # a test's tier: from test_lab.py, or from a hidden test file
# The oracle's answers for a lab's tests, shipped (grader.testing.expected_gradients): a protected file
# wherever it is, and one a fork adds is a finding (grader.kit.manifest).
EXPECTED_GRADIENTS = "expected_gradients.json"


def _in_lab_folder(relpath: str, folder: str) -> bool:
    parts = relpath.split("/")
    return len(parts) > 3 and parts[0] == "labs" and parts[2] == folder


def is_instructor_file(relpath: str) -> bool:
    """Whether ``relpath`` (POSIX, relative to the kit) is in a lab's instructor folder, labs/<id>/instructor/."""
    return _in_lab_folder(relpath, INSTRUCTOR)


def is_hidden_file(relpath: str) -> bool:
    """Whether ``relpath`` (POSIX, relative to the kit) is in a lab's hidden tests' folder, labs/<id>/hidden/."""
    return _in_lab_folder(relpath, HIDDEN)


class LabError(Exception):
    """A usage error about labs (unknown lab, broken metadata): reported in one line, exit status 2."""


@dataclass(frozen=True)
class Task:
    id: str
    title: str


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    folder: Path
    public: tuple[str, ...]
    allowed_imports: tuple[str, ...]
    tasks: tuple[Task, ...]
    starter_sources: tuple[str, ...] = ()
    starter_docstring: str = ""
    limits: dict = field(default_factory=dict)
    helpers: tuple[str, ...] = ()  # files of the lab folder whose loops may run in the worker
    summary: str = ""  # what the student builds, in one line (the README's table of labs)
    hidden_tests: tuple[str, ...] = ()  # [hidden] tests: files under hidden/, relative to the folder
    # Names the tests only ever call (obj.name(...)), never read as values: behind the wall, reading one
    # is known to give a method without a round trip to learn it (grader.wall.session)
    methods: tuple[str, ...] = ()

    @property
    def tests(self) -> Path:
        return self.folder / "test_lab.py"

    @property
    def test_files(self) -> tuple[Path, ...]:
        """What grading this lab runs: test_lab.py, then its hidden tests."""
        return (self.tests, *(self.folder / relpath for relpath in self.hidden_tests))

    def with_limits(self, limits: dict | None) -> Lab:
        """The lab with the limits a grader decided for a run (lab.toml's and its overrides); as it is for None."""
        return self if limits is None else dataclasses.replace(self, limits=dict(limits))

    def visible_only(self) -> Lab:
        """The lab as a student's copy has it: test_lab.py alone (``grader run --visible-only``)."""
        return dataclasses.replace(self, hidden_tests=())

    def tests_sha256(self) -> str:
        """The sha256 of what grading this lab runs: test_lab.py's bytes; with hidden tests, each file's path in
        the lab's folder and its bytes' sha256, a line each (so a report tells the two sets apart)."""
        if not self.hidden_tests:
            return hashlib.sha256(self.tests.read_bytes()).hexdigest()
        lines = [
            f"{path.relative_to(self.folder).as_posix()} {hashlib.sha256(path.read_bytes()).hexdigest()}\n"
            for path in self.test_files
        ]
        return hashlib.sha256("".join(lines).encode()).hexdigest()

    @property
    def starter(self) -> Path:
        return self.folder / "starter.py"

    @property
    def handout(self) -> Path:
        return self.folder / "README.md"

    @property
    def instructor(self) -> Path:
        return self.folder / INSTRUCTOR

    @property
    def reference_package(self) -> str:
        return f"reference.{self.id}"

    @property
    def reference_dir(self) -> Path:
        return REFERENCE_DIR / self.id

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        known = ", ".join(t.id for t in self.tasks)
        raise LabError(f"lab {self.id} has no task {task_id!r} (its tasks: {known})")


def normalize_lab_id(name: str) -> str:
    """Accept what people type: 'ch06', '06', '6' and 'CH06' all mean ch06."""
    name = name.strip()
    if re.fullmatch(r"\d+", name):
        return f"ch{int(name):02d}"
    if re.fullmatch(r"(?i)ch\d+", name):
        return f"ch{int(name[2:]):02d}"
    return name


def _shown(path: Path) -> str:
    """A path as a message shows it: from the kit's folder when inside it."""
    return str(path.relative_to(KIT_ROOT)) if path.is_relative_to(KIT_ROOT) else str(path)


def load(folder: Path) -> Lab:
    """The lab in ``folder`` (its lab.toml, checked), or LabError saying what is wrong with it."""
    meta_path = folder / "lab.toml"
    try:
        meta = tomllib.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise LabError(f"{_shown(meta_path)}: cannot read lab metadata: {exc}") from None
    starter = meta.get("starter", {})
    return Lab(
        id=meta.get("id", folder.name),
        title=meta["title"],
        folder=folder,
        public=tuple(meta["public"]),
        allowed_imports=tuple(meta.get("allowed_imports", ())),
        tasks=tuple(Task(t["id"], t["title"]) for t in meta["tasks"]),
        starter_sources=tuple(starter.get("sources", ())),
        starter_docstring=starter.get("docstring", ""),
        limits=_limits(meta.get("limits", {}), meta_path),
        helpers=tuple(meta.get("helpers", ())),
        summary=meta.get("summary", ""),
        hidden_tests=_hidden_tests(meta.get(HIDDEN, {}), folder, meta_path),
        methods=_methods(meta.get("methods", []), meta_path),
    )


def _methods(names, meta_path: Path) -> tuple[str, ...]:
    if not isinstance(names, list) or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise LabError(f'{_shown(meta_path)}: methods must be a list of names, e.g. ["backward", "relu"]')
    return tuple(names)


def _hidden_tests(table: dict, folder: Path, meta_path: Path) -> tuple[str, ...]:
    """[hidden] tests, checked: each a regular file under the lab's hidden/ folder named test_*.py, so that
    the student edition, which leaves that folder out, can never ship one and the tier is the folder's."""
    declared = table.get("tests", [])
    if not isinstance(declared, list) or not all(isinstance(d, str) for d in declared):
        raise LabError(f'{_shown(meta_path)}: [hidden] tests must be a list of paths, e.g. ["hidden/test_hidden.py"]')
    for relpath in declared:
        parts = PurePosixPath(relpath).parts
        named = len(parts) > 1 and parts[0] == HIDDEN and ".." not in parts and re.fullmatch(r"test_\w*\.py", parts[-1])
        if not named:
            raise LabError(f"{_shown(meta_path)}: [hidden] {relpath!r} is not a test_*.py file under {HIDDEN}/")
        path = folder / relpath
        if any(p.is_symlink() for p in (path, *path.parents)) or not path.is_file():
            raise LabError(f"{_shown(meta_path)}: [hidden] {relpath!r} is not a regular file in {_shown(folder)}")
    return tuple(dict.fromkeys(declared))


def _limits(table: dict, meta_path: Path) -> dict:
    """The lab's [limits], checked: a misspelt or impossible limit stops here, not in a student's report."""
    checked = {}
    for name, value in table.items():
        try:
            checked[name] = lab_limits.check(name, value)
        except lab_limits.LimitError as exc:
            raise LabError(f"{_shown(meta_path)}: [limits] {name} = {value!r}: {exc}") from None
    return checked


@cache
def discover() -> dict[str, Lab]:
    """Every lab of the kit, by id, in a stable order."""
    labs = {}
    for meta in sorted(LABS_DIR.glob("*/lab.toml")):
        lab = load(meta.parent)
        labs[lab.id] = lab
    return labs


def get(name: str) -> Lab:
    """The lab called ``name`` (see normalize_lab_id), or LabError naming the labs that exist."""
    labs = discover()
    lab_id = normalize_lab_id(name)
    if lab_id not in labs:
        known = ", ".join(labs) or "none"
        raise LabError(f"unknown lab {name!r}; the labs are: {known}")
    return labs[lab_id]

"""Lab discovery: a lab is a folder under labs/ with a lab.toml; the grader knows nothing else about it."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

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


def is_instructor_file(relpath: str) -> bool:
    """Whether ``relpath`` (POSIX, relative to the kit) is in a lab's instructor folder, labs/<id>/instructor/."""
    parts = relpath.split("/")
    return len(parts) > 3 and parts[0] == "labs" and parts[2] == INSTRUCTOR


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

    @property
    def tests(self) -> Path:
        return self.folder / "test_lab.py"

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


def _load(folder: Path) -> Lab:
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
    )


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
        lab = _load(meta.parent)
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

"""Find each student's submission in the inputs an instructor actually has.

Accepted inputs, any number and any mix of them:
- a folder of ``<student>.py`` files;
- a folder of ``<student>/`` folders, each a clone of the student's fork (the lab's
  ``labs/<lab>/starter.py``) or holding a single ``.py`` file anywhere inside;
- a ``.zip`` of either (an LMS bulk download), unpacked into a scratch folder;
- a single ``<student>.py`` file.

Every student found gets an ``Entry``: ``ok`` with the file to grade, or ``missing``,
``ambiguous`` or ``invalid`` with the reason, so one bad folder never stops the batch.
A file is accepted by grader.intake, the rule every way in applies, in its words.
The inputs are only read; accepted files are copied into a staging folder, so what is
graded and hashed is exactly what was read, whatever happens to the inputs meanwhile.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path

from grader import intake
from grader.verdicts import SubmissionError

MAX_ZIP_BYTES = 2 << 30  # unpacked, all members together: a zip bomb stops here
MAX_ZIP_MEMBERS = 100_000
# Never a student's work: VCS and tool folders, OS litter, the kit's own files in a fork.
SKIPPED_DIRS = {
    ".git",
    ".github",
    ".venv",
    "venv",
    "env",
    "__pycache__",
    "__MACOSX",
    "node_modules",
    ".ipynb_checkpoints",
}
KIT_FOLDERS = {"grader", "reference", "tests", "bench", "reports"}


class InputError(Exception):
    """An input the batch cannot read at all (a missing path, a corrupt zip): a usage error."""


@dataclass(frozen=True)
class Entry:
    student: str
    status: str  # ok, missing, ambiguous, invalid
    reason: str = ""
    source: str = ""  # where it was found, relative to its input, for the instructor
    path: Path | None = None  # the staged copy to grade (status ok)
    sha256: str = ""

    @property
    def key(self) -> str:
        """The student id as a safe file name (reports/<key>.json)."""
        return safe_name(self.student)


def safe_name(student: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._@+-]+", "_", student).strip("._") or "student"
    if name != student:  # two ids that sanitize alike must not share a report file
        name += "-" + hashlib.sha256(student.encode()).hexdigest()[:8]
    return name[:120]


def _python_files(folder: Path) -> list[Path]:
    """The .py files a student might mean, skipping tool folders and the kit's own files."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).parts
        if any(p in SKIPPED_DIRS or p.startswith(".") for p in parts):
            continue
        if parts[0] in KIT_FOLDERS or (parts[0] == "labs" and len(parts) > 1):
            continue  # a fork's kit files; its labs/<lab>/starter.py is looked up directly
        if path.name in {"setup.py", "conftest.py", "__init__.py"}:
            continue
        found.append(path)
    return found


class Staging:
    """Copies of the accepted files, one folder per student."""

    def __init__(self, root: Path):
        self.root = root

    def accept(self, student: str, path: Path, source: str) -> Entry:
        """``path`` staged for ``student``, or why intake refuses it."""
        if path.is_symlink():
            return Entry(student, "invalid", f"{source} is a symbolic link: submit the file itself", source)
        try:
            data = intake.read(path, source).data
        except SubmissionError as exc:
            return Entry(student, "invalid", exc.message, source)
        folder = self.root / safe_name(student)  # Entry.key
        folder.mkdir(parents=True, exist_ok=True)
        copy = folder / path.name
        copy.write_bytes(data)
        return Entry(student, "ok", "", source, copy, hashlib.sha256(data).hexdigest())


def _from_folder(student: str, folder: Path, lab_id: str, staging: Staging, base: Path) -> Entry:
    starter = folder / "labs" / lab_id / "starter.py"
    if starter.is_file() or starter.is_symlink():
        return staging.accept(student, starter, str(starter.relative_to(base)))
    if (folder / "labs").is_dir():
        return Entry(student, "missing", f"the fork has no labs/{lab_id}/starter.py", str(folder.relative_to(base)))
    candidates = _python_files(folder)
    if not candidates:
        return Entry(student, "missing", "no .py file in the folder", str(folder.relative_to(base)))
    if len(candidates) > 1:
        names = ", ".join(str(c.relative_to(folder)) for c in candidates[:5])
        return Entry(student, "ambiguous", f"{len(candidates)} candidate files: {names}", str(folder.relative_to(base)))
    return staging.accept(student, candidates[0], str(candidates[0].relative_to(base)))


def find_in_folder(folder: Path, lab_id: str, scratch: Path) -> Entry:
    """One student's submission in ``folder`` (a fork, or one .py file anywhere inside), staged under ``scratch``.

    The rules of a class folder's ``<student>/`` folder, for a single upload (Gradescope's).
    """
    return _from_folder(folder.name, folder, lab_id, Staging(scratch), folder)


def _from_class_folder(root: Path, lab_id: str, staging: Staging, base: Path) -> list[Entry]:
    entries = []
    for child in sorted(root.iterdir()):
        if child.name.startswith(".") or child.name in SKIPPED_DIRS:
            continue
        if child.is_symlink():
            entries.append(Entry(child.stem, "invalid", f"{child.name} is a symbolic link", child.name))
        elif child.is_dir():
            entries.append(_from_folder(child.name, child, lab_id, staging, base))
        elif child.suffix == ".py":
            entries.append(staging.accept(child.stem, child, str(child.relative_to(base))))
    return entries


def _unpack(archive: Path, into: Path) -> Path:
    """Extract a zip safely (no paths outside ``into``, no links, bounded size); return its class folder."""
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > MAX_ZIP_MEMBERS or sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                raise InputError(f"{archive.name}: too large to unpack safely")
            for member in members:
                target = (into / member.filename).resolve()
                if not target.is_relative_to(into.resolve()):
                    raise InputError(f"{archive.name}: member {member.filename!r} points outside the archive")
                if stat.S_ISLNK(member.external_attr >> 16):
                    continue  # a link in an archive is never a submission
                if member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(member) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst)
    except zipfile.BadZipFile as exc:
        raise InputError(f"{archive.name}: not a readable zip file ({exc})") from None
    # An LMS download often wraps the class in one top folder: look inside it.
    root = into
    while True:
        children = [c for c in root.iterdir() if c.name not in SKIPPED_DIRS and not c.name.startswith(".")]
        if len(children) == 1 and children[0].is_dir() and not (children[0] / "labs").is_dir():
            inner = children[0]
            if any(c.is_dir() for c in inner.iterdir()) or any(inner.glob("*.py")):
                root = inner
                continue
        return root


def discover(inputs: list[Path], lab_id: str, scratch: Path) -> list[Entry]:
    """Every student in ``inputs``, sorted by id; ``scratch`` receives unpacked zips and staged copies."""
    staging = Staging(scratch / "staged")
    entries: list[Entry] = []
    for number, given in enumerate(inputs):
        if not given.exists() and not given.is_symlink():
            raise InputError(f"no such file or folder: {given}")
        if given.is_dir():
            entries += _from_class_folder(given, lab_id, staging, given)
        elif given.suffix == ".zip":
            unpacked = scratch / "unzipped" / str(number)
            unpacked.mkdir(parents=True)
            entries += _from_class_folder(_unpack(given, unpacked), lab_id, staging, unpacked)
        elif given.suffix == ".py":
            entries.append(staging.accept(given.stem, given, given.name))
        else:
            raise InputError(f"{given}: give folders, .zip files or .py files")
    return _one_per_student(entries)


def _one_per_student(entries: list[Entry]) -> list[Entry]:
    by_student: dict[str, list[Entry]] = {}
    for entry in entries:
        by_student.setdefault(entry.student, []).append(entry)
    result = []
    for student, found in sorted(by_student.items()):
        if len(found) == 1:
            result.append(found[0])
        else:
            sources = ", ".join(e.source for e in found)
            result.append(Entry(student, "ambiguous", f"{len(found)} submissions for this student: {sources}"))
    return result

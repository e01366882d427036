"""Find each student's submission in the inputs an instructor actually has.

Accepted inputs, any number and any mix of them:
- a folder of ``<student>.py`` files;
- a folder of ``<student>/`` folders, each a clone of the student's fork (the lab's
  ``labs/<lab>/starter.py``) or holding a single ``.py`` file anywhere inside;
- a ``.zip`` of either (an LMS bulk download), unpacked into a scratch folder;
- a single ``<student>.py`` file;
- a folder ``grader collect`` wrote (it holds ``collection.json``): its record says who the
  students are and which commit each file comes from (grader.batch.collection). Each student's
  file at the last commit before the deadline is their submission; their late work, when
  there is some, is a second entry (``version`` late), graded too and folded into their row.

A Jupyter notebook (``.ipynb``) is taken where a student handed in no ``.py``, so that intake
refuses it in its own words (export it as a .py) instead of the student being ``missing``.

Every student found gets an ``Entry``: ``ok`` with the file to grade, or ``missing``,
``ambiguous`` or ``invalid`` with the reason, so one bad folder never stops the batch.
A file is accepted by grader.intake, the rule every way in applies, in its words. A
symbolic link in a student's folder (or a zip) that points outside that folder makes the
student ``invalid``: nothing of a classmate's, or of the machine's, is ever graded as theirs.
The inputs are only read; accepted files are copied into a staging folder of their own, so
what is graded and hashed is exactly what was read, whatever happens to the inputs meanwhile.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import shutil
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from grader import intake
from grader.batch import collection, roster
from grader.batch.collection import LATE, ON_TIME, lab_file
from grader.verdicts import SubmissionError

MAX_ZIP_BYTES = 2 << 30  # unpacked, all members together: a zip bomb stops here
MAX_ZIP_MEMBERS = 100_000
MAX_LINK_BYTES = 4096  # a link's target, as a zip stores it: a path, never longer than the system's PATH_MAX
MAX_NAME_BYTES = 255  # a file name, in bytes, as Linux file systems hold it (NAME_MAX)
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
    version: str = ""  # from a collection: on-time (the submission) or late (late work, graded apart)
    collected: dict | None = None  # from a collection: the commit, its time and, for late work, how late

    @property
    def key(self) -> str:
        """The student id as a file name (reports/<key>.json): see key_of; late work's has ``~late`` after it,
        which no other key ends with (an escaped id holds no ``~``, and a long one ends in a hash)."""
        return key_of(self.student) + (LATE_SUFFIX if self.version == LATE else "")


LATE_SUFFIX = "~late"
KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@+-_")
MAX_KEY = 120  # with ".json" and an atomic write's temporary prefix, well under a file name's 255 bytes


def is_key(name: str) -> bool:
    """Whether ``name`` could be a key ``key_of`` made (a late version's suffix included): a file name in one
    folder, never a path (a record read back from a folder says its own key: grader.batch.outputs)."""
    fits = 0 < len(name) <= MAX_KEY + len(LATE_SUFFIX)
    return fits and not name.startswith(".") and set(name) <= KEY_CHARACTERS | {"%", "~"}


def key_of(student: str) -> str:
    """The student id as a safe file name, unique by construction: no two ids share one.

    Every character but letters, digits and ``._@+-_`` (and a leading dot) is written
    ``%XX``, byte by byte, as in a URL; ``%`` is one of them, so the name spells its id
    back exactly. An id whose name would be too long keeps a readable head and, after a
    ``~`` (which no escaped name holds), the SHA-256 of the whole id.
    """
    escaped = "".join(map(_escape, student))
    if escaped.startswith("."):  # not a hidden file, nor "." or ".."
        escaped = "%2E" + escaped[1:]
    if len(escaped) <= MAX_KEY:
        return escaped
    head = escaped[: MAX_KEY - 65]
    head = head[: head.rfind("%")] if "%" in head[-2:] else head  # not half an escape
    return f"{head}~{hashlib.sha256(_utf8(student)).hexdigest()}"


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a file name that is not UTF-8 holds lone surrogates


def _escape(character: str) -> str:
    return character if character in KEY_CHARACTERS else "".join(f"%{b:02X}" for b in _utf8(character))


def _ignored(name: str) -> bool:
    """A folder intake never reads (VCS and tool folders, hidden folders)."""
    return name in SKIPPED_DIRS or name.startswith(".")


NOTEBOOK = ".ipynb"
NEVER_GRADED = frozenset({"setup.py", "conftest.py", "__init__.py"})  # names that are a tool's, never the work


def _python_files(folder: Path, suffix: str = ".py") -> list[Path]:
    """The .py files (or other ``suffix``) a student might mean, skipping tool folders and the kit's own files.

    A link to one of them (links were checked: they stay in the folder) is the same candidate.
    """
    found: dict[Path, Path] = {}
    for path in sorted(folder.rglob(f"*{suffix}"), key=lambda p: (p.is_symlink(), p)):
        parts = path.relative_to(folder).parts
        if any(_ignored(p) for p in parts):
            continue
        if parts[0] in KIT_FOLDERS or (parts[0] == "labs" and len(parts) > 1):
            continue  # a fork's kit files; its labs/<lab>/starter.py is looked up directly
        if path.name in NEVER_GRADED:
            continue
        found.setdefault(path.resolve(), path)
    return sorted(found.values())


def _outside_link(folder: Path, base: Path) -> str | None:
    """Why the student of ``folder`` is invalid if a symbolic link in it leads outside it; None if none does.

    Links that stay in the folder may be followed. The folders intake never reads are not
    looked into: a virtual environment's links to the system's Python are nobody's work.
    """
    own = folder.resolve()
    for top, dirs, files in os.walk(folder):  # does not descend into linked folders: each is checked as a link
        dirs[:] = sorted(d for d in dirs if not _ignored(d))
        for name in sorted(dirs + files):
            path = Path(top, name)
            if not path.is_symlink():
                continue
            try:
                target = path.resolve(strict=False)
            except (OSError, RuntimeError):  # a loop of links
                return f"{_relative(path, base)} is a symbolic link to {_shown(os.readlink(path))}: a loop of links"
            if not target.is_relative_to(own):
                return _link_reason(_relative(path, base), os.readlink(path))
    return None


def _link_reason(link: str, target: str) -> str:
    return f"{link} is a symbolic link to {_shown(target)}, outside the student's own folder"


def _shown(name: str) -> str:
    """A file name as text that can be written anywhere (grades.csv, summary.md): the bytes of a
    name that is not UTF-8, which Python holds as lone surrogates, as \\xNN; composed as a roster's ids are
    (roster.student_id: a Mac's José.py is decomposed)."""
    return roster.student_id(name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


def _staged_name(name: str) -> str:
    """The name a staged copy of the file ``name`` takes: as shown (_shown), shortened to what a file system
    holds when showing it made it longer (a non-UTF-8 byte takes four characters, NFC may take more bytes)."""
    shown = _shown(name)
    if len(_utf8(shown)) <= MAX_NAME_BYTES:
        return shown
    stem, suffix = os.path.splitext(shown)
    digest = hashlib.sha256(_utf8(name)).hexdigest()[:16]
    kept = _utf8(stem)[: MAX_NAME_BYTES - len(_utf8(suffix)) - 17].decode("utf-8", "ignore")
    return f"{kept}~{digest}{suffix}"


def _relative(path: Path, base: Path) -> str:
    return _shown(str(path.relative_to(base)))


class Staging:
    """Copies of the accepted files, one folder per accepted file: no two students ever share one."""

    def __init__(self, root: Path):
        self.root = root
        self.staged = 0

    def accept(self, student: str, path: Path, source: str) -> Entry:
        """``path`` (its links already checked) staged for ``student``, or why intake refuses it."""
        try:
            data = intake.read(path, source).data
        except SubmissionError as exc:
            return Entry(student, "invalid", exc.message, source)
        self.staged += 1
        folder = self.root / str(self.staged)
        folder.mkdir(parents=True)
        copy = folder / _staged_name(path.name)  # its name is in the verdicts' words
        copy.write_bytes(data)
        return Entry(student, "ok", "", source, copy, hashlib.sha256(data).hexdigest())


def _from_folder(student: str, folder: Path, lab_id: str, staging: Staging, base: Path) -> Entry:
    where = _relative(folder, base)
    said = where if where != "." else "the upload"  # a single upload's folder is its own base (Gradescope's)
    starter = folder / "labs" / lab_id / "starter.py"
    try:  # the student's folder is only read: what goes wrong reading it is theirs
        link = _outside_link(folder, base)
        fork = (folder / "labs").is_dir()
        if starter.is_file() or link or fork:
            candidates = [starter] if starter.is_file() else []
        else:
            candidates = _python_files(folder) or _python_files(folder, NOTEBOOK)  # a notebook: intake says what to do
    except RecursionError:  # a review's folder 1,200 levels deep
        return Entry(student, "invalid", f"{said} holds folders nested too deeply to read: hand in the file", where)
    except OSError as exc:
        return Entry(student, "invalid", f"{said} cannot be read ({exc.strerror or exc}): hand in the file", where)
    if link:
        return Entry(student, "invalid", link, where)
    if fork and not candidates:
        return Entry(student, "missing", f"the fork has no labs/{lab_id}/starter.py", where)
    if not candidates:
        return Entry(student, "missing", "no .py file in the folder" + _never_graded_in(folder), where)
    if len(candidates) > 1:
        names = ", ".join(_relative(c, folder) for c in candidates[:5])
        return Entry(student, "ambiguous", f"{len(candidates)} candidate files: {names}", where)
    chosen = candidates[0]
    if _leads_outside(chosen, folder):  # through a link in a folder the link check does not look into (.git)
        return Entry(student, "invalid", f"{_relative(chosen, base)} leads outside the student's own folder", where)
    return staging.accept(student, chosen, _relative(chosen, base))


def _leads_outside(path: Path, folder: Path) -> bool:
    """Whether ``path``, its links followed, is a file outside ``folder`` (or cannot be followed at all)."""
    try:
        return not path.resolve(strict=True).is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a loop of links, a dangling one
        return True


def _never_graded_in(folder: Path) -> str:
    """What to say about the files of ``folder`` whose names are never graded (a lone setup.py), or ""."""
    try:
        names = sorted({p.name for p in folder.rglob("*.py") if p.name in NEVER_GRADED})
    except (OSError, RuntimeError):
        return ""
    return f" but {', '.join(names)}, a name the kit never grades (a tool's): rename your file" if names else ""


def find_in_folder(folder: Path, lab_id: str, scratch: Path) -> Entry:
    """One student's submission in ``folder`` (a fork, or one .py file anywhere inside), staged under ``scratch``.

    The rules of a class folder's ``<student>/`` folder, for a single upload (Gradescope's).
    """
    return _from_folder(_shown(folder.name), folder, lab_id, Staging(scratch), folder)


def _from_class_folder(root: Path, lab_id: str, staging: Staging, base: Path) -> list[Entry]:
    """A student per folder, .py file or notebook (its name's case aside), and per zip (which is refused,
    said why). Other files (notes, a roster) are no students; hidden entries and a batch's own output neither."""
    entries = []
    for child in sorted(root.iterdir()):
        if _ignored(child.name) or (child.is_dir() and (child / "batch.json").is_file()):
            continue  # the second: grader batch CLASS --out CLASS/grades, run again
        suffix = child.suffix.lower()
        if child.is_symlink():  # a student's file or folder is their own, never a link to one
            if suffix in (".py", NOTEBOOK) or child.is_dir():
                student = _shown(child.stem if suffix in (".py", NOTEBOOK) else child.name)
                reason = _link_reason(_relative(child, base), os.readlink(child))
                entries.append(Entry(student, "invalid", reason, _relative(child, base)))
        elif child.is_dir():
            entries.append(_from_folder(_shown(child.name), child, lab_id, staging, base))
        elif suffix == ".py" or (suffix == NOTEBOOK and not _has_python_twin(child)):
            entries.append(staging.accept(_shown(child.stem), child, _relative(child, base)))
        elif suffix == ".zip":  # a student's own archive, in a class folder
            shown = _relative(child, base)
            reason = f"{shown} is an archive: unpack it, a folder or a .py file for each student"
            entries.append(Entry(_shown(child.stem), "invalid", reason, shown))
    return entries


def _has_python_twin(notebook: Path) -> bool:
    return any(other.suffix.lower() == ".py" and other.stem == notebook.stem for other in notebook.parent.iterdir())


def _unpack(archive: Path, into: Path) -> Path:
    """Extract a zip safely (no paths outside ``into``, bounded size); return its class folder.

    A link entry becomes a link, made after every file so that nothing is written through
    one, and only where its own folder is inside ``into``; the class's scan then judges
    where it leads, as it does a folder's.
    """
    inside = into.resolve()
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > MAX_ZIP_MEMBERS or sum(m.file_size for m in members) > MAX_ZIP_BYTES:
                raise InputError(f"{archive.name}: too large to unpack safely")
            links, written = [], set()
            for member in members:
                # A tool on Windows may write its own separator, which a zip's names must not hold: read as one.
                name = member.filename.replace("\\", "/")
                target = (into / name).resolve()
                if not target.is_relative_to(inside):
                    raise InputError(f"{archive.name}: member {member.filename!r} points outside the archive")
                if not member.is_dir():  # a second entry of one name would silently replace the first
                    if target in written:
                        raise InputError(
                            f"{archive.name}: holds {name!r} twice, and which one to grade cannot be known: "
                            "keep one and zip the class again"
                        )
                    written.add(target)
                if stat.S_ISLNK(member.external_attr >> 16):
                    links.append((member, name))
                elif member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(member) as src, target.open("wb") as dst:
                        shutil.copyfileobj(src, dst)
            for member, name in links:
                _make_link(zf, member, into / name.rstrip("/"), inside)
    except zipfile.BadZipFile as exc:
        raise InputError(f"{archive.name}: not a readable zip file ({exc})") from None
    except (RuntimeError, NotImplementedError, zlib.error, EOFError) as exc:  # encrypted, Deflate64, damaged
        raise InputError(f"{archive.name}: cannot be unpacked ({exc}): unzip it yourself and give the folder") from None
    except OSError as exc:  # a name too long for this file system, a file where the zip has a folder of that name
        what = f"{exc.strerror}: {_shown(Path(os.fsdecode(exc.filename)).name)[:80]!r}" if exc.filename else str(exc)
        raise InputError(
            f"{archive.name}: cannot be unpacked here ({what}): unzip it yourself and give the folder"
        ) from None
    return _class_root(into)


def _class_root(into: Path) -> Path:
    """An LMS download often wraps the class in one top folder: look inside it (never through a link)."""
    root = into
    while True:
        children = [c for c in root.iterdir() if not _ignored(c.name)]
        if len(children) != 1 or not _wraps_a_class(children[0]):
            return root
        root = children[0]


def _wraps_a_class(folder: Path) -> bool:
    if folder.is_symlink() or not folder.is_dir() or (folder / "labs").is_dir():
        return False  # a link, a file, or one student's fork
    return any(c.is_dir() for c in folder.iterdir()) or any(folder.glob("*.py"))


def _make_link(zf: zipfile.ZipFile, member: zipfile.ZipInfo, link: Path, inside: Path) -> None:
    """The zip's link entry as a link, unless it cannot be one safely (then it is left out)."""
    if member.file_size > MAX_LINK_BYTES or os.path.lexists(link):
        return  # not a path; or a file of the same name is there already
    if not link.parent.resolve().is_relative_to(inside):
        return  # an earlier link leads this one's folder out: nothing is made through it
    link.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError, ValueError):  # an empty target, a NUL in it
        os.symlink(os.fsdecode(zf.read(member)), link)


def _collected_facts(student: dict, version: str) -> dict:
    """What a collection says of the commit a version comes from, for the student's record and row."""
    if version == LATE:
        late = student["late"]
        facts = {"commit": late["commit"], "committed_at": late.get("committed_at")}
        return {
            "version": LATE,
            **facts,
            "late_by_seconds": late.get("late_by_seconds"),
            "late_by": late.get("late_by"),
        }
    return {"version": ON_TIME, "commit": student.get("commit"), "committed_at": student.get("committed_at")}


def _from_collected_version(found: collection.Collection, student: dict, version: str, lab_id: str, staging) -> Entry:
    """One version (on time or late) of a collected student's lab file, staged, or why not."""
    name, path, facts = student["student"], lab_file(lab_id), _collected_facts(student, version)
    commit = str(facts["commit"])[:12]
    info = student.get("versions", {}).get(version, {}).get(path)
    folder = found.version_folder(key_of(name), version)
    where = _relative(folder / path, found.root)
    if info is None:
        entry = Entry(name, "missing", f"the fork has no {path} in commit {commit}", where)
    elif info.get("problem"):
        entry = Entry(name, "invalid", str(info["problem"]), where)
    elif not (folder / path).is_file() or (folder / path).is_symlink():
        entry = Entry(name, "invalid", f"{where}, collected from commit {commit}, is gone: collect again", where)
    else:
        # Its path as the student's fork holds it (labs/<id>/starter.py), not the collection's folder of versions,
        # in every message about the file: the student reads them in their feedback.
        entry = dataclasses.replace(_from_folder(name, folder, lab_id, staging, folder), source=where)
        if entry.status == "ok" and entry.sha256 != info.get("sha256"):
            reason = f"{where} is not the file collected from commit {commit} (its sha256 differs): collect again"
            entry = Entry(name, "invalid", reason, where)
    return dataclasses.replace(entry, version=version, collected=facts)


def _from_collection(root: Path, lab_id: str, staging: Staging) -> list[Entry]:
    """Every roster student of the collection in ``root``: their on-time entry, and their late work's."""
    try:
        found = collection.read(root)
    except collection.CollectionError as exc:
        raise InputError(str(exc)) from None
    labs = found.record["labs"]
    if lab_id not in labs:
        raise InputError(
            f"{root} is a collection of lab {', '.join(map(str, labs))}'s files, not {lab_id}'s: "
            f"collect again with --lab {lab_id}, or without --lab"
        )
    entries = []
    for student in found.students():
        name, status = student["student"], student["status"]
        if status == ON_TIME:
            entries.append(_from_collected_version(found, student, ON_TIME, lab_id, staging))
        elif status == LATE:
            late = student["late"]
            late_work = f"commit {late['commit'][:12]}, {late.get('late_by')} late"
            reason = f"nothing committed before the deadline; late work: {late_work}"
            entries.append(Entry(name, "late", reason, student["url"], collected=_collected_facts(student, ON_TIME)))
        else:  # missing, suspect, unreachable, empty: not graded, with the collection's reason
            facts = _collected_facts(student, ON_TIME)
            entries.append(Entry(name, status, str(student.get("problem", "")), student["url"], collected=facts))
        if status in (ON_TIME, LATE) and student.get("late"):
            entries.append(_from_collected_version(found, student, LATE, lab_id, staging))
    return entries


def discover(inputs: list[Path], lab_id: str, scratch: Path) -> list[Entry]:
    """Every student in ``inputs``, sorted by id; ``scratch`` receives unpacked zips and staged copies."""
    staging = Staging(scratch / "staged")
    entries: list[Entry] = []
    for number, given in enumerate(inputs):
        if not given.exists() and not given.is_symlink():
            raise InputError(f"no such file or folder: {given}")
        if given.is_dir() and collection.is_collection(given):
            found = _from_collection(given, lab_id, staging)
        elif given.is_dir():
            found = _from_class_folder(given, lab_id, staging, given)
        elif given.suffix.lower() == ".zip":
            unpacked = scratch / "unzipped" / str(number)
            unpacked.mkdir(parents=True)
            found = _from_class_folder(_unpack(given, unpacked), lab_id, staging, unpacked)
        elif given.suffix.lower() in (".py", NOTEBOOK):
            found = [staging.accept(_shown(given.stem), given, _shown(given.name))]
        else:
            raise InputError(f"{given}: give folders, .zip files or .py files")
        if not found:  # the wrong folder, or an empty download: a batch of no one would say "0 students" and succeed
            raise InputError(f"{given}: holds no student (a .py file, or a folder, for each one): is it the class's?")
        entries += found
    return _one_per_student(entries)


def _one_per_student(entries: list[Entry]) -> list[Entry]:
    """One entry per key (a student's submission, and apart from it their late work), sorted by id."""
    by_key: dict[str, list[Entry]] = {}
    for entry in entries:
        by_key.setdefault(entry.key, []).append(entry)
    result = []
    for found in sorted(by_key.values(), key=lambda found: (found[0].student, found[0].key)):
        if len(found) == 1:
            result.append(found[0])
        else:
            sources = ", ".join(e.source for e in found)
            student = found[0].student
            reason = f"{len(found)} submissions for this student: {sources}"
            result.append(Entry(student, "ambiguous", reason, version=found[0].version))
    return result

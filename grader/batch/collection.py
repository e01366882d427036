"""A collection folder: what ``grader collect`` writes and ``grader batch`` reads.

    DIR/collection.json                          the record: roster, deadline, collection time, every student
    DIR/files-<time>/on-time/<key>/labs/<lab>/starter.py   each student's file at the last commit before the deadline
    DIR/files-<time>/late/<key>/labs/<lab>/starter.py      and at the latest commit, when that one is late

``<key>`` is the student id as a file name (grader.batch.inputs.key_of). The record is written
last, atomically, and names its folder of files; an earlier collection's folder is deleted
only after it. A folder killed half-way therefore still holds one whole collection.

Per student the record says where the fork is (``url``), its ``status`` (below) and, if it
is not collected, the ``problem``; the commit graded on time and its committer time; the
later commits (newest first); the late commit with ``late_by`` (its time minus the
deadline); and for each version, each lab file found in that commit: its blob, size and the
sha256 of what was written, or the ``problem`` that kept it from being written. A file
absent from a version is absent from the commit.

Statuses: ``on-time`` (a commit before the deadline; late work may follow), ``late`` (only
commits after it), ``suspect`` (history git can tell was rewritten: grader.batch.history),
``unreachable`` (git could not clone or read it), ``empty`` (no commit), ``missing`` (no
version holds any of the labs' files).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

RECORD = "collection.json"
SCHEMA = "labkit.collection/1"
MAX_RECORD_BYTES = 256 << 20
FILES_FOLDER = re.compile(r"^files-[0-9]{8}T[0-9]{6}Z(-[0-9]+)?$")
ON_TIME, LATE = "on-time", "late"
VERSIONS = (ON_TIME, LATE)
STATUSES = ("on-time", "late", "suspect", "unreachable", "empty", "missing")
COLLECTED = ("on-time", "late", "missing")  # what batch grades from the files; the rest are not collected


class CollectionError(Exception):
    """A collection record that cannot be used: one line saying why (a usage error)."""


def lab_file(lab_id: str) -> str:
    """The file of a fork that is graded for ``lab_id``, relative to the fork."""
    return f"labs/{lab_id}/starter.py"


# The first and last seconds a calendar date can name. Git takes any 64-bit time for a commit: a review's fork
# dated one in the year 3,170,843, and the whole collection stopped on it (out of range).
FIRST_SECOND = int(datetime(1, 1, 1, tzinfo=timezone.utc).timestamp())
LAST_SECOND = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc).timestamp())


def iso(seconds: int | float) -> str:
    """``seconds`` since the epoch as an ISO 8601 time in UTC; a time before the year 1 or after 9999 as the
    first or last second a date can name (still before, or after, any deadline)."""
    return datetime.fromtimestamp(min(max(int(seconds), FIRST_SECOND), LAST_SECOND), timezone.utc).isoformat()


def seconds(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp())


def parse_deadline(text: str) -> datetime:
    """An ISO 8601 time with its offset (``Z`` or ``+01:00``); ValueError saying what to write otherwise."""
    given = text.strip()
    try:
        moment = datetime.fromisoformat(given[:-1] + "+00:00" if given.endswith(("Z", "z")) else given)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 time: write e.g. 2026-12-01T23:59:00+01:00") from None
    if not re.search(r"\d[Tt ]\d", given):  # a date alone: which minute of the day is meant?
        raise ValueError(f"{text!r} has no time of day: write e.g. {given[:10]}T23:59:00+01:00")
    if moment.tzinfo is None or moment.utcoffset() is None:
        plain = moment.isoformat()
        raise ValueError(
            f"{text!r} has no time zone, which a moment needs to be compared with commits' and submissions' times: "
            f"write e.g. {plain}+01:00, or {plain}Z for UTC"
        )
    return moment


@dataclass(frozen=True)
class Collection:
    root: Path
    record: dict

    @property
    def files(self) -> Path:
        return self.root / self.record["files"]

    def students(self) -> list[dict]:
        return self.record["students"]

    def version_folder(self, key: str, version: str) -> Path:
        return self.files / version / key


def _require(condition: bool, path: Path, what: str) -> None:
    if not condition:
        raise CollectionError(f"{path} is not a collection record this kit can read: {what}")


def _check_student(s, path: Path) -> None:
    _require(isinstance(s, dict), path, "a student is not an object")
    _require(isinstance(s.get("student"), str) and s["student"], path, "a student has no id")
    name = s["student"]
    _require(s.get("status") in STATUSES, path, f"student {name!r} has an unknown status")
    _require(
        isinstance(s.get("url"), str) and isinstance(s.get("problem", ""), str), path, f"student {name!r}: bad url"
    )
    for key in ("commit", "committed_at"):
        _require(s.get(key) is None or isinstance(s.get(key), str), path, f"student {name!r}: bad {key}")
    late = s.get("late")
    _require(late is None or (isinstance(late, dict) and isinstance(late.get("commit"), str)), path, "bad late")
    versions = s.get("versions", {})
    _require(isinstance(versions, dict) and set(versions) <= set(VERSIONS), path, f"student {name!r}: bad versions")
    for files in versions.values():
        _require(isinstance(files, dict), path, f"student {name!r}: bad files")
        for info in files.values():
            _require(isinstance(info, dict), path, f"student {name!r}: bad file")


def read(root: Path) -> Collection:
    """The collection in ``root`` (its record checked for shape), or CollectionError."""
    path = root / RECORD
    try:
        with path.open("rb") as file:
            data = file.read(MAX_RECORD_BYTES + 1)
        _require(len(data) <= MAX_RECORD_BYTES, path, "too large")
        record = json.loads(data)
    except OSError as exc:
        raise CollectionError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CollectionError(f"{path} is not JSON: {exc}") from None
    _require(isinstance(record, dict) and record.get("schema") == SCHEMA, path, f"its schema is not {SCHEMA}")
    _require(isinstance(record.get("files"), str) and FILES_FOLDER.match(record["files"]), path, "bad files folder")
    _require(isinstance(record.get("labs"), list), path, "no labs")
    _require(isinstance(record.get("students"), list), path, "no students")
    for student in record["students"]:
        _check_student(student, path)
    ids = [s["student"] for s in record["students"]]
    _require(len(ids) == len(set(ids)), path, "a student is listed twice")
    return Collection(root, record)


def is_collection(folder: Path) -> bool:
    return (folder / RECORD).is_file()

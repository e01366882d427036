"""The instructor's roster for ``grader collect``: a CSV file, a header row, then one student a row.

The header names the two columns wanted, in any order, among other columns if need be: the
student id (``student``, ``id``, ``login``, ...) and the git URL of the student's fork (``url``,
``repo``, ...). A URL is one git can fetch without a shell or a program of the fork's choosing:
``https://``, ``ssh://``, an scp-like ``user@host:path``, or ``file://`` (a local repository).
Anything else (a file that is not UTF-8 or not CSV, no such columns, an empty id or URL, a
student given twice) is refused with one line naming the line of the file.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

MAX_ROSTER_BYTES = 16 << 20  # a class of thousands is a few hundred KiB
# Header spellings, compared without case, spaces, dashes or underscores.
STUDENT_HEADERS = ("student", "studentid", "id", "login", "username", "githubusername", "github", "user", "sis_id")
URL_HEADERS = ("url", "giturl", "repo", "repository", "repourl", "repositoryurl", "fork", "forkurl", "cloneurl")
SCP_LIKE = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/\\].*$")  # git@github.com:alice/labkit.git
URL_SCHEMES = ("https://", "ssh://", "file://")
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


class RosterError(Exception):
    """The roster cannot be used: one line saying why and where (a usage error, exit status 2)."""


@dataclass(frozen=True)
class Student:
    student: str
    url: str
    line: int  # in the roster file, for messages


def _header_key(cell: str) -> str:
    return re.sub(r"[\s_-]", "", cell.strip().lower())


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    keys = [_header_key(cell) for cell in header]
    for name in names:
        if _header_key(name) in keys:
            return keys.index(_header_key(name))
    return None


def url_problem(url: str) -> str | None:
    """Why git must not be given ``url``, or None when it is one of the kinds taken."""
    if CONTROL.search(url) or url != url.strip():
        return "holds spaces or control characters at its ends or inside"
    if url.startswith(URL_SCHEMES):
        rest = url.split("://", 1)[1]
        if ":" in rest.split("/", 1)[0].rpartition("@")[0]:  # https://user:token@host/...
            return "holds a password or token, which the record and every message would show: use a credential helper"
        return None if rest.strip("/") else "names no repository"
    if url.startswith("-"):  # an option, not a URL: git would read it as one
        return "starts with '-'"
    if SCP_LIKE.match(url):
        return None
    return "is not a git URL this command takes (https://, ssh://, user@host:path or file://)"


def read(path: Path) -> list[Student]:
    """The roster's students, in the file's order; RosterError on anything that is not a usable roster."""
    name = path.name
    try:
        with path.open("rb") as file:
            data = file.read(MAX_ROSTER_BYTES + 1)
    except OSError as exc:
        raise RosterError(f"cannot read the roster {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_ROSTER_BYTES:
        raise RosterError(f"{name} is over {MAX_ROSTER_BYTES >> 20} MiB: not a roster")
    try:
        text = data.decode("utf-8-sig")  # a spreadsheet's "CSV UTF-8" starts with a byte-order mark
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RosterError(
            f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}): save it as CSV UTF-8"
        ) from None
    if "\x00" in text:
        raise RosterError(f"{name} is not a CSV file (it holds NUL bytes)")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None or not any(cell.strip() for cell in header):
            raise RosterError(f"{name} is empty: want a header row (student,url) and one row per student")
        student_col, url_col = _column(header, STUDENT_HEADERS), _column(header, URL_HEADERS)
        if student_col is None or url_col is None or student_col == url_col:
            missing = "a student id" if student_col is None else "a git URL"
            raise RosterError(
                f"{name}, line 1: the header has no column for {missing} "
                f"(found {', '.join(repr(c) for c in header[:6])}; want e.g. student,url)"
            )
        students: list[Student] = []
        seen: dict[str, int] = {}
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue  # a blank line, as spreadsheets leave at the end
            student = row[student_col].strip() if student_col < len(row) else ""
            url = row[url_col].strip() if url_col < len(row) else ""
            if not student:
                raise RosterError(f"{name}, line {line}: the student id is empty")
            if CONTROL.search(student):
                raise RosterError(f"{name}, line {line}: the student id {student!r} holds control characters")
            if not url:
                raise RosterError(f"{name}, line {line}: student {student!r} has no git URL")
            problem = url_problem(url)
            if problem:
                raise RosterError(f"{name}, line {line}: the URL {url!r} of student {student!r} {problem}")
            if student in seen:
                raise RosterError(f"{name}, line {line}: student {student!r} is already on line {seen[student]}")
            seen[student] = line
            students.append(Student(student, url, line))
    except csv.Error as exc:
        raise RosterError(f"{name}, line {reader.line_num}: not a CSV file ({exc})") from None
    if not students:
        raise RosterError(f"{name} lists no student: want one row per student after the header")
    return students

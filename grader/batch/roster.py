"""The instructor's rosters: a CSV file, a header row, then one student a row.

For ``grader collect`` (``read``), the header names the two columns wanted, in any order, among other
columns if need be: the student id (``student``, ``id``, ``login``, ...) and the git URL of the student's fork (``url``,
``repo``, ...). A URL is one git can fetch without a shell or a program of the fork's choosing:
``https://``, ``ssh://``, an scp-like ``user@host:path``, or ``file://`` (a local repository).
Anything else (a file that is not UTF-8 or not CSV, no such columns, an empty id or URL, a
student given twice) is refused with one line naming the line of the file.

For ``grader export`` (``read_class``): the student id again, and the columns the LMS needs, found
by the same loose matching of the header: the name, the LMS id, the section, Canvas's SIS ids and the
LMS's submission time (``submitted_at``), each optional here (the export says which its format needs).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

MAX_ROSTER_BYTES = 16 << 20  # a class of thousands is a few hundred KiB
# Header spellings, compared without case, spaces, dashes or underscores.
# In order of preference: the names only an id has first, then "student" and "id", which an LMS's export
# (Canvas's: Student, ID, SIS User ID, ...) uses for the display name and its own user id.
STUDENT_HEADERS = ("studentid", "githubusername", "github", "login", "username", "user", "student", "id", "sis_id")
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


def header_key(cell: str) -> str:
    """A header cell as the rosters compare it: without case, spaces, dashes or underscores."""
    return re.sub(r"[\s_-]", "", cell.strip().lower())


def column(header: list[str], names: tuple[str, ...]) -> int | None:
    """The index of the first of ``names`` (in their order of preference) the header holds, or None."""
    keys = [header_key(cell) for cell in header]
    for name in names:
        if header_key(name) in keys:
            return keys.index(header_key(name))
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


def read_table(path: Path, wanted: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """A roster file's header and its rows that are not blank, each with its line; RosterError when the file
    is not a UTF-8 CSV file with a header. ``wanted`` names the columns asked for, for the message on an empty file."""
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
            raise RosterError(f"{name} is empty: want a header row ({wanted}) and one row per student")
        rows = [(reader.line_num, row) for row in reader if any(cell.strip() for cell in row)]  # skip blank lines
    except csv.Error as exc:
        raise RosterError(f"{name}, line {reader.line_num}: not a CSV file ({exc})") from None
    if not rows:
        raise RosterError(f"{name} lists no student: want one row per student after the header")
    for line, row in rows:  # a comma left unquoted in a value shifts every cell after it into the wrong column
        if any(cell.strip() for cell in row[len(header) :]):
            raise RosterError(
                f"{name}, line {line}: {len(row)} values where the header names {len(header)} columns: "
                'a value that holds a comma must be quoted ("late, by mail")'
            )
    return header, rows


def cell(row: list[str], index: int | None) -> str:
    """A row's cell in the column ``index`` (None: a column the file does not have), stripped; "" if absent."""
    return row[index].strip() if index is not None and index < len(row) else ""


def _no_column(name: str, header: list[str], what: str, example: str) -> RosterError:
    return RosterError(
        f"{name}, line 1: the header has no column for {what} "
        f"(found {', '.join(repr(c) for c in header[:6])}; want e.g. {example})"
    )


def student_id(text: str) -> str:
    """A student id as every file of the kit compares it: in Unicode's composed form (NFC), as a name typed on
    most systems is; macOS and its zips write file names decomposed (NFD), which look the same and differ."""
    return unicodedata.normalize("NFC", text)


def _checked_id(name: str, line: int, student: str) -> str:
    student = student_id(student)
    if not student:
        raise RosterError(f"{name}, line {line}: the student id is empty")
    if CONTROL.search(student):
        raise RosterError(f"{name}, line {line}: the student id {student!r} holds control characters")
    return student


def first_time(name: str, line: int, student: str, seen: dict[str, tuple[int, str]]) -> str:
    """``student``, unless the file ``name`` (a roster, the LMS's submission times) already has them: the
    same id, or one that differs only in case (two students then, for a person, and one for git hosts,
    whose logins ignore case)."""
    folded = student.casefold()
    if folded in seen:
        first, spelled = seen[folded]
        also = "" if spelled == student else f" as {spelled!r} (ids that differ only in case are one student)"
        raise RosterError(f"{name}, line {line}: student {student!r} is already on line {first}{also}")
    seen[folded] = (line, student)
    return student


def read(path: Path) -> list[Student]:
    """The roster's students, in the file's order; RosterError on anything that is not a usable roster."""
    name = path.name
    header, rows = read_table(path, "student,url")
    student_col, url_col = column(header, STUDENT_HEADERS), column(header, URL_HEADERS)
    if student_col is None or url_col is None or student_col == url_col:
        raise _no_column(name, header, "a student id" if student_col is None else "a git URL", "student,url")
    students: list[Student] = []
    seen: dict[str, tuple[int, str]] = {}
    for line, row in rows:
        student, url = _checked_id(name, line, cell(row, student_col)), cell(row, url_col)
        if not url:
            raise RosterError(f"{name}, line {line}: student {student!r} has no git URL")
        problem = url_problem(url)
        if problem:
            raise RosterError(f"{name}, line {line}: the URL {url!r} of student {student!r} {problem}")
        students.append(Student(first_time(name, line, student, seen), url, line))
    return students


# -- the class roster of grader export: who is in the class, and who they are in the LMS -----------------------


@dataclass(frozen=True)
class Member:
    """One student of the class roster (``grader export``); every field but ``student`` may be empty."""

    student: str  # the id the batch knows them by
    name: str
    lms_id: str  # the LMS's own id (Canvas's user ID, Moodle's ID number or email address)
    section: str
    sis_user_id: str
    sis_login_id: str
    submitted_at: str  # the LMS's submission time (ISO 8601), if the roster gives one
    line: int


NAME_HEADERS = ("name", "fullname", "studentname", "sortablename", "displayname")
LMS_HEADERS = ("lmsid", "lms", "canvasid", "canvasuserid", "moodleid", "idnumber", "email", "emailaddress", "mail")
SECTION_HEADERS = ("section", "sections", "group", "classsection")
SIS_USER_HEADERS = ("sisuserid", "sisid")
SIS_LOGIN_HEADERS = ("sisloginid", "sislogin")
SUBMITTED_HEADERS = ("submittedat", "submitted", "submissiontime", "submittedtime", "submissiondate")


def read_class(path: Path) -> list[Member]:
    """The class roster's students, in the file's order: a student id column (as for grader collect), and if the
    file has them, the name, the LMS id, the section, the SIS ids and the LMS's submission time; RosterError on
    anything that is not a usable roster (no student id column, an empty or repeated id, an LMS id given twice)."""
    name = path.name
    header, rows = read_table(path, "student,name,lms_id,section")
    columns = {
        field: column(header, names)
        for field, names in (
            ("name", NAME_HEADERS),
            ("lms_id", LMS_HEADERS),
            ("section", SECTION_HEADERS),
            ("sis_user_id", SIS_USER_HEADERS),
            ("sis_login_id", SIS_LOGIN_HEADERS),
            ("submitted_at", SUBMITTED_HEADERS),
        )
    }
    taken = {index for index in columns.values() if index is not None}
    # the student id: the first of its spellings that no other field claimed ("id" is not Canvas's "SIS User ID")
    student_col = next(
        (i for i in (column(header, (n,)) for n in STUDENT_HEADERS) if i is not None and i not in taken), None
    )
    if student_col is None:
        raise _no_column(name, header, "a student id", "student,name,lms_id,section")
    # Canvas's own columns, where the id is another one (a GitHub username): Student is the name, ID its user id.
    for field, spelling in (("name", "student"), ("lms_id", "id")):
        index = column(header, (spelling,))
        if columns[field] is None and index is not None and index != student_col:
            columns[field] = index
    members: list[Member] = []
    seen: dict[str, tuple[int, str]] = {}
    lms_seen: dict[str, int] = {}
    for line, row in rows:
        student = first_time(name, line, _checked_id(name, line, cell(row, student_col)), seen)
        fields = {field: cell(row, index) for field, index in columns.items()}
        lms_id = fields["lms_id"]
        if lms_id in lms_seen:
            raise RosterError(f"{name}, line {line}: the LMS id {lms_id!r} is already on line {lms_seen[lms_id]}")
        if lms_id:
            lms_seen[lms_id] = line
        members.append(Member(student=student, line=line, **fields))
    return members

"""Intake: whether a file is source the kit will grade, and its text as Python reads it.

Every way a file comes in reads it here: `grader run` in-process (grader.harness.loader)
and behind the wall (grader.wall.session), hence `grader ci`, and `grader batch` and the
Gradescope runner when they stage a student's file (grader.batch.inputs). So one file
gets one answer, in the same words (grader.verdicts), from every command. The batch and
Gradescope record a refused file as ``invalid`` with that sentence, before any test runs;
`grader run` and `grader ci` report every test ``error`` with it, as for a file that does
not parse.

The text is what Python itself reads: UTF-8, or the encoding a PEP 263 declaration on line
1 or 2 names (``importlib.util.decode_source``). Python's compiler lets bytes that are not
UTF-8 through in a comment, but ``python3 file.py`` refuses the file: so does the kit.
"""

from __future__ import annotations

import codecs
import importlib.util
import io
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path

from grader import verdicts

MAX_SUBMISSION_BYTES = 1 << 20  # a hand-written lab file is a few tens of KiB
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)  # a Windows editor's "Unicode": an encoding, not a binary


@dataclass(frozen=True)
class Source:
    data: bytes  # the file as read, once: what is staged, hashed and graded
    text: str  # as Python decodes it


def read(path: Path, name: str | None = None) -> Source:
    """The file at ``path`` (links followed: the caller vetted them), or SubmissionError saying why not.

    ``name`` is how the words name the file (default: its own name).
    """
    name = name or path.name
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise verdicts.not_a_regular_file(name)
        # O_NONBLOCK: a file swapped for a FIFO since the check must not hang the grader.
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise verdicts.not_a_regular_file(name)
            data = file.read(MAX_SUBMISSION_BYTES + 1)
    except FileNotFoundError:
        raise verdicts.no_file(name) from None
    except OSError as exc:
        raise verdicts.unreadable(name, exc.strerror or type(exc).__name__) from None
    if not data:
        raise verdicts.empty_file(name)
    if len(data) > MAX_SUBMISSION_BYTES:
        raise verdicts.too_large(name, max(info.st_size, len(data)), MAX_SUBMISSION_BYTES)
    if b"\0" in data and not data.startswith(UTF16_BOMS):
        raise verdicts.binary_file(name)
    return Source(data, _decode(data, name))


def _decode(data: bytes, name: str) -> str:
    """``data`` as Python decodes source, or SubmissionError naming the first byte it cannot."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if _declaration_lines_are_utf8(data):
            raise verdicts.unusable_declaration(name, exc.msg) from None
        encoding = "utf-8"  # not UTF-8 where a declaration would be: no declaration, so UTF-8 is what fails
    try:
        data.decode(encoding)
    except UnicodeDecodeError as exc:
        before = exc.object[: exc.start]
        line = len(before.splitlines()) + (not before or before.endswith((b"\n", b"\r")))
        if codecs.lookup(encoding).name in ("utf-8", "utf-8-sig"):
            raise verdicts.not_utf8(name, exc.object[exc.start], line) from None
        raise verdicts.not_declared_encoding(name, encoding, exc.object[exc.start], line) from None
    return importlib.util.decode_source(data)


def _declaration_lines_are_utf8(data: bytes) -> bool:
    """Whether Python could read lines 1 and 2, where a declaration goes (then the declaration is the problem)."""
    lines = io.BytesIO(data.removeprefix(codecs.BOM_UTF8))  # read as detect_encoding reads them
    head = lines.readline() + lines.readline()
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

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

A file with no code (no bytes, or only blank lines and comments) is refused as empty. A
Jupyter notebook (JSON with cells, whatever its name) is refused, with how to export it as a
.py: its code cells are not graded, because they are not the module a student's .py is. They
ran in the order the student clicked them, not top to bottom; they hold shell lines and
magics (``!pip``, ``%matplotlib``) that are not Python, and the experiments and plots that
would run at import inside the tests' time limits; and a message's line number would point
into a file the student never saw. Exporting makes the graded file one the student can read.
"""

from __future__ import annotations

import codecs
import importlib.util
import io
import json
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path

from grader import verdicts

MAX_SUBMISSION_BYTES = 1 << 20  # a hand-written lab file is a few tens of KiB
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)  # a Windows editor's "Unicode": text Python cannot run
# What a binary a student might hand in by mistake starts with, and what to call it.
BINARY_KINDS = (
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a zip archive, or a Word or Excel document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x7fELF", "an executable program"),
    (importlib.util.MAGIC_NUMBER, "Python compiled to a .pyc"),
)


@dataclass(frozen=True)
class Source:
    data: bytes  # the file as read, once: what is staged, hashed and graded
    text: str  # as Python decodes it

    @property
    def line_count(self) -> int:
        """How many lines Python numbers in the file (decode_source made every line end \\n but maybe the last)."""
        return self.text.count("\n") + (not self.text.endswith("\n"))


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
    kind = next((what for start, what in BINARY_KINDS if data.startswith(start)), "")
    if not kind and _looks_utf16(data):  # before the NUL check: a NUL byte is half of each ASCII character
        raise verdicts.utf16(name)
    if kind or b"\0" in data:
        raise verdicts.binary_file(name, kind)
    if is_notebook(data):
        raise verdicts.notebook(name)
    text = _decode(data, name)
    if all(_blank_or_comment(line) for line in text.split("\n")):  # decode_source made every line end \n
        raise verdicts.empty_file(name, blank=True)
    return Source(data, text)


def _looks_utf16(data: bytes) -> bool:
    """Whether ``data`` is text saved as UTF-16: a byte-order mark, or (without one) mostly ASCII
    characters, whose other byte is 0."""
    if data.startswith(UTF16_BOMS):
        return True
    sample = data[:4096]
    if len(sample) < 16:
        return False
    even, odd = sample[0::2].count(0) / len(sample[0::2]), sample[1::2].count(0) / len(sample[1::2])
    return (even >= 0.9 and odd <= 0.1) or (odd >= 0.9 and even <= 0.1)


def _blank_or_comment(line: str) -> bool:
    """A line that holds no code (any other line is code, or a syntax error Python will name)."""
    stripped = line.lstrip(" \t\f")  # the whitespace Python's tokenizer skips
    return not stripped or stripped.startswith("#")


def is_notebook(data: bytes) -> bool:
    """Whether ``data`` is a Jupyter notebook: a JSON object with cells (any nbformat), whatever the file's name."""
    data = data.removeprefix(codecs.BOM_UTF8).lstrip()
    if not data.startswith(b"{"):  # where Python source would start with a dict display, a toy at best
        return False
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return isinstance(document, dict) and "nbformat" in document and ("cells" in document or "worksheets" in document)


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
    except (LookupError, UnicodeError):  # a codec that is not a text encoding (rot13, hex) or fails on any text
        raise verdicts.unusable_declaration(name, f"encoding problem: {encoding}") from None
    text = importlib.util.decode_source(data)
    try:  # unicode_escape, utf-7 and the like can decode to a lone surrogate, which Python's parser refuses
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise verdicts.unusable_declaration(name, f"{encoding} decodes line {line} to a lone surrogate") from None
    return text


def _declaration_lines_are_utf8(data: bytes) -> bool:
    """Whether Python could read lines 1 and 2, where a declaration goes (then the declaration is the problem)."""
    lines = io.BytesIO(data.removeprefix(codecs.BOM_UTF8))  # read as detect_encoding reads them
    head = lines.readline() + lines.readline()
    try:
        head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

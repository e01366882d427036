"""Verdicts: the exceptions that carry one, and the words of every verdict a student reads.

A test's verdict is an outcome in the report's vocabulary (passed, failed, error, timeout,
crashed, not_run), a one-paragraph message and a hint. The README promises the same
verdict whether the code ran in-process or behind the wall, so both modes word theirs
here: the harness's classification of a test's exception, the in-process loader, the
wall's session, and the grader's runner when a whole test process stops. This module
imports nothing heavier than the standard library: all three processes use it.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from pathlib import Path

MESSAGE_LIMIT = 600
OUTCOMES = ("passed", "failed", "error", "timeout", "crashed", "not_run")

NO_REFERENCE = "the reference solution is not part of the student edition"
LOOP_HINT = "look for a loop that never ends, or work that grows too fast (e.g. a graph visited many times)"
CLEAN_IMPORT_HINT = "your file must import cleanly: keep experiments under `if __name__ == '__main__':`"
EXIT_AT_IMPORT_HINT = "remove top-level code that exits; put experiments under `if __name__ == '__main__':`"
SYNTAX_HINT = "run `python -m py_compile` on your file to see the error in context"


def verdict(outcome: str, message: str = "", hint: str = "", line: int | None = None, *, file: bool = False) -> dict:
    """``line``: the line of the code under test the verdict points at (where its exception was raised), if any.
    ``file``: the verdict is about the file as a whole (a SubmissionError: it does not parse or import, lacks a
    name), as the kit found it: readers of a report ask this, never the message, which a submission can word.
    A lone surrogate the code put in its exception's text is written as an escape (\\ud800): no file, terminal
    or JSON in UTF-8 could hold it (a review's message stopped a batch at grades.csv)."""
    found = {"outcome": outcome, "message": _encodable(message), "hint": _encodable(hint), "line": line}
    return {**found, "about_the_file": True} if file else found


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> str:
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


PASSED = verdict("passed")
SKIPPED = verdict("not_run", "skipped")
# A queue entry asked for some tests only (grader.kit.reach: the tests that reach a mutant's edit).
NOT_SELECTED = verdict("not_run", "not run: this run asked for other tests only")


class SubmissionError(Exception):
    """The code under test cannot be used at all (does not import, lacks a public name): outcome error.

    ``line``: the file's own line that stopped it (a syntax error, a raise at import), if known."""

    outcome = "error"

    def __init__(self, message: str, hint: str = "", line: int | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.line = line


class WorkerFailure(Exception):
    """The worker running the code under test timed out or crashed: the outcome names which."""

    outcome = "crashed"

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


class WorkerTimeout(WorkerFailure):
    outcome = "timeout"


class WorkerCrashed(WorkerFailure):
    outcome = "crashed"


class CpuLimitReached(WorkerTimeout):
    """A timeout by the CPU limit, not a clock: said apart where the clock's words would be wrong (an import)."""


def over_cpu(seconds: int) -> str:
    """How every message says the CPU limit stopped the code (a test's, an operation's, an import's)."""
    return f"used more than the CPU limit of {seconds} s"


# -- the code under test cannot be used -----------------------------------------------------
def no_file(name: str) -> SubmissionError:
    return SubmissionError(f"no file to grade at {name}", "check the path you gave")


# -- the file is not source the kit reads (grader.intake): refused the same way everywhere -------
# Each fix is in the message itself: the batch and Gradescope show only the message.
ENCODING_FIX = "save it as UTF-8, or declare its encoding on line 1 or 2 (# -*- coding: latin-1 -*-)"


def unreadable(name: str, why: str) -> SubmissionError:
    return SubmissionError(f"{name} cannot be read ({why})")


def not_a_regular_file(name: str) -> SubmissionError:
    return SubmissionError(f"{name} is not a regular file")


def empty_file(name: str, blank: bool = False) -> SubmissionError:
    """``name`` has no bytes, or (``blank``) only blank lines and comments: no code to grade either way."""
    if blank:
        return SubmissionError(f"{name} is empty: it holds only blank lines and comments, no code")
    return SubmissionError(f"{name} is empty (0 bytes): save your code in it")


def too_large(name: str, size: int | None, limit: int) -> SubmissionError:
    """``size`` None: more than ``limit``, by how much unknown (it was not read whole)."""
    how_large = "" if size is None else f"{-(-size // 1024)} KiB, "  # rounded up
    return SubmissionError(
        f"{name} is {how_large}over the limit of {limit // 1024} KiB: hand in your code alone "
        "(a lab's file is a few tens of KiB; data or output pasted into it does not belong there)"
    )


def binary_file(name: str, kind: str = "") -> SubmissionError:
    """``kind``: what the bytes look like ("a PDF document"), if intake recognised them."""
    what = f" ({kind})" if kind else ""
    return SubmissionError(f"{name} is a binary file{what}, not Python source: hand in the .py file itself")


def notebook(name: str) -> SubmissionError:
    """A Jupyter notebook is JSON holding cells, not a module: the student exports its code (README, "Which files")."""
    return SubmissionError(
        f"{name} is a Jupyter notebook, not a Python file: export its code as a .py file and hand that in "
        "(Jupyter: File > Save and Export Notebook As > Executable Script; Colab: File > Download > Download .py)"
    )


def not_utf8(name: str, byte: int, line: int) -> SubmissionError:
    return SubmissionError(f"{name} is not UTF-8 (byte 0x{byte:02x} at line {line}): {ENCODING_FIX}", line=line)


def utf16(name: str) -> SubmissionError:
    return SubmissionError(
        f'{name} is saved as UTF-16 ("Unicode" in some editors), which Python cannot run: save it as UTF-8'
    )


def not_declared_encoding(name: str, encoding: str, byte: int, line: int) -> SubmissionError:
    return SubmissionError(
        f"{name} is not {encoding}, the encoding it declares (byte 0x{byte:02x} at line {line}): "
        "save it as UTF-8 and remove the declaration, or declare the encoding it is saved in",
        line=line,
    )


def unusable_declaration(name: str, why: str) -> SubmissionError:
    return SubmissionError(
        f"{name} has an encoding declaration Python cannot use ({why}): save it as UTF-8 and remove the declaration"
    )


TOO_DEEP_TO_COMPILE = "nested too deeply for Python's compiler"


def syntax_error(name: str, line: int | None, what: str) -> SubmissionError:
    where = f"line {line}" if line else "an unknown line"
    return SubmissionError(f"{name} does not parse: SyntaxError at {where}: {what}", SYNTAX_HINT, line)


def import_failed(name: str, kind: str, line: int | None, what: str) -> SubmissionError:
    """``name`` raised ``kind`` (``what``) while being imported, at ``line`` of its own if known."""
    where = f" at line {line}" if line else ""
    if kind == "SystemExit":
        return SubmissionError(f"{name} called exit() while being imported{where}", EXIT_AT_IMPORT_HINT, line)
    return SubmissionError(f"importing {name} raised {kind}{where}: {what}", CLEAN_IMPORT_HINT, line)


TOP_LEVEL_HINT = "top-level code runs when your file is imported: move experiments under `if __name__ == '__main__':`"


def import_timed_out(name: str, seconds: float) -> SubmissionError:
    return SubmissionError(f"importing {name} did not finish within {seconds:g} s", TOP_LEVEL_HINT)


def import_over_cpu(name: str, seconds: int) -> SubmissionError:
    """The import was stopped by the CPU limit, below import_seconds: a busy loop, stopped before the clock's limit."""
    return SubmissionError(f"importing {name} {over_cpu(seconds)}", TOP_LEVEL_HINT)


def import_stopped_worker(name: str, why: str) -> SubmissionError:
    return SubmissionError(f"importing {name} stopped the worker: {why}", "remove top-level code that exits or crashes")


def looks_like_lab(other: str) -> str:
    """How every command says whose lab's file a submission seems to be (grader.grading.scan decides)."""
    return f"looks like lab {other}'s file"


_LOOKS_LIKE_LAB = re.compile(r"looks like lab (?P<lab>[A-Za-z0-9_]+)'s file")


def lab_it_looks_like(said: str) -> str | None:
    """The lab whose file ``said`` (a flag's message, in looks_like_lab's words) says a submission seems to be."""
    found = _LOOKS_LIKE_LAB.match(said)
    return found["lab"] if found else None


def another_labs_file(lab_id: str, other: str, theirs: tuple[int, int], own: tuple[int, int]) -> str:
    """The scan's flag: the file defines ``theirs`` (n, out of) of lab ``other``'s names, ``own`` of ``lab_id``'s."""
    return (
        f"{looks_like_lab(other)}: it defines {theirs[0]} of lab {other}'s {theirs[1]} names and "
        f"{own[0]} of lab {lab_id}'s {own[1]}; was it meant for lab {other}?"
    )


MISSING_NAME = "the code under test does not define "


def missing_name(lab, name: str) -> SubmissionError:
    return SubmissionError(
        f"{MISSING_NAME}{name}",
        f"lab {lab.id} needs these names at the top level of your file: {', '.join(lab.public)}",
    )


# -- a test ran too long, or its process stopped --------------------------------------------
def test_timeout_message(limit_s: float | str, running: str = "") -> str:
    """A test stopped at its time limit; ``running`` names what it was doing, if known."""
    stuck = f"; it was running {running}" if running else ""
    return f"timeout: the test ran longer than its limit of {float(limit_s):g} s{stuck}"


AFTER_A_TIMEOUT = " (an earlier test timed out: each test after it has this shorter limit, test_seconds_after_timeout)"


def after_an_earlier_timeout(message: str) -> str:
    """A timeout of a test that ran after another test of the same submission had timed out: its limit was
    the shorter one (grader.limits.Limits.after_a_timeout), and the message says why."""
    return clip(message, AFTER_A_TIMEOUT)


def not_in_this_run(task_title: str) -> str:
    """A test of another task than the one a run graded (`grader run --task`)."""
    return f"not run: this run graded only {task_title}"


def run_out_of_time(seconds: float) -> str:
    return f"not run: the lab's tests used up their time limit of {seconds:g} s"


def too_many_crashes(restarts: int) -> str:
    return (
        f"not run: the test process crashed or hung {restarts + 1} times, each time in another test; "
        "the tests left were not run (fix the crashes first)"
    )


def test_process_died(status: int) -> str:
    why = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
    return f"crashed: the test process died ({why}) while this test was running"


def tests_out_of_time(seconds: float) -> str:
    return f"timeout: the lab's tests did not finish within {seconds:.0f} s"


# -- a test's exception ---------------------------------------------------------------------
def clip(text: str, tail: str = "") -> str:
    """``text`` + ``tail`` in at most MESSAGE_LIMIT characters: ``text`` is cut, the tail (a location) kept."""
    text, room = text.strip(), MESSAGE_LIMIT - len(tail)
    return (text if len(text) <= room else text[: room - 3] + "...") + tail


def where(exc: BaseException, code_files: set[str]) -> str:
    """'starter.py:42 in backward' for the innermost frame of the code under test, if any."""
    remote = getattr(exc, "labkit_where", None)
    if remote is not None:  # raised behind the wall: the worker located it
        return remote
    found = _innermost_frame(exc, code_files)
    if found is None:
        return ""
    return f"{Path(found.filename).name}:{found.lineno} in {found.name}"


def _innermost_frame(exc: BaseException, code_files: set[str]) -> traceback.FrameSummary | None:
    """The innermost frame of ``exc``'s traceback that is the code under test's, if any.

    The frames are walked without reading their source lines (traceback.extract_tb reads them all):
    a failed test's traceback runs through pytest and Hypothesis, a recursive sort's through a
    thousand frames, and reading their lines was most of what judging a failure cost."""
    found = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename in code_files:
            found = frame.f_code, lineno
    if found is None:
        return None
    code, lineno = found
    return traceback.FrameSummary(code.co_filename, lineno, code.co_name, lookup_line=False)


def line_in_file(value, line_count: int | None) -> int | None:
    """``value`` if it is a line of a file of ``line_count`` lines (an int from 1 to ``line_count``), else None.

    A line another process reports (the worker; a test process, through the progress stream) is a
    claim: checked here before a message, a report or an annotation uses it."""
    if type(value) is not int or line_count is None or not 1 <= value <= line_count:
        return None
    return value


_CHAIN_DEPTH = 8  # how far back a failed check's chain of exceptions is followed


def _innermost_line(exc: BaseException, code_files: set[str]) -> int | None:
    """The line of the innermost frame of the code under test in ``exc``'s traceback; behind the
    wall, the line the worker reported (checked by the wall's session against the file)."""
    if hasattr(exc, "labkit_where"):
        return getattr(exc, "labkit_line", None)
    found = _innermost_frame(exc, code_files)
    return found.lineno if found is not None else None


def _raised_in(exc: BaseException, code_files: set[str]) -> bool:
    """Whether ``exc`` was raised by the code under test itself (its last frame is the code's)."""
    if hasattr(exc, "labkit_where"):
        return True
    frames = list(traceback.walk_tb(exc.__traceback__))  # no source lines read (see _innermost_frame)
    return bool(frames) and frames[-1][0].f_code.co_filename in code_files


def line_of(exc: BaseException, code_files: set[str]) -> int | None:
    """The line of the code under test that ``exc``'s verdict points at, or None.

    An exception: where the code under test was when it was raised (a library's error below it
    points at the code's call). A failed check or assertion of the test's own: the exception it
    was raised while handling, if the code under test raised that one (``Value exp raised
    AttributeError ...`` points at the line that raised the AttributeError); its own traceback
    would point at a callback of the test's, not at the code."""
    if isinstance(exc, SubmissionError):
        return exc.line
    if isinstance(exc, WorkerFailure):
        return None
    if not isinstance(exc, AssertionError) or _raised_in(exc, code_files):
        found = _innermost_line(exc, code_files)
        if found is not None:
            return found
    cause, seen = exc.__cause__ or exc.__context__, 0
    while cause is not None and seen < _CHAIN_DEPTH:
        found = _innermost_line(cause, code_files)
        if found is not None:
            return found
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return None


NOT_IMPLEMENTED = "not implemented yet"  # a stub's verdict starts so, then the stub's own message
PYTEST_TIMEOUT = "Timeout (>"  # how pytest-timeout's failure starts: "Timeout (>10.0s) from pytest-timeout."


def classify(exc: BaseException, static_hint: str, code_files: set[str] = frozenset()) -> dict:
    """The verdict of a graded test that raised ``exc``; ``code_files`` are the code under test's."""
    import pytest  # loaded already wherever a test ran

    from grader.testing.checks import LabCheckFailure

    line = line_of(exc, code_files)
    if isinstance(exc, LabCheckFailure):
        return verdict("failed", clip(exc.message), exc.hint or static_hint, line)
    if isinstance(exc, SubmissionError):
        return verdict("error", clip(exc.message), exc.hint, line, file=True)
    if isinstance(exc, WorkerFailure):
        return verdict(exc.outcome, clip(exc.message), exc.hint or static_hint)
    # A check that knew what the code under test was doing may have diagnosed its exception.
    static_hint = getattr(exc, "labkit_hint", "") or static_hint
    located = where(exc, code_files)
    at = f" ({located})" if located else ""
    text = str(exc)
    if isinstance(exc, pytest.fail.Exception) and text.startswith(PYTEST_TIMEOUT):
        limit = text[len(PYTEST_TIMEOUT) :].split("s)")[0]
        try:
            return verdict("timeout", test_timeout_message(float(limit), located), LOOP_HINT, line)
        except ValueError:  # not pytest-timeout's: a test's own pytest.fail
            pass
    if isinstance(exc, NotImplementedError):  # a stub: the message says what to write; no bug to hint at
        return verdict("failed", clip(f"{NOT_IMPLEMENTED}{': ' if text else ''}{text}", at), "", line)
    if isinstance(exc, AssertionError):
        return verdict("failed", clip(text or "assertion failed"), static_hint, line)
    # Behind the wall the exception is a stand-in of a built-in type: it carries its own type's name.
    name = getattr(exc, "labkit_type", None) or type(exc).__name__
    return verdict("error", clip(f"{name}: {text}", at), static_hint, line)


# -- a verdict read back --------------------------------------------------------------------
# A batch explains each score from the student's report (grader.batch.reasons): these read the
# sentences above back, so that their words live in this one module.
@dataclass(frozen=True)
class ImportProblem:
    """Why the file could not be used at all, as its message says, without the file's name."""

    parses: bool
    line: int | None  # the file's own line, if the message names one
    cause: str  # "ValueError at line 3: boom", "called exit() at line 7", "did not finish within 10 s", ...


_IMPORT_PROBLEMS = (  # (the message, whether the file parsed)
    (
        re.compile(r".+? does not parse: (?P<cause>SyntaxError at (?:line (?P<line>\d+)|an unknown line): .*)", re.S),
        False,
    ),
    (re.compile(r".+? (?P<cause>called exit\(\)) while being imported(?P<at> at line (?P<line>\d+))?", re.S), True),
    (re.compile(r"importing .+? raised (?P<cause>\S+?(?: at line (?P<line>\d+))?(?::.*)?)", re.S), True),
    (
        re.compile(
            r"importing .+? (?P<cause>did not finish within .*|used more than the CPU limit .*|stopped the worker: .*)",
            re.S,
        ),
        True,
    ),
)


def import_problem(message: str, name: str | None = None) -> ImportProblem | None:
    """The ImportProblem a test's message reports (syntax_error, import_failed, import_timed_out,
    import_over_cpu, import_stopped_worker), or None if the message is about anything else. ``name``: the file's,
    where the message must have it: a review's file raised 'lab.py does not parse: ...' while being imported,
    and the name of any file read the message as a syntax error at the line the student wrote."""
    for pattern, parses in _IMPORT_PROBLEMS:
        if name is not None:
            pattern = re.compile(pattern.pattern.replace(".+?", re.escape(name), 1), re.S)
        found = pattern.fullmatch(message.strip())
        if found:
            parts = found.groupdict()
            line = int(parts["line"]) if parts.get("line") else None
            return ImportProblem(parses, line, parts["cause"] + (parts.get("at") or ""))
    return None


def missing_name_in(message: str) -> str | None:
    """The public name a missing_name message says the code lacks, or None for any other message."""
    text = message.strip()
    return text[len(MISSING_NAME) :] if text.startswith(MISSING_NAME) else None

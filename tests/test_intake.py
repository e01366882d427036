"""Intake (grader.intake): which files the kit grades, and one verdict, in the same words, every way in.

First the rule, against Python's own: intake refuses a file exactly when ``python file.py``
does (the compiler alone lets a stray byte through in a comment), and honours a coding
declaration. Then two files graded through every way in, for real: one saved in latin-1
without a declaration (it used to get 100/100 from `grader run` and 0 from the batch), and
one in latin-1 with its declaration (the batch used to refuse it).
"""

import codecs
import csv
import importlib.util
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import intake
from grader.cli import main
from grader.kit import edition
from grader.labs import KIT_ROOT
from grader.platforms import gradescope
from grader.verdicts import SubmissionError
from tests.mutation import reference_source

LAB = "ch06"
FIX = "save it as UTF-8, or declare its encoding on line 1 or 2 (# -*- coding: latin-1 -*-)"
UTF16 = 'is saved as UTF-16 ("Unicode" in some editors), which Python cannot run: save it as UTF-8'

# name -> the file's bytes, and what intake says (None: it reads the file)
ENCODINGS = {
    "utf8": (b"name = 'caf\xc3\xa9'\n", None),
    "utf8-bom": (b"\xef\xbb\xbfname = 'caf\xc3\xa9'\n", None),
    "latin1-declared": (b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n", None),
    "latin1-declared-on-line-2": (
        b"#!/usr/bin/env python3\n# vim: set fileencoding=latin-1 :\nname = 'caf\xe9'\n",
        None,
    ),
    "latin1-in-a-comment": (b"x = 1\n\n# caf\xe9\n", f"a.py is not UTF-8 (byte 0xe9 at line 3): {FIX}"),
    "latin1-in-a-string": (b"name = 'caf\xe9'\n", f"a.py is not UTF-8 (byte 0xe9 at line 1): {FIX}"),
    "latin1-windows-lines": (b"x = 1\r\ny = 2\r\n# \xe9\r\n", f"a.py is not UTF-8 (byte 0xe9 at line 3): {FIX}"),
    "latin1-old-mac-lines": (b"x = 1\ry = 2\r# \xe9\r", f"a.py is not UTF-8 (byte 0xe9 at line 3): {FIX}"),
    "declared-too-late": (b"# caf\xe9\n# -*- coding: latin-1 -*-\n", f"a.py is not UTF-8 (byte 0xe9 at line 1): {FIX}"),
    "utf16": ("x = 1\n".encode("utf-16"), f"a.py {UTF16}"),
    "utf16-without-a-bom": ("x = 1\ny = 2\nz = 3\n".encode("utf-16-be"), f"a.py {UTF16}"),
    "declared-ascii": (
        b"# coding: ascii\nname = 'caf\xe9'\n",
        "a.py is not ascii, the encoding it declares (byte 0xe9 at line 2): "
        "save it as UTF-8 and remove the declaration, or declare the encoding it is saved in",
    ),
    "declared-unknown": (
        b"# coding: klingon\nx = 1\n",
        "a.py has an encoding declaration Python cannot use (unknown encoding: klingon): "
        "save it as UTF-8 and remove the declaration",
    ),
    "bom-and-latin1-declared": (
        b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",
        "a.py has an encoding declaration Python cannot use (encoding problem: utf-8): "
        "save it as UTF-8 and remove the declaration",
    ),
    # Codecs Python knows that are not text encodings, or that fail on any source.
    **{
        f"declared-{codec}": (
            f"# -*- coding: {codec} -*-\nx = 1\n".encode(),
            f"a.py has an encoding declaration Python cannot use (encoding problem: {codec}): "
            "save it as UTF-8 and remove the declaration",
        )
        for codec in ("rot13", "hex", "base64", "zlib", "uu", "undefined", "punycode")
    },
}


def _refusal(path: Path, name: str | None = None) -> str | None:
    try:
        intake.read(path, name)
    except SubmissionError as exc:
        return exc.message
    return None


@pytest.mark.parametrize("data, expected", ENCODINGS.values(), ids=ENCODINGS)
def test_intake_reads_source_as_python_does_and_says_how_to_fix_what_it_cannot(tmp_path, data, expected):
    path = tmp_path / "a.py"
    path.write_bytes(data)
    assert _refusal(path) == expected
    python = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
    assert (python.returncode == 0) == (expected is None), python.stderr  # Python agrees
    if expected is None:
        namespace = {}
        exec(intake.read(path).text, namespace)
        assert namespace["name"] == "café"


EMPTY = "is empty (0 bytes): save your code in it"
BLANK = "is empty: it holds only blank lines and comments, no code"
NOT_SOURCE = "not Python source: hand in the .py file itself"
NOTEBOOK = (
    "is a Jupyter notebook, not a Python file: export its code as a .py file and hand that in "
    "(Jupyter: File > Save and Export Notebook As > Executable Script; Colab: File > Download > Download .py)"
)
NOTEBOOK_JSON = json.dumps(
    {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": ["x = 1"]}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    },
    indent=1,
).encode()


def test_intake_refuses_what_is_not_a_source_file(tmp_path):
    files = {
        "empty.py": b"",
        "blank.py": b"\n  \n\t\n\f\n",
        "comments.py": b"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n\n    # my notes, no code yet\r\n",
        "binary.py": b"\x7fELF\x02\x01\x01\x00",
        "nul.py": b"x = 1\n\0\n",
        "report.py": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
        "zipped.py": b"PK\x03\x04\x14\x00",
        "shot.py": b"\x89PNG\r\n\x1a\n",
        "compiled.py": importlib.util.MAGIC_NUMBER + b"\0" * 12,
        "work.ipynb": NOTEBOOK_JSON,
        "saved-as.py": codecs.BOM_UTF8 + NOTEBOOK_JSON,  # a notebook is refused by what it holds, not its name
        "huge.py": b"#" * (intake.MAX_SUBMISSION_BYTES + 1),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder.py").mkdir()
    os.mkfifo(tmp_path / "fifo.py")  # opened, it would block a reader that waits for a writer
    assert {p.name: _refusal(p) for p in sorted(tmp_path.iterdir())} == {
        "binary.py": f"binary.py is a binary file (an executable program), {NOT_SOURCE}",
        "blank.py": f"blank.py {BLANK}",
        "comments.py": f"comments.py {BLANK}",
        "compiled.py": f"compiled.py is a binary file (Python compiled to a .pyc), {NOT_SOURCE}",
        "empty.py": f"empty.py {EMPTY}",
        "fifo.py": "fifo.py is not a regular file",
        "folder.py": "folder.py is not a regular file",
        "huge.py": "huge.py is 1025 KiB, over the limit of 1024 KiB: hand in your code alone (a lab's file is a few "
        "tens of KiB; data or output pasted into it does not belong there)",  # one byte over, rounded up
        "nul.py": f"nul.py is a binary file, {NOT_SOURCE}",
        "report.py": f"report.py is a binary file (a PDF document), {NOT_SOURCE}",
        "saved-as.py": f"saved-as.py {NOTEBOOK}",
        "shot.py": f"shot.py is a binary file (a PNG image), {NOT_SOURCE}",
        "work.ipynb": f"work.ipynb {NOTEBOOK}",
        "zipped.py": f"zipped.py is a binary file (a zip archive, or a Word or Excel document), {NOT_SOURCE}",
    }
    assert _refusal(tmp_path / "absent.py") == "no file to grade at absent.py"
    assert _refusal(tmp_path / "empty.py", "alice/labs/ch06/starter.py") == f"alice/labs/ch06/starter.py {EMPTY}"


@pytest.mark.parametrize(
    "source",
    [
        "x = 1  # code after blank lines and comments\n",
        '# notes\n\n"""a docstring is code: the module has one"""\n',
        "# notes\n\\\n",  # a lone backslash: code, a syntax error Python names
        "\x1c# notes\n",  # not whitespace to Python: code, a syntax error Python names
        '{"nbformat": 4}\n',  # a dict display, not a notebook (it has no cells): Python source
        "{'cells': [], 'nbformat': 4}\n",  # Python's quotes, not JSON's
    ],
)
def test_a_file_with_a_line_of_code_is_read(tmp_path, source):
    (tmp_path / "a.py").write_text(source)
    assert _refusal(tmp_path / "a.py") is None


def test_the_bytes_read_are_the_bytes_staged(tmp_path):
    data = b"# -*- coding: latin-1 -*-\r\nname = 'caf\xe9'\r\n"
    (tmp_path / "a.py").write_bytes(data)
    source = intake.read(tmp_path / "a.py")
    assert source.data == data and source.text == "# -*- coding: latin-1 -*-\nname = 'café'\n"


# -- one file, every way in ------------------------------------------------------------------
HEADER = b"# Alice, ch06\n#\n# caf\xe9: an editor saved this file in latin-1\n"  # byte 0xe9 at line 3
NOT_UTF8 = f"is not UTF-8 (byte 0xe9 at line 3): {FIX}"


def _files() -> dict[str, bytes]:
    solution = reference_source(LAB).encode()
    return {
        "alice.py": HEADER + solution,
        "latin.py": b"# -*- coding: latin-1 -*-\n" + HEADER + solution + b"\nDRINK = 'caf\xe9'\n",
    }


def _write(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(_files()[name])
    return folder / name


def _clean_env(**extra: str) -> dict:
    noise = ("IMPL", "LABKIT_", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH")  # this test run's own grading
    return {k: v for k, v in os.environ.items() if not k.startswith(noise)} | extra


def _ci(fork: Path, starter: bytes) -> dict:
    """`grader ci` on a student's fork: the kit's student edition, with ``starter`` as the lab's starter."""
    edition.export_student(KIT_ROOT, fork)
    (fork / "labs" / LAB / "starter.py").write_bytes(starter)
    ci = subprocess.run(
        [sys.executable, "-m", "grader", "ci", "--lab", LAB, "--out", "reports/ci"],
        cwd=fork,
        env=_clean_env(PYTHONPATH=str(fork)),  # the fork's own kit, as CI on a fork runs it
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ci.returncode == 0, ci.stdout + ci.stderr
    return json.loads((fork / "reports" / "ci" / f"{LAB}.json").read_text())


@pytest.fixture(scope="module")
def ways(tmp_path_factory) -> dict:
    """Both files graded by `grader run` (in-process, behind the wall), `grader batch` and Gradescope; the
    one that is not UTF-8 by `grader ci` too."""
    top = tmp_path_factory.mktemp("intake")
    found: dict = {"python": {}, "run": {}, "ci": {}, "gradescope": {}}
    for name in _files():
        path = _write(top / "files", name)
        found["python"][name] = subprocess.run([sys.executable, str(path)], capture_output=True, text=True)
        for isolation in ("in-process", "worker"):
            report = top / f"{name}-{isolation}.json"
            args = ["run", "--lab", LAB, "--submission", str(path), "--isolation", isolation, "--json", str(report)]
            result = CliRunner().invoke(main, args)
            found["run"][name, isolation] = (result.exit_code, result.output, json.loads(report.read_text()))
        if name == "alice.py":  # grader ci grades it as `grader run` behind the wall does: the refusal's words
            found["ci"][name] = _ci(top / "fork", _files()[name])
        upload = _write(top / f"upload-{name}", name).parent
        results = top / f"results-{name}.json"
        assert gradescope.run(LAB, upload, results) == 0
        found["gradescope"][name] = json.loads(results.read_text())
    for name in _files():
        _write(top / "class", name)
    result = CliRunner().invoke(main, ["batch", str(top / "class"), "--lab", LAB, "--out", str(top / "batch")])
    assert result.exit_code == 0, result.output
    rows = csv.DictReader(io.StringIO((top / "batch" / "grades.csv").read_text()))
    found["batch"] = {r["student"] + ".py": r for r in rows}
    found["batch_report"] = json.loads((top / "batch" / "reports" / "latin.json").read_text())
    return found


def test_python_refuses_the_undeclared_file_and_runs_the_declared_one(ways):
    refused = ways["python"]["alice.py"]
    assert refused.returncode == 1 and "SyntaxError: Non-UTF-8 code starting with '\\xe9'" in refused.stderr
    assert "line 3" in refused.stderr
    assert ways["python"]["latin.py"].returncode == 0, ways["python"]["latin.py"].stderr


def test_a_file_that_is_not_utf8_gets_one_verdict_in_the_same_words_every_way_in(ways):
    tests = len(ways["run"]["latin.py", "worker"][2]["tests"])  # every test of the lab
    for isolation in ("in-process", "worker"):
        status, output, report = ways["run"]["alice.py", isolation]
        assert status == 1 and report["score"] == 0 and len(report["tests"]) == tests
        assert {(t["outcome"], t["message"]) for t in report["tests"]} == {("error", f"alice.py {NOT_UTF8}")}
        assert {t["line"] for t in report["tests"]} == {3}  # the byte's line, as a syntax error's (CI annotates it)
        assert f"alice.py {NOT_UTF8}" in " ".join(output.split())  # the table, its lines unwrapped
    ci = ways["ci"]["alice.py"]  # the fork's file is its labs/ch06/starter.py; a fork has no hidden tests
    visible = [t for t in ways["run"]["latin.py", "worker"][2]["tests"] if t["tier"] == "visible"]
    assert ci["score"] == 0 and len(ci["tests"]) == len(visible) < tests
    assert {(t["outcome"], t["message"]) for t in ci["tests"]} == {("error", f"starter.py {NOT_UTF8}")}
    assert {t["line"] for t in ci["tests"]} == {3}
    row = ways["batch"]["alice.py"]
    assert (row["status"], row["score"], row["reason"]) == ("invalid", "0", f"alice.py {NOT_UTF8}")
    results = ways["gradescope"]["alice.py"]
    assert results["score"] == 0 and results["tests"] == []
    assert results["output"].startswith(f"The file cannot be graded: alice.py {NOT_UTF8}.\n")


def test_a_latin1_file_with_its_declaration_is_graded_normally_every_way_in(ways):
    for isolation in ("in-process", "worker"):
        status, _, report = ways["run"]["latin.py", isolation]
        assert status == 0 and report["score"] == report["max_score"] == 120  # ch06's hidden tests too
    assert ways["batch"]["latin.py"]["status"] == "graded" and ways["batch"]["latin.py"]["score"] == "120"
    solo = ways["run"]["latin.py", "worker"][2]
    verdicts = [(t["id"], t["outcome"], t["message"]) for t in solo["tests"]]
    assert [(t["id"], t["outcome"], t["message"]) for t in ways["batch_report"]["tests"]] == verdicts
    assert ways["batch_report"]["implementation"]["sha256"] == solo["implementation"]["sha256"]
    assert ways["gradescope"]["latin.py"]["score"] == 120


# -- the wrong kinds of file, every way in ---------------------------------------------------
# A notebook, a binary, an empty file and a file with only comments are refused with one line;
# another lab's file is graded (the labs share Value) and flagged with whose it looks like.
WRONG_KINDS = {
    "work.ipynb": NOTEBOOK_JSON,
    "binary.py": b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)),
    "empty.py": b"",
    "notes.py": b"# I will write the lab here\n\n",
    "unicode.py": "x = 1\n".encode("utf-16"),  # Notepad's "Unicode"
}
REFUSED_AS = {
    "work.ipynb": NOTEBOOK,
    "binary.py": f"is a binary file (a zip archive, or a Word or Excel document), {NOT_SOURCE}",
    "empty.py": EMPTY,
    "notes.py": BLANK,
    "unicode.py": UTF16,
}
OTHER_LAB = "lesson1_3"
LOOKS_LIKE = f"looks like lab {OTHER_LAB}'s file"


def _fork(path: Path, starter: bytes) -> Path:
    edition.export_student(KIT_ROOT, path)
    (path / "labs" / LAB / "starter.py").write_bytes(starter)
    return path


def _mine(fork: Path) -> tuple[int, str, dict]:
    """`grader run --impl mine` in a fork: the student's own starter.py, in-process."""
    ran = subprocess.run(
        [sys.executable, "-m", "grader", "run", "--lab", LAB, "--impl", "mine", "--json", "mine.json"],
        cwd=fork,
        env=_clean_env(PYTHONPATH=str(fork)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    return ran.returncode, ran.stdout + ran.stderr, json.loads((fork / "mine.json").read_text())


@pytest.fixture(scope="module")
def kinds(tmp_path_factory) -> dict:
    """Each wrong kind of file graded by `grader run --submission` (behind the wall), `grader run --impl mine`
    and `grader ci` on a fork whose starter.py it is, Gradescope and one `grader batch` of them all."""
    top = tmp_path_factory.mktemp("kinds")
    files = {**WRONG_KINDS, "other.py": reference_source(OTHER_LAB).encode()}
    found: dict = {"run": {}, "mine": {}, "ci": {}, "gradescope": {}}
    for name, data in files.items():
        path = top / "files" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        report = top / f"{name}.json"
        result = CliRunner().invoke(main, ["run", "--lab", LAB, "--submission", str(path), "--json", str(report)])
        found["run"][name] = (result.exit_code, result.output, json.loads(report.read_text()))
        fork = _fork(top / f"fork-{name}", data)
        found["mine"][name] = _mine(fork)
        found["ci"][name] = _ci(top / f"ci-{name}", data)
        upload = top / f"upload-{name}"
        upload.mkdir()
        (upload / name).write_bytes(data)
        results = top / f"results-{name}.json"
        assert gradescope.run(LAB, upload, results) == 0
        found["gradescope"][name] = json.loads(results.read_text())
    result = CliRunner().invoke(main, ["batch", str(top / "files"), "--lab", LAB, "--out", str(top / "batch")])
    assert result.exit_code == 0, result.output
    found["batch"] = {r["student"]: r for r in csv.DictReader(io.StringIO((top / "batch" / "grades.csv").read_text()))}
    return found


@pytest.mark.parametrize("name", list(WRONG_KINDS))
def test_a_wrong_kind_of_file_gets_one_line_in_the_same_words_every_way_in(kinds, name):
    said = REFUSED_AS[name]
    status, table, report = kinds["run"][name]
    assert status == 1 and report["score"] == 0
    assert {(t["outcome"], t["message"]) for t in report["tests"]} == {("error", f"{name} {said}")}
    assert f"{name} {said}" in " ".join(table.split())  # the table a person reads, its lines unwrapped
    for way in ("mine", "ci"):  # the fork's file is its labs/ch06/starter.py
        tests = (kinds[way][name][2] if way == "mine" else kinds[way][name])["tests"]
        assert {(t["outcome"], t["message"]) for t in tests} == {("error", f"starter.py {said}")}, way
    assert f"starter.py {said}" in " ".join(kinds["mine"][name][1].split())
    student = name.rsplit(".", 1)[0]
    row = kinds["batch"][student]
    assert (row["status"], row["score"], row["reason"]) == ("invalid", "0", f"{name} {said}")
    results = kinds["gradescope"][name]
    assert results["score"] == 0 and results["output"].startswith(f"The file cannot be graded: {name} {said}.\n")


def test_another_labs_file_is_graded_and_every_way_in_says_whose_it_looks_like(kinds):
    status, table, report = kinds["run"]["other.py"]
    mine_status, mine_table, mine = kinds["mine"]["other.py"]
    for graded in (report, mine, kinds["ci"]["other.py"]):
        flags = [f for f in graded["flags"] if f["code"] == "another-lab"]
        assert [f["message"] for f in flags] == [
            f"{LOOKS_LIKE}: it defines 6 of lab {OTHER_LAB}'s 6 names and 1 of lab {LAB}'s 5; "
            f"was it meant for lab {OTHER_LAB}?"
        ]
        passed = [t for t in graded["tests"] if t["outcome"] == "passed"]
        assert "value" in {t["task"] for t in passed}  # the Value both labs have earns its points
    for shown in (table, mine_table):
        assert f"flag: {LOOKS_LIKE}:" in shown
    assert status == mine_status == 1
    row = kinds["batch"]["other"]
    assert row["status"] == "graded" and row["flags"] == "another-lab" and f"({LOOKS_LIKE})" in row["reason"]
    assert LOOKS_LIKE in kinds["gradescope"]["other.py"]["output"]

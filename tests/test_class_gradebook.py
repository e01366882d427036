"""A whole class, as an instructor gets one, graded three ways: the gradebook is one a course can sign.

The class is written apart from the kit's own grading code: two engines written
independently of the reference, a realistic bug, a file that does not parse, a file for
another lab, an untouched starter, two copies of one file that differ in their comments,
a slow engine, one that crashes its worker, a file that is not UTF-8, two students whose
ids once collided, and a fork whose `labs` folder is a link to a classmate's. It is graded
as a folder of files, as a folder of forks and as a zip of forks (shards and their merge:
tests/test_batch.py and tests/test_batch_shards.py). Every way must give every student the
same row; each graded student's report must equal their solo report test by test; every
score below full must say why.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import stat
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.grading import grade
from grader.implementation import Implementation
from tests import instructor
from tests.mutation import apply, catalogue, reference_source

LAB = "ch06"
# The same limits for the batch and the solo runs; a small CPU limit (far below the wall-clock
# ones, so it is always the one that stops a busy loop, even on a machine running ten times more
# processes than it has cores, as `make test` does while other work runs) makes the slow student
# cost seconds. Not below test_seconds_after_timeout (2 s): the student's second hang has that clock, and
# with 1 s of CPU the two limits raced on a loaded machine, giving the batch and the solo run different words.
LIMITS = {"cpu_seconds": 2, "test_seconds": 30, "call_seconds": 30, "run_seconds": 120}
LIMIT_ARGS = [arg for name, value in LIMITS.items() for arg in ("--limit", f"{name}={value}")]

CRASH = """
class Value:
    def __init__(self, data):  # reads unmapped memory: the worker dies of SIGSEGV
        np.lib.stride_tricks.as_strided(np.zeros(1), shape=(10,), strides=(1 << 40,)).sum()
"""
SLOW = """

_relu = Value.relu


def relu(self):  # endless on one input only: the test that asks for relu(0) runs out of CPU time
    while self.data == 0:
        pass
    return _relu(self)


Value.relu = relu
"""


def _sources() -> dict[str, bytes]:
    """Each student's file, by student id."""
    reference = reference_source(LAB)
    written_apart = {p.stem: p.read_text(encoding="utf-8") for p in instructor.submissions(LAB)}
    copied = "# my own work, honest\n" + reference
    return {
        "ana": written_apart["correct_functional"].encode(),
        "ben": written_apart["correct_alt_style"].encode(),
        "bob smith": apply(reference, catalogue(LAB)[0]).encode(),
        "bob_smith-7e50351d": reference.encode(),
        "cy": apply(reference, catalogue(LAB)[1]).encode(),
        "dee": b"def broken(:\n",
        "eve": reference_source("lesson1_3").encode(),
        "finn": labs.get(LAB).starter.read_bytes(),
        "gus": copied.encode(),
        "hana": ("# found this online\n" + copied.replace("\n\n\n", "\n\n\n# ok\n", 1)).encode(),
        "ivy": b"# r\xe9sum\xe9 of my work (latin-1, no declaration)\n" + reference.encode(),
        "kim": (reference + CRASH).encode(),
        "lou": (reference + SLOW).encode(),
    }


LINKED = "mal"  # in the forks, mal's labs folder is a link to ana's
NOT_GRADED = {"ivy": "invalid", LINKED: "invalid"}


def _files_layout(root: Path) -> Path:
    folder = root / "files"
    folder.mkdir()
    for student, source in _sources().items():
        (folder / f"{student}.py").write_bytes(source)
    (folder / f"{LINKED}.py").symlink_to(folder / "ana.py")  # a classmate's file
    return folder


def _forks_layout(root: Path) -> Path:
    folder = root / "forks"
    for student, source in _sources().items():
        starter = folder / student / "labs" / LAB / "starter.py"
        starter.parent.mkdir(parents=True)
        starter.write_bytes(source)
    (folder / LINKED).mkdir()
    (folder / LINKED / "labs").symlink_to(Path("..") / "ana" / "labs")
    return folder


def _zip_layout(root: Path, forks: Path) -> Path:
    archive = root / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(forks.rglob("*")):
            name = str(path.relative_to(forks))
            if path.is_symlink():  # kept as a link entry, as `zip -y` stores one
                info = zipfile.ZipInfo(name)
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                zf.writestr(info, os.readlink(path))
            elif path.is_file():
                zf.write(path, name)
    return archive


def _batch(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["batch", *args, "--lab", LAB, *LIMIT_ARGS])
    return result.exit_code, result.output


def _rows(out: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO((out / "grades.csv").read_text(encoding="utf-8"))))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded in each layout."""
    root = tmp_path_factory.mktemp("class")
    files, forks = _files_layout(root), _forks_layout(root)
    inputs = {"files": files, "forks": forks, "zip": _zip_layout(root, forks)}
    outs = {}
    for layout, given in inputs.items():
        outs[layout] = root / f"out-{layout}"
        status, output = _batch(str(given), "--out", str(outs[layout]), "--jobs", "2")
        assert status == 0, output  # a batch that graded everyone it could exits 0, whatever the scores
    return root, inputs, outs


def test_the_gradebook_has_exactly_one_row_per_student_in_every_layout(graded):
    _, _, outs = graded
    students = sorted([*_sources(), LINKED])
    for layout in ("files", "forks", "zip"):
        assert sorted(r["student"] for r in _rows(outs[layout])) == students, layout


def test_every_layout_gives_every_student_the_same_row(graded):
    _, _, outs = graded

    def verdicts(layout):
        # A refusal names the file as the layout holds it (mal.py, or mal/labs): the paths aside, the same words.
        return {
            r["student"]: (r["status"], r["score"], r["max_score"], re.sub(r"\S*[/.]\S*", "<path>", r["reason"]))
            for r in _rows(outs[layout])
        }

    files = verdicts("files")
    assert verdicts("forks") == files and verdicts("zip") == files
    for student, status in NOT_GRADED.items():
        assert files[student][0] == status, files[student]


def test_every_score_below_full_says_why(graded):
    _, _, outs = graded
    rows = {r["student"]: r for r in _rows(outs["files"])}
    below = [r for r in rows.values() if r["status"] != "graded" or float(r["score"]) < float(r["max_score"])]
    assert {r["student"] for r in below} == {"bob smith", "cy", "dee", "eve", "finn", "ivy", "kim", "lou", LINKED}
    assert not [r["student"] for r in below if not r["reason"].strip()], below
    full = [r for r in rows.values() if r["status"] == "graded" and float(r["score"]) == float(r["max_score"])]
    assert {r["student"] for r in full} == {"ana", "ben", "bob_smith-7e50351d", "gus", "hana"}
    assert not [r for r in full if r["reason"]]
    assert "not UTF-8" in rows["ivy"]["reason"] and "symbolic link" in rows[LINKED]["reason"]


def test_each_batch_report_equals_the_students_solo_report_test_by_test(graded):
    root, inputs, outs = graded
    lab = labs.get(LAB)
    lab = dataclasses.replace(lab, limits={**lab.limits, **LIMITS})
    records = {}
    for path in (outs["files"] / "records").glob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        records[record["student"]] = record
    compared = 0
    for student in _sources():
        record = records[student]
        if record["status"] != "graded":
            continue
        batch = json.loads((outs["files"] / "reports" / f"{record['key']}.json").read_text(encoding="utf-8"))
        solo = grade.grade(lab, Implementation("submission", inputs["files"] / f"{student}.py"), isolation="worker")

        def by_test(report):
            return {t["id"]: (t["outcome"], t["points"], t["message"]) for t in report["tests"]}

        assert by_test(batch) == by_test(solo), student
        compared += 1
    assert compared == len(_sources()) - 1  # all but ivy


def test_the_slow_and_the_crashing_student_lose_only_their_own_tests(graded):
    _, _, outs = graded
    rows = {r["student"]: r for r in _rows(outs["files"])}
    for student in ("kim", "lou"):
        assert rows[student]["status"] == "graded" and float(rows[student]["score"]) > 0, rows[student]
    reasons = rows["lou"]["reason"] + rows["kim"]["reason"]
    assert "timeout" in reasons and "crash" in reasons


def test_identical_submissions_are_grouped_in_the_summary(graded):
    _, _, outs = graded
    summary = json.loads((outs["files"] / "summary.json").read_text(encoding="utf-8"))
    text = json.dumps(summary)
    assert "gus" in text and "hana" in text
    groups = [g for g in _identical_groups(summary) if {"gus", "hana"} <= set(g)]
    assert groups, summary.get("identical")


def _identical_groups(summary: dict) -> list[list[str]]:
    """Every group of students the summary lists as identical, however it nests them."""
    found = []

    def walk(value):
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            found.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk({k: v for k, v in summary.items() if "identical" in k or "same" in k})
    return found


def test_a_file_too_deep_for_the_parser_gets_one_verdict_from_every_command(tmp_path):
    """Python's own parser gives up on it (RecursionError): the grader, the scan, the loader and the
    wall's zygote must each say so, in the same words, and go on."""
    deep = tmp_path / "deep" / "deb.py"
    deep.parent.mkdir()
    deep.write_text("x = " + "a + " * 3000 + "a\n")
    said = {}
    for isolation in ("in-process", "worker"):
        report = tmp_path / f"{isolation}.json"
        args = ["run", "--lab", LAB, "--submission", str(deep), "--isolation", isolation, "--json", str(report)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1, result.output
        said[isolation] = json.loads(report.read_text())
    status, output = _batch(str(deep.parent), "--out", str(tmp_path / "out"), "--jobs", "1")
    assert status == 0, output
    said["batch"] = json.loads((tmp_path / "out" / "reports" / "deb.json").read_text())
    expected = "deb.py does not parse: SyntaxError at an unknown line: nested too deeply for Python's compiler"
    for how, report in said.items():
        assert {(t["outcome"], t["message"]) for t in report["tests"]} == {("error", expected)}, how
        assert [f["code"] for f in report["flags"]] == ["unscanned"], how
    (row,) = _rows(tmp_path / "out")
    assert (row["student"], row["status"], row["score"]) == ("deb", "graded", "0") and row["reason"], row

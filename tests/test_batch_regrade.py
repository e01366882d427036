"""`grader batch --only`: some students regraded in a batch folder, everyone else left exactly as graded.

A class of four is graded once; then two students' files change, and only one of them is
regraded: their record, report, row and roster entry are new, the other's are untouched
(a later --resume grades them). Then what a regrade refuses, in one line each: a student the
folder does not hold, a folder that holds no batch, other limits, and, in one shard of a split,
a changed file (the other shards' rosters would disagree) or a student of another shard.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from tests.mutation import apply, catalogue, reference_source

LAB = "ch06"
QUICK = ("--jobs", "1", "--similarity-threshold", "off")


def _batch(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["batch", *args, *QUICK])
    return result.exit_code, result.output


def _rows(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def _roster(out: Path) -> dict[str, str]:
    return {s["student"]: s["sha256"] for s in json.loads((out / "batch.json").read_text())["roster"]}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("regrade") / "class"
    root.mkdir()
    (root / "s1.py").write_text(reference_source(LAB))
    (root / "s2.py").write_text(labs.get(LAB).starter.read_text())
    (root / "s3.py").write_text(apply(reference_source(LAB), catalogue(LAB)[0]))
    (root / "s4.py").write_text(reference_source(LAB))
    out = root.parent / "out"
    status, output = _batch(str(root), "--lab", LAB, "--out", str(out))
    assert status == 0, output
    return root, out


def test_only_the_named_student_is_regraded_and_the_class_files_written_again(graded, tmp_path):
    root, first = graded
    out = tmp_path / "out"
    out.mkdir()
    for part in first.iterdir():  # a copy: the other tests read the fixture's folder as graded
        target = out / part.name
        target.write_bytes(part.read_bytes()) if part.is_file() else _copy_tree(part, target)
    before = _rows(out)
    assert before["s2"]["score"] == "0" and before["s3"]["score"] != "120"
    kept = {p.name: p.stat().st_mtime_ns for p in (out / "records").iterdir() if p.stem != "s2"}
    roster = _roster(out)
    changed = tmp_path / "class"
    _copy_tree(root, changed)
    (changed / "s2.py").write_text(reference_source(LAB))  # fixed, say, after the deadline was extended
    (changed / "s3.py").write_text(reference_source(LAB))  # changed too, but not asked for

    status, output = _batch(str(changed), "--lab", LAB, "--out", str(out), "--only", "s2")
    assert status == 0, output
    assert "[1/1] s2: 120/120" in output.splitlines()  # the one student graded
    assert any(
        line.startswith("ch06: regraded s2 in ") and "the class: 4 students" in line for line in output.splitlines()
    )
    after = _rows(out)
    assert after["s2"]["score"] == "120"
    assert {s: after[s] for s in ("s1", "s3", "s4")} == {s: before[s] for s in ("s1", "s3", "s4")}
    assert {p.name: p.stat().st_mtime_ns for p in (out / "records").iterdir() if p.stem != "s2"} == kept
    assert _roster(out) == {**roster, "s2": after["s2"]["sha256"]} and after["s2"]["sha256"] != roster["s2"]
    assert json.loads((out / "reports" / "s2.json").read_text())["score"] == 120
    assert "every test passed" in (out / "feedback" / "s2.md").read_text()

    # The student left as graded is not current any more: a resume grades them, and only them.
    status, output = _batch(str(changed), "--lab", LAB, "--out", str(out), "--resume")
    assert status == 0, output
    assert "graded now 1, up to date 3" in output and _rows(out)["s3"]["score"] == "120"


def _copy_tree(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for part in source.iterdir():
        if part.is_dir():
            _copy_tree(part, target / part.name)
        else:
            (target / part.name).write_bytes(part.read_bytes())


def _one_line_error(status: int, output: str) -> str:
    assert status == 2 and len(output.splitlines()) == 1, output
    return output


def test_a_student_the_folder_does_not_hold_is_refused(graded):
    root, out = graded
    error = _one_line_error(*_batch(str(root), "--lab", LAB, "--out", str(out), "--only", "mallory"))
    assert "not in this folder's class: 'mallory'" in error


def test_a_folder_without_a_batch_is_refused(graded, tmp_path):
    root, _ = graded
    error = _one_line_error(*_batch(str(root), "--lab", LAB, "--out", str(tmp_path / "none"), "--only", "s1"))
    assert "is not a batch folder (no batch.json)" in error


def test_other_limits_than_the_folders_are_refused(graded):
    root, out = graded
    before = (out / "batch.json").read_text()
    error = _one_line_error(
        *_batch(str(root), "--lab", LAB, "--out", str(out), "--only", "s1", "--limit", "cpu_seconds=7")
    )
    assert "graded by other limits than this run's" in error
    assert (out / "batch.json").read_text() == before


def test_in_a_shard_only_an_unchanged_file_of_its_own_students_is_regraded(graded, tmp_path):
    root, _ = graded
    part = tmp_path / "shard1"
    status, output = _batch(str(root), "--lab", LAB, "--out", str(part), "--shard", "1/2")
    assert status == 0, output
    mine, theirs = sorted(_rows(part)), sorted(set(_roster(part)) - set(_rows(part)))
    status, output = _batch(str(root), "--lab", LAB, "--out", str(part), "--only", mine[0])
    assert status == 0, output  # the same file again, e.g. after an infrastructure error
    other = tmp_path / "shard2"
    status, output = _batch(str(root), "--lab", LAB, "--out", str(other), "--shard", "2/2")
    assert status == 0, output
    merged = CliRunner().invoke(main, ["merge", str(part), str(other), "--lab", LAB, "--out", str(tmp_path / "all")])
    assert merged.exit_code == 0, merged.output  # still one class
    error = _one_line_error(*_batch(str(root), "--lab", LAB, "--out", str(part), "--only", theirs[0]))
    assert f"'{theirs[0]}' is in another shard than this folder's 1/2" in error
    changed = tmp_path / "class"
    _copy_tree(root, changed)
    (changed / f"{mine[0]}.py").write_text("# another file\n" + reference_source(LAB))
    error = _one_line_error(*_batch(str(changed), "--lab", LAB, "--out", str(part), "--only", mine[0]))
    assert f"shard 1/2 of a split: the inputs changed for '{mine[0]}'" in error

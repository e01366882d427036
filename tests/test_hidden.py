"""Hidden tests: a lab's instructor-only tests (labs/<id>/hidden/, declared by lab.toml's [hidden]).

They are graded by the instructor's kit (`grader run`, `batch`, `collect` + `batch`, the Gradescope
package: tests/test_gradescope.py, tests/test_collect.py), never shipped in the student edition, so
never in a fork or a student's own run, never readable from behind the wall; and they are strong where
the visible tests can be gamed: a submission tuned to the visible cases
(labs/<id>/instructor/tuned/visible_only.py) passes every visible test and fails every hidden one.
"""

import ast
import csv
import errno
import hashlib
import io
import json
import shutil
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.grading import grade, runner
from grader.implementation import Implementation
from grader.kit import edition
from grader.limits import Limits
from grader.wall.session import WallSession
from tests import grading, instructor, mutation

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

LABS = sorted(labs.discover())
HIDDEN_POINTS = {"ch06": 20, "lesson1_3": 30}  # each lab's visible tests are worth 100
SCHEMA = json.loads((labs.KIT_ROOT / "grader" / "report" / "schemas" / "report.schema.json").read_text())
ATTACK = Path(__file__).parent / "attacks" / "read_hidden_tests.py"
LEAK = Path(__file__).parent / "attacks" / "leak_the_hidden_cases.py"


def _hidden(tests: list[dict]) -> list[dict]:
    return [t for t in tests if t["tier"] == labs.HIDDEN]


def test_every_lab_has_hidden_tests_with_points_of_their_own():
    assert sorted(HIDDEN_POINTS) == LABS, "a lab without a hidden set (or one this test does not know)"
    for lab_id in LABS:
        lab = labs.get(lab_id)
        assert lab.hidden_tests == ("hidden/test_hidden.py",), lab_id
        collected = runner.collect(lab)
        hidden = _hidden(collected)
        assert len(hidden) >= 8 and sum(t["points"] for t in hidden) == HIDDEN_POINTS[lab_id], lab_id
        assert all(t["id"].startswith("hidden/test_hidden.py::test_hidden_") for t in hidden), lab_id
        visible = [t for t in collected if t["tier"] == "visible"]
        assert sum(t["points"] for t in visible) == 100 and not [t for t in visible if "::" in t["id"]], lab_id
        assert {t["task"] for t in hidden} == {task.id for task in lab.tasks}, f"{lab_id}: a task without one"


@pytest.mark.parametrize("lab_id", LABS)
def test_a_submission_tuned_to_the_visible_cases_loses_every_hidden_point(lab_id):
    """Graded behind the wall as every submission is: the visible tests are all passed, so a student's
    own copy of the kit (which has no hidden tests) shows full marks; the hidden ones all fail."""
    tuned = instructor.tuned(lab_id)
    report = grading.grade(lab_id, tuned, "worker")
    visible = [t for t in report["tests"] if t["tier"] == "visible"]
    assert [t["id"] for t in visible if t["outcome"] != "passed"] == []
    assert [t["id"] for t in _hidden(report["tests"]) if t["outcome"] == "passed"] == []
    assert all(t["message"] for t in _hidden(report["tests"]))  # each says what it found wrong
    assert (report["score"], report["max_score"]) == (100, 100 + HIDDEN_POINTS[lab_id])
    as_a_student_sees_it = grade.grade(
        labs.get(lab_id).visible_only(), Implementation("submission", tuned), isolation="worker"
    )
    assert (as_a_student_sees_it["score"], as_a_student_sees_it["max_score"]) == (100, 100)
    assert not _hidden(as_a_student_sees_it["tests"])


def test_the_report_says_each_tests_tier_and_counts_the_hidden_ones_per_task():
    report = grading.grade("ch06", "ref")
    jsonschema.validate(report, SCHEMA)
    hidden = _hidden(report["tests"])
    assert hidden and {t["tier"] for t in report["tests"]} == {"visible", "hidden"}
    for task in report["tasks"]:
        mine = [t for t in hidden if t["task"] == task["id"]]
        assert task["hidden"] == {"passed": len(mine), "tests": len(mine)}, task["id"]
    lab = labs.get("ch06")
    assert report["kit"]["tests_sha256"] == lab.tests_sha256()
    assert lab.visible_only().tests_sha256() == hashlib.sha256(lab.tests.read_bytes()).hexdigest()
    assert lab.tests_sha256() != lab.visible_only().tests_sha256()  # a report says which set graded it


def test_grader_run_shows_the_hidden_tests_apart_and_leaves_them_out_when_asked():
    shown = CliRunner().invoke(main, ["run", "--lab", "ch06", "--impl", "ref"])
    assert shown.exit_code == 0, shown.output
    hidden = _hidden(runner.collect(labs.get("ch06")))
    value = sum(t["task"] == "value" for t in hidden)
    line = next(line for line in shown.output.splitlines() if line.startswith("Task 1: Value"))
    assert f"hidden {value} of {value}" in line
    assert f"Total: {100 + HIDDEN_POINTS['ch06']}/{100 + HIDDEN_POINTS['ch06']}" in shown.output
    columns = {len(line) for line in shown.output.splitlines() if line.startswith("Task ")}
    assert columns == {100}, "the task lines' columns do not line up"
    student = CliRunner().invoke(main, ["run", "--lab", "ch06", "--impl", "ref", "--visible-only"])
    assert student.exit_code == 0 and "Total: 100/100" in student.output and "hidden" not in student.output
    listed = CliRunner().invoke(main, ["list"])
    points, count = HIDDEN_POINTS["ch06"], len(hidden)
    assert f"of which hidden tests: {points} points, {count} tests (ch06/hidden/)" in listed.output


def test_the_student_edition_has_no_hidden_test_and_the_gradescope_edition_has_them(tmp_path):
    files = edition.export_student(labs.KIT_ROOT, tmp_path / "student")
    assert not [f for f in files if labs.is_hidden_file(f) or "/hidden/" in f]
    manifest = json.loads((tmp_path / "student" / "grader" / "MANIFEST.json").read_text())
    assert not [f for f in manifest["files"] if "hidden" in f]
    for lab_id in LABS:
        shipped = (tmp_path / "student" / "labs" / lab_id / "lab.toml").read_text()
        kit = tomllib.loads(labs.get(lab_id).folder.joinpath("lab.toml").read_text())
        assert "hidden" not in shipped and tomllib.loads(shipped) == {k: v for k, v in kit.items() if k != "hidden"}
        assert labs.load(tmp_path / "student" / "labs" / lab_id).hidden_tests == ()
    with_hidden = edition.export_student(labs.KIT_ROOT, tmp_path / "gradescope", hidden_tests=True)
    for lab_id in LABS:
        assert f"labs/{lab_id}/hidden/test_hidden.py" in with_hidden
        assert labs.load(tmp_path / "gradescope" / "labs" / lab_id).hidden_tests == ("hidden/test_hidden.py",)


LAB_TOML = """\
title = "A lab"
public = ["f"]

[[tasks]]
id = "t"
title = "Task 1"
"""


@pytest.mark.parametrize(
    ("table", "after"),
    [
        ('\n# The instructor\'s tests.\n[hidden]\ntests = ["hidden/test_hidden.py"]\n', ""),
        ('\n[hidden]\ntests = ["hidden/test_hidden.py"]\n', "\n[limits]\ntest_seconds = 5\n"),
    ],
)
def test_the_student_lab_toml_loses_the_hidden_table_and_nothing_else(table, after):
    text = LAB_TOML + table + after
    left = edition.without_hidden_tests(text, "labs/x/lab.toml")
    assert left == LAB_TOML + after
    assert tomllib.loads(left) == {k: v for k, v in tomllib.loads(text).items() if k != "hidden"}
    assert edition.without_hidden_tests(LAB_TOML, "labs/x/lab.toml") == LAB_TOML


def test_a_hidden_table_the_edition_cannot_remove_whole_stops_the_export():
    text = LAB_TOML + '\n[hidden]\ntests = ["hidden/test_hidden.py"]\n\n[hidden.seeds]\nvalue = 7\n'
    with pytest.raises(edition.EditionError, match=r"^labs/x/lab.toml: its \[hidden\] table is not where expected"):
        edition.without_hidden_tests(text, "labs/x/lab.toml")


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ('"hidden/test_hidden.py"', "[hidden] tests must be a list of paths"),
        ('["test_lab.py"]', "[hidden] 'test_lab.py' is not a test_*.py file under hidden/"),
        ('["../other/hidden/test_x.py"]', "[hidden] '../other/hidden/test_x.py' is not a test_*.py file under hidden/"),
        ('["hidden/cases.py"]', "[hidden] 'hidden/cases.py' is not a test_*.py file under hidden/"),
        ('["hidden/test_gone.py"]', "[hidden] 'hidden/test_gone.py' is not a regular file in"),
        ('["hidden/test_link.py"]', "[hidden] 'hidden/test_link.py' is not a regular file in"),
    ],
)
def test_a_bad_hidden_declaration_is_refused_naming_the_lab_toml(tmp_path, declared, message):
    folder = tmp_path / "labs" / "x"
    (folder / "hidden").mkdir(parents=True)
    (folder / "hidden" / "cases.py").write_text("CASES = []\n")
    (tmp_path / "elsewhere.py").write_text("def test_x():\n    pass\n")
    (folder / "hidden" / "test_link.py").symlink_to(tmp_path / "elsewhere.py")
    (folder / "lab.toml").write_text(LAB_TOML + f"\n[hidden]\ntests = {declared}\n")
    with pytest.raises(labs.LabError) as refused:
        labs.load(folder)
    assert str(refused.value).startswith(f"{folder / 'lab.toml'}: ") and message in str(refused.value)


def test_the_wall_keeps_the_hidden_tests_out_of_the_submissions_reach(tmp_path):
    """With the Python guards disarmed, the submission reads, lists and searches for the hidden tests: the
    kernel's answer is that they do not exist in its world (the kit is not mounted), and /proc/1/root, the
    sandbox's own init, is not its to enter."""
    attack = tmp_path / "read_hidden_tests.py"
    attack.write_text(ATTACK.read_text().replace("@KIT@", str(labs.KIT_ROOT)))
    lab = labs.get("ch06")
    assert (lab.folder / lab.hidden_tests[0]).is_file()  # there to be found, outside the wall
    session = WallSession(lab, attack, Limits.from_lab(lab.limits))
    try:
        results = ast.literal_eval(session.public("Value")())
        session.end()
    finally:
        session.close()
    for name in ("hidden test", "lab.toml", "hidden folder", "lab folder"):
        assert results[name] == errno.ENOENT, results
    assert results["through /proc/1/root"] in (errno.EACCES, errno.ENOENT, errno.EPERM), results
    assert results["found"] == [] and results["folders searched"] > 100, results  # it did look everywhere


@pytest.mark.parametrize("isolation", ["worker", "in-process"])
def test_what_the_hidden_tests_hand_the_code_never_reaches_a_visible_result(isolation, tmp_path):
    """The submission remembers every number the tests hand `Value` and raises them in every test that makes a
    tensor: the hidden tests run after every visible one, so each visible test's outcome and message are the
    same as in a student's copy, which has no hidden tests (run before, their cases were in those messages)."""
    lab = labs.get("ch06")
    attack = tmp_path / "leak.py"
    attack.write_text(mutation.reference_source("ch06") + "\n" + LEAK.read_text())
    impl = Implementation("submission", attack)
    alone = runner.run_tests(lab.visible_only(), impl, isolation=isolation)
    graded = runner.run_tests(lab, impl, isolation=isolation)
    told = [r for r in alone.results if r.outcome == "error" and "seen: [" in r.message]
    assert len(told) > 10 and any(r.task == "tensor" for r in told)  # it did tell what it saw, test after test
    visible = [r for r in graded.results if r.tier == "visible"]
    assert [(r.id, r.outcome, r.message) for r in visible] == [(r.id, r.outcome, r.message) for r in alone.results]
    assert any(r.tier == labs.HIDDEN and "seen: [" in r.message for r in graded.results)  # they did run, and told


def test_batch_grades_the_hidden_tests_and_the_gradebook_counts_them(tmp_path):
    lab_id = "lesson1_3"
    folder = tmp_path / "class"
    for student, source in (("tuned", instructor.tuned(lab_id)), ("honest", instructor.submissions(lab_id)[0])):
        (folder / student).mkdir(parents=True)
        shutil.copy(source, folder / student / "starter.py")
    out = tmp_path / "grades"
    result = CliRunner().invoke(main, ["batch", str(folder), "--lab", lab_id, "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}
    full = 100 + HIDDEN_POINTS[lab_id]
    assert (rows["tuned"]["score"], rows["honest"]["score"]) == ("100", str(full))
    assert rows["tuned"]["max_score"] == str(full)
    tuned = json.loads((out / "reports" / "tuned.json").read_text())
    assert {t["tier"] for t in tuned["tests"] if t["outcome"] != "passed"} == {labs.HIDDEN}

"""grader export (grader.batch.export, lms, final_grades, late, overrides): a real small class graded by
`grader batch`, then exported for Canvas, Moodle and as the full CSV with a roster, a late policy and
overrides; the late policy and the overrides as pure functions on their edge cases; bad input refused in
one line, nothing written."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import pwd
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.batch import collection, final_grades, freshness, inputs, late, lms, overrides, roster, shards
from grader.cli import main
from tests.mutation import apply, catalogue, reference_source
from tests.test_collect import DEADLINE as COLLECT_DEADLINE
from tests.test_collect import HOUR, STARTER, Fork
from tests.test_collect import LAB as COLLECT_LAB

LAB = "ch06"
FORMULA = "=cmd"  # a student id a spreadsheet would run as a formula
ROSTER = (
    "Student ID,Full Name,LMS ID,Section,submitted_at\n"
    "ana,Ana A,101,S1,2026-12-01T23:00:00Z\n"
    f'{FORMULA},"=HYPERLINK(""http://x"")",102,S1,2026-12-03T00:00:00Z\n'  # 24 h 1 min late: 2 days
    "blank,Blank B,103,S2,\n"
    "zed,Zed Z,104,S2,\n"  # no submission
)
DUE = "2026-12-01T23:59:00Z"
COLLECT_CORRECT = reference_source(COLLECT_LAB)
POLICY = ["--late-per-day", "10", "--late-cap", "50", "--late-grace", "15m", "--due", DUE]


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """A class of ch06 graded by a real `grader batch`: a correct file, a buggy one (whose id is a formula),
    an empty file (invalid), and a student the roster does not list; returns the batch's folder."""
    root = tmp_path_factory.mktemp("export")
    folder = root / "class"
    folder.mkdir()
    (folder / "ana.py").write_text(reference_source(LAB))
    (folder / f"{FORMULA}.py").write_text(apply(reference_source(LAB), catalogue(LAB)[0]))
    (folder / "blank.py").write_text("")
    (folder / "extra.py").write_text(reference_source(LAB))
    out = root / "out"
    args = ["batch", str(folder), "--lab", LAB, "--out", str(out), "--jobs", "2", "--similarity-threshold", "off"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def out(graded, tmp_path) -> Path:
    """A fresh copy of the graded folder, so that each test's overrides and audit trail are its own."""
    copy = tmp_path / "out"
    copy.mkdir()
    for path in graded.rglob("*"):
        if path.is_file():
            target = copy / path.relative_to(graded)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    (tmp_path / "roster.csv").write_text(ROSTER)
    return copy


def _export(out: Path, *args: str, roster_path: Path | None = None):
    roster_path = roster_path or out.parent / "roster.csv"
    return CliRunner().invoke(main, ["export", str(out), "--roster", str(roster_path), *args])


def _report(out: Path, student: str, key: str | None = None) -> dict:
    record = json.loads((out / "records" / f"{key or _key(out, student)}.json").read_text())
    return json.loads((out / record["report"]).read_text())


def _key(out: Path, student: str) -> str:
    for path in (out / "records").glob("*.json"):
        record = json.loads(path.read_text())
        if record["student"] == student and "~" not in path.stem:  # not the student's late work
            return path.stem
    raise KeyError(student)


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


# -- the formats ------------------------------------------------------------------------------------------------


def test_canvas_has_its_header_the_points_possible_row_and_one_row_per_roster_student(out):
    result = _export(out, "--format", "canvas", "--assignment", "Lab 6", "--assignment-id", "4242")
    assert result.exit_code == 0, result.output
    rows = _rows(out / "gradebook-canvas.csv")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 6 (4242)"]
    max_score = _report(out, "ana")["max_score"]
    assert rows[1] == ["    Points Possible", "", "", "", "", f"{max_score:g}"]
    assert [r[1] for r in rows[2:]] == ["101", "102", "103", "104"]  # the roster's order, nobody else
    ana, formula, blank, zed = rows[2:]
    assert ana == ["Ana A", "101", "", "", "S1", f"{max_score:g}"]
    assert formula[0] == '\'=HYPERLINK("http://x")'  # written as text, never run
    assert blank[5] == "0"  # handed in, not graded: a zero
    assert zed[5] == ""  # no submission: missing, not zero
    assert "extra" in result.output  # graded but not on the roster: warned about


def test_missing_as_zero_gives_the_student_with_no_submission_zero(out):
    result = _export(out, "--format", "canvas", "--missing-as-zero")
    assert result.exit_code == 0, result.output
    rows = _rows(out / "gradebook-canvas.csv")
    assert rows[0][-1] == LAB  # the assignment is named after the lab by default
    assert rows[-1][:2] == ["Zed Z", "104"] and rows[-1][5] == "0"


def test_a_student_late_by_the_lms_loses_the_policys_penalty_in_its_own_column(out):
    result = _export(out, "--format", "csv", *POLICY)
    assert result.exit_code == 0, result.output
    rows = {r["student"]: r for r in csv.DictReader(io.StringIO((out / "gradebook-csv.csv").read_text()))}
    score = _report(out, FORMULA)["score"]
    late_row = rows["'" + FORMULA]  # the id escaped as well
    assert late_row["status"] == "late" and late_row["late_by"] == "24:01:00"
    assert float(late_row["graded_score"]) == score
    assert float(late_row["late_penalty"]) == pytest.approx(score * 0.2)  # 24 h 1 min: 2 days begun
    assert float(late_row["final_score"]) == pytest.approx(score * 0.8)
    ana = rows["ana"]
    assert ana["status"] == "graded" and ana["late_penalty"] == "0" and ana["final_score"] == ana["graded_score"]
    assert rows["blank"]["status"] == "invalid" and rows["blank"]["final_score"] == "0" and rows["blank"]["reason"]
    assert rows["zed"]["status"] == "missing" and rows["zed"]["final_score"] == ""
    assert rows["extra"]["status"] == "not-on-roster"  # after the roster's students, in the csv format only
    assert list(rows) == ["ana", "'" + FORMULA, "blank", "zed", "extra"]


def test_moodle_has_an_identifier_the_grade_and_feedback(out):
    email_roster = out.parent / "emails.csv"
    email_roster.write_text("login,email,name\nana,ana@uni.example,Ana\nzed,zed@uni.example,Zed\n")
    result = _export(out, "--format", "moodle", "--assignment", "Lab 6", roster_path=email_roster)
    assert result.exit_code == 0, result.output
    max_score = _report(out, "ana")["max_score"]
    assert _rows(out / "gradebook-moodle.csv") == [
        ["Email address", "Lab 6", "Feedback"],
        ["ana@uni.example", f"{max_score:g}", ""],
        ["zed@uni.example", "", ""],
    ]


def test_moodles_feedback_is_html_escaped():
    """A security review: Moodle shows a grade's feedback as HTML, and an invalid student's reason quotes their
    file's name (`<b>x<\\b><img src=x onerror=alert(1)>.py is empty`)."""
    entry = {
        "lms_id": "1002",
        "final": 0,
        "status": "invalid",
        "reason": "<img src=x onerror=alert(1)>.py is empty (0 bytes)",
        "late_penalty": 0,
        "late_by": "",
        "overrides": [],
    }
    (_, row) = list(csv.reader(io.StringIO(lms.moodle([entry], "Lab 6"))))
    assert row[2] == "not graded (invalid): &lt;img src=x onerror=alert(1)&gt;.py is empty (0 bytes)"


def test_an_override_changes_the_grade_and_leaves_an_audit_line(out):
    report = _report(out, FORMULA)
    lost = next(t for t in report["tests"] if t["points"] < t["max_points"])
    (out / "overrides.csv").write_text(
        "student,target,points,reason,who\n"
        f"{FORMULA},{lost['id']},{lost['max_points']},regrade: the test was wrong,prof\n"
        "zed,total,5,excused in part,ta1\n"
    )
    result = _export(out, "--format", "csv", *POLICY)
    assert result.exit_code == 0, result.output
    doc = final_grades.read(out)
    assert doc == json.loads((out / "final_grades.json").read_text()) and doc["lab"] == LAB
    by_student = {e["student"]: e for e in doc["students"]}
    assert [e["student"] for e in doc["not_on_roster"]] == ["extra"]
    regraded = by_student[FORMULA]
    fixed = report["score"] + lost["max_points"] - lost["points"]
    assert regraded["graded_score"] == pytest.approx(fixed)  # the test's points replaced, before the penalty
    assert regraded["final"] == pytest.approx(fixed * 0.8)
    assert regraded["overrides"] == [
        {"target": lost["id"], "points": lost["max_points"], "reason": "regrade: the test was wrong", "who": "prof",
         "was": lost["points"]},
    ]  # fmt: skip
    assert by_student["zed"]["final"] == 5 and by_student["zed"]["status"] == "missing"
    audit = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    assert len(audit) == 1
    line = audit[0]
    assert line["format"] == "csv" and line["user"] == pwd.getpwuid(os.geteuid()).pw_name
    assert line["time"].endswith("+00:00") and line["output"] == str(out / "gradebook-csv.csv")
    assert len(line["roster_sha256"]) == 64 and len(line["overrides_sha256"]) == 64
    assert line["inputs"] == "same"  # the class folder still holds the files graded
    adjusted = {a["student"]: a for a in line["adjusted"]}
    assert sorted(adjusted) == sorted([FORMULA, "zed"])
    assert adjusted[FORMULA]["late_penalty"] == pytest.approx(fixed * 0.2)
    assert adjusted["zed"]["overrides"][0]["who"] == "ta1"
    assert _export(out, "--format", "canvas").exit_code == 0
    assert len((out / "audit.jsonl").read_text().splitlines()) == 2  # each export appends its line


def test_a_course_file_gives_the_policy_and_the_command_line_wins(out):
    course = out.parent / "course.toml"
    course.write_text(f'[late]\nper_day = 25\ncap = 50\ngrace = "15m"\ndue = "{DUE}"\n')
    assert _export(out, "--format", "csv", "--course", str(course)).exit_code == 0
    by_student = {e["student"]: e for e in json.loads((out / "final_grades.json").read_text())["students"]}
    assert by_student[FORMULA]["late_penalty"] == pytest.approx(by_student[FORMULA]["graded_score"] * 0.5)  # capped
    assert _export(out, "--format", "csv", "--course", str(course), "--late-per-day", "5").exit_code == 0
    by_student = {e["student"]: e for e in json.loads((out / "final_grades.json").read_text())["students"]}
    assert by_student[FORMULA]["late_penalty"] == pytest.approx(by_student[FORMULA]["graded_score"] * 0.1)


def test_submission_times_from_a_file_of_the_lms(out):
    times = out.parent / "times.csv"
    times.write_text(f"student,submitted_at\nana,2026-12-02T00:14:00Z\n{FORMULA},2026-12-01T12:00:00+01:00\n")
    plain = out.parent / "plain.csv"
    plain.write_text("student,lms_id\nana,1\n" + f"{FORMULA},2\n")
    result = _export(out, "--format", "csv", "--submission-times", str(times), roster_path=plain)
    assert result.exit_code == 2 and "submission times are given but no late policy" in result.output
    args = ["--format", "csv", "--submission-times", str(times), "--late-per-day", "10", "--due", DUE]
    assert _export(out, *args, roster_path=plain).exit_code == 0
    by_student = {e["student"]: e for e in json.loads((out / "final_grades.json").read_text())["students"]}
    assert by_student["ana"]["late_by"] == "0:15:00" and by_student["ana"]["late_penalty"] > 0  # no grace given
    assert by_student[FORMULA]["late_penalty"] == 0 and by_student[FORMULA]["status"] == "graded"  # early
    result = _export(out, *args, "--late-grace", "15m", roster_path=plain)
    assert result.exit_code == 0
    by_student = {e["student"]: e for e in json.loads((out / "final_grades.json").read_text())["students"]}
    assert by_student["ana"]["late_penalty"] == 0 and by_student["ana"]["status"] == "graded"  # within the grace
    assert by_student["ana"]["late_by"] == "0:15:00"  # shown all the same


def test_a_due_time_is_read_even_when_unused_and_an_unused_one_is_said(out):
    """--due is checked whatever it is used for; with no LMS submission times it is not used, and the
    export says so (lateness may come from grader collect's commits) rather than drop it in silence."""
    plain = out.parent / "plain.csv"
    plain.write_text("student,lms_id\nana,1\n" + f"{FORMULA},2\n")
    result = _export(out, "--format", "csv", "--due", "next friday", roster_path=plain)
    assert result.exit_code == 2 and "due time" in result.output and "next friday" in result.output, result.output
    result = _export(out, "--format", "csv", "--due", DUE, roster_path=plain)
    assert result.exit_code == 0 and "warning: the due time is not used: no LMS submission times" in result.output


def test_collected_late_work_counts_as_the_better_of_on_time_and_penalised_late(tmp_path):
    # two forks collected by grader collect, graded by grader batch: the commit times say how late
    forks = {name: Fork(tmp_path, name) for name in ("ada", "bo")}
    forks["ada"].commit(-60, {STARTER: apply(COLLECT_CORRECT, catalogue(COLLECT_LAB)[0])})  # on time, buggy
    forks["ada"].commit(3 * HOUR, {STARTER: COLLECT_CORRECT})  # fixed 3 h late: 1 day
    forks["bo"].commit(26 * HOUR, {STARTER: COLLECT_CORRECT})  # late work only, 26 h late: 2 days
    fork_roster = tmp_path / "forks.csv"
    fork_roster.write_text("student,url\n" + "".join(f"{n},{f.url}\n" for n, f in forks.items()))
    collection, out = tmp_path / "collection", tmp_path / "out"
    for args in (
        ["collect", str(fork_roster), "--deadline", COLLECT_DEADLINE, "--out", str(collection), "--lab", COLLECT_LAB],
        ["batch", str(collection), "--lab", COLLECT_LAB, "--out", str(out), "--similarity-threshold", "off"],
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
    (tmp_path / "roster.csv").write_text("student,lms_id\nada,1\nbo,2\n")
    on_time, late_work = _report(out, "ada")["score"], _report(out, "ada", key="ada~late")["score"]
    assert on_time < late_work

    def finals(*args: str) -> dict[str, dict]:
        result = _export(out, "--format", "csv", *args)
        assert result.exit_code == 0, result.output
        return {e["student"]: e for e in json.loads((out / "final_grades.json").read_text())["students"]}

    graded = finals("--late-per-day", "10")
    assert graded["ada"]["final"] == pytest.approx(max(on_time, late_work * 0.9))
    assert graded["ada"]["late_by"] == ("3:00:00" if late_work * 0.9 > on_time else "")
    assert graded["bo"]["status"] == "late" and graded["bo"]["final"] == pytest.approx(late_work * 0.8)
    assert graded["bo"]["late_by"] == "26:00:00" and graded["bo"]["late_penalty"] == pytest.approx(late_work * 0.2)
    lenient = finals("--late-per-day", "0")  # late work accepted in full: the better one is the late one
    assert lenient["ada"]["final"] == late_work and lenient["ada"]["status"] == "late"
    assert lenient["ada"]["source"] == "late work" and lenient["ada"]["late_penalty"] == 0
    harsh = finals("--late-per-day", "100")  # late work worth nothing: the on-time score stands
    assert harsh["ada"]["final"] == on_time and harsh["ada"]["status"] == "graded" and harsh["bo"]["final"] == 0
    no_policy = finals()  # late work does not count, as grades.csv shows it
    assert no_policy["ada"]["final"] == on_time and no_policy["bo"]["final"] == 0 and no_policy["bo"]["reason"]


# -- bad input: one line, exit 2, nothing written ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("roster_text", "args", "overrides_text", "message"),
    [
        (b"student,name\nana,A\nana,B\n", [], None, "roster.csv, line 3: student 'ana' is already on line 2"),
        (b"name,section\nA,S1\n", [], None, "roster.csv, line 1: the header has no column for a student id"),
        (b"student,name\nal\xe9,A\n", [], None, "roster.csv is not UTF-8 text (byte 0xe9 at line 2)"),
        (b"Student,ID\nAna A,101\n", [], None, "no student of the roster has a record in"),  # names, not ids
        (None, ["--late-per-day", "150"], None, "the late per-day percentage must be a number from 0 to 100"),
        (None, ["--late-per-day", "10", "--late-grace", "soon"], None, "'soon' is not a duration"),
        (None, ["--late-cap", "20"], None, "a late policy needs its percentage per day"),
        (None, ["--late-per-day", "10"], None, "submission times are given but no due time"),
        (None, POLICY, "student,target,points,reason,who\nnobody,total,1,r,w\n", "line 2: student 'nobody' is not"),
        (None, POLICY, "student,target,points,reason,who\nana,test_nope,1,r,w\n", "line 2: the report of 'ana' has no"),
        (None, POLICY, "student,target,points,reason,who\nana,total,1000,r,w\n", "line 2: 1000 points for 'total'"),
        (None, POLICY, "student,target,points,reason,who\nana,total,1,,w\n", "line 2: the reason is empty"),
        (None, POLICY, "student,target,points,reason,who\nana,total,1,r,w\nzed,total,x,r,w\n", "line 3: the points"),
        (None, POLICY, "student,target,points,reason,who\nzed,test_x,1,r,w\n", "line 2: student 'zed' has no graded"),
        (None, POLICY, "student,target,points,reason,who\nana,total,1,r,\n", "line 2: the who is empty"),
        (None, POLICY, "student,points,reason,who\nana,1,r,w\n", "overrides.csv, line 1: the header has no column"),
        # an unquoted comma shifted the columns: the audit named 'by mail' as who (a helper agent's review)
        (
            None,
            POLICY,
            "student,target,points,reason,who\nana,total,1,late, by mail,prof\n",
            "overrides.csv, line 2: 6 ",
        ),
        (b"student,name\nana,Ana, Jr\n", [], None, "roster.csv, line 2: 3 values where the header names 2 columns"),
    ],
)
def test_bad_input_is_refused_in_one_line_and_nothing_is_written(out, roster_text, args, overrides_text, message):
    if roster_text is not None:
        (out.parent / "roster.csv").write_bytes(roster_text)
    if overrides_text is not None:
        (out / "overrides.csv").write_text(overrides_text)
    before = sorted(p.name for p in out.iterdir())
    result = _export(out, "--format", "csv", *args)
    assert result.exit_code == 2, result.output
    assert result.output.startswith("grader: error: ") and result.output.count("\n") == 1, result.output
    assert message in result.output
    assert sorted(p.name for p in out.iterdir()) == before  # no gradebook, no final_grades.json, no audit line


def test_a_folder_that_is_no_batch_a_missing_roster_and_a_bad_course_file_are_refused(out, tmp_path):
    result = _export(tmp_path, "--format", "canvas")
    assert result.exit_code == 2 and "is not a batch folder (no batch.json)" in result.output
    result = _export(out, "--format", "canvas", roster_path=tmp_path / "nope.csv")
    assert result.exit_code == 2 and "cannot read the roster" in result.output
    course = tmp_path / "course.toml"
    for text, message in (
        ("[late]\nper_dya = 10\n", "[late] has no key 'per_dya'"),
        ("[late\n", "not a TOML file"),
        # a policy outside [late] was no policy at all: late students got 0 (a helper agent's review)
        ("per_day = 10\ncap = 50\n", "holds one [late] table (per_day, cap, grace, due); it holds 'cap', 'per_day'"),
        ("[lateness]\nper_day = 10\n", "it holds 'lateness'"),
        ("", "holds one [late] table"),
    ):
        course.write_text(text)
        result = _export(out, "--format", "canvas", "--course", str(course))
        assert result.exit_code == 2 and message in result.output, result.output
    assert not (out / "final_grades.json").exists() and not (out / "audit.jsonl").exists()


def test_the_export_does_not_overwrite_what_it_reads(out, tmp_path):
    """--output may not be the roster, the file of LMS times, nor one of the batch folder's own files (a review
    wrote the gradebook over its roster, exit 0); a gradebook of an earlier export is written again."""
    roster_path = out.parent / "roster.csv"
    course = tmp_path / "course.toml"
    course.write_text('[late]\nper_day = 10\ndue = "2026-12-01T23:59:00+00:00"\n')
    times = tmp_path / "times.csv"
    times.write_text("student,submitted_at\nana,2026-12-01T23:00:00Z\n")
    for output, args, said in (
        (roster_path, [], f"--output {roster_path} is the roster the export reads: give another file"),
        (times, ["--submission-times", str(times), *POLICY], f"--output {times} is the file of submission times"),
        (out / "summary.json", [], f"--output {out / 'summary.json'} is one of the batch folder's own files"),
        (course, ["--course", str(course)], f"--output {course} is the course file the export reads"),
    ):
        before = output.read_bytes()
        result = _export(out, "--format", "csv", "--output", str(output), *args)
        assert result.exit_code == 2 and said in result.output, result.output
        assert output.read_bytes() == before
    assert _export(out, "--format", "csv").exit_code == 0
    assert _export(out, "--format", "csv", "--output", str(out / "gradebook-csv.csv")).exit_code == 0


def test_an_unfinished_batch_is_not_exported(out, graded, monkeypatch):
    """A batch stopped half way holds some students' records only: exported, the rest would read missing (a
    review's finding: exit 0, and 0 for each with --missing-as-zero). A batch writes summary.json last, and a
    resume removes the last run's before it grades: a resume stopped half way is unfinished too."""
    import grader.batch

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt  # what Ctrl-C does while the jobs grade

    monkeypatch.setattr(grader.batch, "grade_entries", stopped)
    inputs = graded.parent / "class"
    args = ["batch", str(inputs), "--lab", LAB, "--out", str(out), "--resume", "--similarity-threshold", "off"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 130, result.output
    assert not (out / "summary.json").exists()
    before = sorted(p.name for p in out.iterdir())
    result = _export(out, "--format", "csv", "--missing-as-zero")
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"grader: error: {out} has no summary.json: its batch has not finished (continue it with grader batch "
        "... --resume)"
    ]
    assert sorted(p.name for p in out.iterdir()) == before  # no gradebook, no final grades, no audit line


def test_grades_of_files_the_inputs_have_since_replaced_are_not_exported_unless_asked(tmp_path):
    """A second download or collection into the class folder, and no batch since: the gradebook's grades are of
    files the students have replaced. Refused, naming who and the resume that brings the batch up to date (its
    limits, --forget-missing for students gone); exported as graded with --allow-changed-inputs. A regrade of
    one student from one file keeps the batch's inputs; an input gone leaves the others checked."""
    folder, more, out = tmp_path / "class", tmp_path / "more", tmp_path / "out"
    folder.mkdir()
    more.mkdir()
    (folder / "ana.py").write_text(reference_source(LAB))
    (folder / "bo.py").write_text("")  # invalid: not graded, so the class costs one grading
    (more / "dee.py").write_text("")
    batch = ["batch", str(folder), str(more), "--lab", LAB, "--out", str(out), "--jobs", "1"]
    batch += ["--similarity-threshold", "off", "--limit", "test_seconds=20"]  # not the lab's 10
    assert CliRunner().invoke(main, batch).exit_code == 0
    (tmp_path / "roster.csv").write_text(
        "Student ID,Full Name,LMS ID,Section\nana,Ana A,101,S1\nbo,Bo B,102,S1\ncy,Cy C,103,S1\ndee,Dee D,104,S1\n"
    )

    def audited() -> str:
        line = json.loads((out / "audit.jsonl").read_text().splitlines()[-1])
        assert bool(line["inputs_changed"]) == (line["inputs"] == "changed")
        return line["inputs"]

    def refusal(changes: str, *, besides: str = "", forget: bool = False) -> list[str]:
        command = f"grader batch {folder} {more} --lab {LAB} --out {out} --resume --limit test_seconds=20"
        return [
            f"grader: error: the inputs changed since {out} was graded ({changes}{besides}): grade again with "
            f"`{command}{' --forget-missing' if forget else ''}` (it regrades only what changed; give the "
            "--hidden-feedback and --similarity-threshold it was graded with, if not the defaults), or export the "
            "grades as graded with --allow-changed-inputs"
        ]

    (folder / "bo.py").write_text("x = 1\n")  # a resubmission, then a new student
    (folder / "cy.py").write_text("")
    before = sorted(p.name for p in out.iterdir())
    refused = _export(out, "--format", "csv")
    assert (refused.exit_code, refused.output.splitlines()) == (
        2,
        refusal("resubmitted or another status: bo; new: cy"),
    )
    assert sorted(p.name for p in out.iterdir()) == before  # nothing written
    allowed = _export(out, "--format", "csv", "--allow-changed-inputs")
    assert allowed.exit_code == 0, allowed.output
    assert "warning: the inputs changed since the batch (resubmitted or another status: bo; new: cy): exported as " in (
        allowed.output
    )
    assert audited() == "changed"
    assert json.loads((out / "audit.jsonl").read_text().splitlines()[-1])["inputs_changed"] == ["bo", "cy"]
    only = CliRunner().invoke(main, ["batch", str(folder / "bo.py"), *batch[3:], "--only", "bo"])
    assert only.exit_code == 0, only.output  # bo regraded from one file: the batch's inputs are still its own
    assert _export(out, "--format", "csv").output.splitlines() == refusal("new: cy")
    resumed = CliRunner().invoke(main, [*batch, "--resume"])
    assert resumed.exit_code == 0 and "graded now 0, up to date 2" in resumed.output, resumed.output
    current = _export(out, "--format", "csv")
    assert current.exit_code == 0 and "warning" not in current.output and audited() == "same", current.output
    (folder / "cy.py").unlink()
    assert _export(out, "--format", "csv").output.splitlines() == refusal("gone: cy", forget=True)
    (folder / "cy.py").write_text("")
    more.rename(tmp_path / "elsewhere")  # dee's folder gone: the others are checked all the same
    (folder / "bo.py").write_text("x = 2\n")
    assert _export(out, "--format", "csv").output.splitlines() == refusal(
        "resubmitted or another status: bo", besides=f"; {more} is no longer there, not checked"
    )
    (folder / "bo.py").write_text("x = 1\n")
    unchecked = _export(out, "--format", "csv")
    assert unchecked.exit_code == 0 and audited() == "unchecked", unchecked.output
    assert (
        f"warning: could not check that the inputs still hold the files graded: {more} is no longer there: its "
        "students were not checked"
    ) in unchecked.output


def test_late_work_is_compared_only_where_a_late_policy_counts_it_and_unreadable_inputs_are_unchecked(
    tmp_path, monkeypatch
):
    """Without a late policy an export ignores late work (grader.batch.final_grades): a new late commit alone
    changes none of its grades. Inputs the exporting user cannot read are said not to be checked."""
    on_time = inputs.Entry("ana", "ok", sha256="a", version=collection.ON_TIME, collected={"commit": "c1"})
    late_then = inputs.Entry("ana", "ok", sha256="b", version=collection.LATE, collected={"commit": "c2"})
    late_now = dataclasses.replace(late_then, sha256="c", collected={"commit": "c3"})
    about = {"lab": LAB, "inputs": [str(tmp_path)], "roster": shards.roster_of([on_time, late_then])}
    monkeypatch.setattr(inputs, "discover", lambda paths, lab_id, scratch: [on_time, late_now])
    assert freshness.check(about, late_work_counts=False).state == freshness.SAME
    found = freshness.check(about)
    assert (found.state, found.words) == (freshness.CHANGED, "resubmitted or another status: ana (late work)")

    def unreadable(paths, lab_id, scratch):
        raise PermissionError(13, "Permission denied", str(tmp_path))

    monkeypatch.setattr(inputs, "discover", unreadable)
    found = freshness.check(about)
    assert (found.state, found.words) == (
        freshness.UNCHECKED,
        f"the inputs cannot be read again: [Errno 13] Permission denied: '{tmp_path}'",
    )


# -- the late policy: pure ---------------------------------------------------------------------------------------

RULE = late.policy(10, 50, "15m")


@pytest.mark.parametrize(
    ("seconds", "days", "percent"),
    [
        (None, 0, 0),
        (-3600, 0, 0),  # early
        (0, 0, 0),  # exactly on time
        (15 * 60, 0, 0),  # the last second of the grace period
        (15 * 60 + 1, 1, 10),  # past it: lateness counts from the due time, a day begun is a day
        (late.DAY, 1, 10),
        (late.DAY + 1, 2, 20),
        (4 * late.DAY + 1, 5, 50),
        (30 * late.DAY, 30, 50),  # capped
    ],
)
def test_the_late_policy_counts_days_begun_past_the_grace_and_caps_the_penalty(seconds, days, percent):
    assert late.days_late(seconds, RULE) == days
    assert late.penalty_percent(seconds, RULE) == percent
    assert late.penalty_points(80, seconds, RULE) == pytest.approx(80 * percent / 100)


@pytest.mark.parametrize(("text", "seconds"), [("15m", 900), ("2h", 7200), ("1d", 86400), ("90s", 90), ("5", 300)])
def test_a_grace_period_is_read_in_its_unit(text, seconds):
    assert late.parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("per_day", "cap", "grace"),
    [
        (-1, None, None),
        (10, 101, None),
        (10, None, "31d"),
        (float("nan"), None, None),
        (10, None, -0.5),
        (10, None, True),
    ],
)
def test_a_policy_out_of_range_is_refused(per_day, cap, grace):
    with pytest.raises(late.PolicyError):
        late.policy(per_day, cap, grace)


def test_a_grace_period_given_as_a_number_is_minutes_never_cut_to_whole_ones():
    """The course file's grace = 1.5 is 90 s, as --late-grace 1.5 is (it was cut to 60 s: a review)."""
    assert late.policy(10, None, 1.5).grace_seconds == 90
    assert late.policy(10, None, 14.99).grace_seconds == 899
    assert late.policy(10, None, "1.5").grace_seconds == late.policy(10, None, 1.5).grace_seconds


# -- final grades: pure ------------------------------------------------------------------------------------------

MEMBER = roster.Member("al", "Al", "1", "S", "", "", "", 2)
REPORT = {"score": 6, "max_score": 10, "tests": [{"id": "t1", "points": 2, "max_points": 4}]}


def _record(status: str = "graded", score: float = 6, late_work: dict | None = None) -> dict:
    record = {"student": "al", "key": "al", "status": status, "score": score, "max_score": 10, "reason": "why"}
    return {**record, "late_work": late_work} if late_work else record


def _late_work(score: float, seconds: int) -> dict:
    return {"status": "graded", "score": score, "late_by_seconds": seconds, "reason": ""}


def _entry(record, found=(), rule=RULE, lms_late=None, report=REPORT):
    return final_grades.entry(MEMBER, record, report, list(found), rule, lms_late, 10)


def test_late_work_counts_as_the_better_of_the_on_time_score_and_the_penalised_late_one():
    better_late = _entry(_record(late_work=_late_work(10, 3600)))
    assert better_late["status"] == "late" and better_late["final"] == 9 and better_late["late_penalty"] == 1
    assert better_late["source"] == "late work" and better_late["late_by"] == "1:00:00"
    better_on_time = _entry(_record(late_work=_late_work(7, 2 * late.DAY)))  # 7 less 20%: 5.6 < 6
    assert better_on_time["status"] == "graded" and better_on_time["final"] == 6
    assert _entry(_record(late_work=_late_work(10, 3600)), rule=None)["final"] == 6  # no policy: late work left out
    late_only = _entry(_record("late", 0, _late_work(10, 3600)), report=None)
    assert late_only["status"] == "late" and late_only["final"] == 9
    assert _entry(_record("late", 0, _late_work(10, 3600)), report=None, rule=None)["final"] == 0
    # A fork whose commit at the deadline held no lab file (missing) or an empty one, and late work after it
    for status in ("missing", "empty"):
        late_after_nothing = _entry(_record(status, 0, _late_work(10, 3600)), report=None)
        assert late_after_nothing["status"] == "late" and late_after_nothing["final"] == 9, late_after_nothing
        assert _entry(_record(status, 0, _late_work(10, 3600)), report=None, rule=None)["final"] is None


def test_not_graded_is_zero_with_its_reason_and_nothing_handed_in_is_missing():
    invalid = _entry(_record("invalid", 0), report=None)
    assert invalid["final"] == 0 and invalid["reason"] == "why" and invalid["status"] == "invalid"
    for status in ("missing", "empty", "shard-missing"):
        assert _entry(_record(status, 0), report=None)["final"] is None
    assert _entry(None, report=None)["status"] == "missing"


def test_a_test_override_comes_before_the_penalty_and_a_total_one_after_it():
    found = [overrides.Override("al", "t1", 4, "regrade", "prof", 2)]
    regraded = _entry(_record(), found, lms_late=3600)
    assert regraded["graded_score"] == 8 and regraded["late_penalty"] == 0.8 and regraded["final"] == 7.2
    assert regraded["grader_score"] == 6  # the grader's own stays on record (it was nowhere: a review)
    found.append(overrides.Override("al", "total", 9.5, "appeal", "prof", 3))
    total = _entry(_record(), found, lms_late=3600)
    assert total["final"] == 9.5 and [o["target"] for o in total["overrides"]] == ["t1", "total"]
    assert total["overrides"][-1]["was"] == 7.2 and final_grades.adjusted(total)


def test_formula_cells_are_escaped_in_every_format():
    entry = {**_entry(_record("invalid", 0), report=None), "name": "@SUM(A1)", "lms_id": "+1", "section": "-S"}
    entry["reason"] = "=cmd|' /C calc'!A0 \x1b[2J\u202e"  # a formula, a terminal's escape, a direction mark
    for text in (
        lms.canvas([entry], "=A", None, 10),
        lms.moodle([entry], "=A"),
        lms.full_csv([entry], [], 10),
    ):
        assert not any(c in text for c in "\x1b\u202e"), text
        for row in csv.reader(io.StringIO(text)):
            assert not any(cell[:1] in "=+-@" and cell for cell in row), row


def test_a_student_twice_in_the_file_of_submission_times_is_refused_and_a_stranger_is_named(out):
    """Two rows for one student took the last silently (a late one became on time), and a student the roster
    does not list passed without a word (a helper agent's review)."""
    plain = out.parent / "plain-times-roster.csv"
    plain.write_text("student,lms_id\nana,1\n")
    times = out.parent / "twice.csv"
    times.write_text("student,submitted_at\nana,2026-12-03T00:00:00Z\nana,2026-12-01T00:00:00Z\n")
    args = ["--format", "csv", "--submission-times", str(times), "--late-per-day", "10", "--due", DUE]
    result = _export(out, *args, roster_path=plain)
    assert result.exit_code == 2 and "twice.csv, line 3: student 'ana' is already on line 2" in result.output
    times.write_text("student,submitted_at\nana,2026-12-01T00:00:00Z\nzed,2026-12-09T00:00:00Z\n")
    result = _export(out, *args, roster_path=plain)
    assert result.exit_code == 0 and "submission times for students not on the roster (not used): zed" in result.output


def test_a_canvas_export_with_a_column_of_logins_is_read_as_canvas_means_it(tmp_path):
    """Canvas's own columns (Student, ID, SIS User ID, ...) and a GitHub username added: the username is the
    student id, Student the name, ID Canvas's user id. Student was taken as the id: collect filed forks
    under display names and export refused for want of an LMS id (a helper agent's review)."""
    path = tmp_path / "canvas.csv"
    path.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,GitHub username,url\n"
        "Alice A,5551,,,S1,alice,file:///forks/alice\n"
        "Bob B,5552,,,S1,bob,file:///forks/bob\n"
    )
    members = roster.read_class(path)
    assert [(m.student, m.name, m.lms_id, m.section) for m in members] == [
        ("alice", "Alice A", "5551", "S1"),
        ("bob", "Bob B", "5552", "S1"),
    ]
    assert [s.student for s in roster.read(path)] == ["alice", "bob"]
    # Canvas's columns alone: Student is then the only id there is (export refuses it, naming the column)
    path.write_text("Student,ID,SIS User ID,SIS Login ID,Section\nAlice A,5551,,,S1\n")
    assert [(m.student, m.lms_id) for m in roster.read_class(path)] == [("Alice A", "5551")]


def test_roster_ids_are_compared_composed_and_an_id_twice_but_for_case_is_refused(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("student,name\nJose\u0301 \u00d1,J\n")
    assert [m.student for m in roster.read_class(path)] == ["Jos\u00e9 \u00d1"]  # as a batch names José.py
    path.write_text("student,url\nalice,file:///a\nAlice,file:///b\n")
    with pytest.raises(roster.RosterError, match="line 3: student 'Alice' is already on line 2 as 'alice'"):
        roster.read(path)  # git hosts' logins ignore case: one fork, two rows

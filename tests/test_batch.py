"""Instructor batch grading end to end: a small synthetic class through `grader batch`.

The class: a correct file, the pristine starter, a realistic bug (and a copy of it, and the
same code with other comments), another lab's file, a file that does not parse, a hostile
file that crashes its worker, and students with nothing gradable.
It is graded once in full (module fixture); each test reads that run, except resume
and shard/merge, which grade again.
"""

import csv
import fcntl
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.grading import scratch
from tests import grading, processes
from tests.mutation import apply, catalogue, reference_source
from tests.redteam import leftover_processes

# make test gives a whole module to one xdist worker (--dist loadscope): the class is graded once

LAB = "ch06"
HOSTILE = """
class Value:
    def __init__(self, data):  # reads unmapped memory: the worker dies of SIGSEGV
        np.lib.stride_tricks.as_strided(np.zeros(1), shape=(10,), strides=(1 << 40,)).sum()
"""


def _class(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "alice.py").write_text(reference_source(LAB))
    (root / "bob.py").write_text(labs.get(LAB).starter.read_text())
    bug = catalogue(LAB)[0]
    (root / "carol.py").write_text(apply(reference_source(LAB), bug))
    (root / "zoe.py").write_text(apply(reference_source(LAB), bug))  # carol's file
    commented = apply(reference_source(LAB), bug).replace("\nclass ", "\n# my own work, honest\nclass ")
    (root / "carl.py").write_text(commented)  # carol's code, with comments of its own
    (root / "lou.py").write_text(reference_source("lesson1_3"))  # another lab's file
    (root / "dave.py").write_text("def broken(:\n")
    (root / "erin.py").write_text(reference_source(LAB) + HOSTILE)
    (root / "ivan.py").write_text(reference_source(LAB) + "\nimport os  # not on the lab's allow-list\n")
    (root / "frank").mkdir()  # missing
    (root / "gina.py").write_text("")  # invalid
    (root / "hal").mkdir()
    (root / "hal" / "a.py").write_text("x = 1\n")
    (root / "hal" / "b.py").write_text("y = 2\n")  # ambiguous
    return root


GRADED = ("alice", "bob", "carl", "carol", "dave", "erin", "ivan", "lou", "zoe")


def _batch(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["batch", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = _class(tmp_path_factory.mktemp("batch") / "class")
    out = root.parent / "out"
    status, output = _batch(str(root), "--lab", LAB, "--out", str(out), "--jobs", "2")
    assert status == 0, output
    return root, out, output


def _rows(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def test_every_student_gets_a_row_with_the_right_status(graded_class):
    _, out, output = graded_class
    rows = _rows(out)
    assert list(rows) == sorted(rows)  # a stable order
    assert {s: r["status"] for s, r in rows.items()} == {
        **dict.fromkeys(GRADED, "graded"),
        "frank": "missing",
        "gina": "invalid",
        "hal": "ambiguous",
    }
    assert rows["alice"]["score"] == "120" and rows["alice"]["percent"] == "100"  # ch06: 100 visible, 20 hidden
    assert rows["bob"]["score"] == "0" and rows["dave"]["score"] == "0"
    assert 0 < float(rows["carol"]["score"]) < 120
    assert rows["hal"]["reason"].startswith("2 candidate files")
    assert all(r["max_score"] == "120" for r in rows.values())
    assert rows["ivan"]["flags"] == "disallowed-import"
    assert "12 students" in output and "gradebook:" in output


def test_each_students_batch_result_equals_their_solo_result(graded_class):
    root, out, _ = graded_class
    for student in ("carol", "erin"):  # a bug, and a crash (the others are cheaper cases of the same path)
        batch_report = json.loads((out / "reports" / f"{student}.json").read_text())
        solo = grading.grade(LAB, root / f"{student}.py", "worker")
        assert batch_report["score"] == solo["score"], student
        assert [(t["id"], t["outcome"]) for t in batch_report["tests"]] == [
            (t["id"], t["outcome"]) for t in solo["tests"]
        ], student
        assert batch_report["implementation"]["sha256"] == solo["implementation"]["sha256"]
        assert batch_report["isolation"]["mode"] == "worker"


def test_the_hostile_student_costs_only_its_own_points(graded_class):
    _, out, _ = graded_class
    erin = json.loads((out / "reports" / "erin.json").read_text())
    crashed = [t for t in erin["tests"] if t["outcome"] == "crashed"]
    assert crashed and erin["score"] < 120
    assert any(t["outcome"] == "passed" for t in erin["tests"])  # its honest Tensor is still graded
    assert "crashed" in crashed[0]["message"]


def test_the_summary_shows_what_the_class_missed(graded_class):
    _, out, _ = graded_class
    summary = json.loads((out / "summary.json").read_text())
    assert summary["statuses"] == {"ambiguous": 1, "graded": 9, "invalid": 1, "missing": 1}
    dist = summary["distribution"]  # the untouched starter is not counted
    assert dist["count"] == 8 and dist["max_percent"] == 100 and dist["min_percent"] == 0
    assert sum(b["count"] for b in dist["histogram"]) == 8
    by_id = {t["id"]: t for t in summary["tests"]}
    bug = catalogue(LAB)[0]
    for test_id in bug.caught_by:  # alice and lou's Value pass it; carl, carol, erin, zoe do not
        # dave's file does not parse and ivan's imports os: each fails every test alike, left out of its figures
        assert (by_id[test_id]["pass_rate"], by_id[test_id]["students"], by_id[test_id]["file_failures"]) == (
            round(2 / 6, 4),
            6,
            2,
        )
    messages = [f["message"] for t in summary["tests"] for f in t["common_failures"]]
    assert messages and not [m for m in messages if ".py" in m]  # no student's file name or location
    tasks = {t["id"]: t for t in summary["tasks"]}
    assert set(tasks) == {t.id for t in labs.get(LAB).tasks}
    assert [r["student"] for r in summary["not_graded"]] == ["frank", "gina", "hal"]
    flagged = {r["student"]: {f["code"] for f in r["flags"]} for r in summary["flagged"]}
    assert list(flagged) == ["ivan", "lou"] and flagged["lou"] == {"another-lab"}  # lou's is lesson1_3's file
    markdown = (out / "summary.md").read_text()
    assert "## Tasks" in markdown and "## Not graded" in markdown and "ivan" in markdown


def test_every_score_below_full_has_its_reason(graded_class):
    _, out, _ = graded_class
    rows = _rows(out)
    below = {s: r["reason"] for s, r in rows.items() if r["status"] == "graded" and r["score"] != r["max_score"]}
    assert set(below) == {"bob", "carl", "carol", "dave", "erin", "ivan", "lou", "zoe"}
    assert all(below.values()) and not rows["alice"]["reason"]
    assert below["bob"] == "the starter, unchanged"
    assert below["dave"] == "does not parse (line 1)"
    assert below["lou"].startswith(  # then what its Value fails of ch06's task 1 (lesson1_3 takes array exponents)
        "lacks 4 of the lab's 5 names: Tensor, numerical_grad, gradcheck, GradcheckError "
        "(looks like lab lesson1_3's file)"
    )
    assert (
        below["carol"]
        == below["carl"]
        == below["zoe"]
        == ("2 tests failed in task 1: Value(3).data should be a float, got int")
    )
    assert below["erin"].startswith("crashed in task")  # the worker's death, not the tests it cost
    assert below["ivan"].startswith("import failed: ImportError at line ")  # os is not on the lab's allow-list
    assert below["ivan"].endswith("this lab does not allow importing 'os' (allowed: math, numpy)")
    summary = json.loads((out / "summary.json").read_text())
    assert {r["student"]: r["reason"] for r in summary["below_full"]} == below
    markdown = (out / "summary.md").read_text().splitlines()
    assert "| dave | 0/120 | does not parse (line 1) |" in markdown


def test_identical_files_are_grouped_and_starters_left_out_of_the_statistics(graded_class):
    _, out, output = graded_class
    summary = json.loads((out / "summary.json").read_text())
    assert summary["identical"] == {
        "same_file": [["carol", "zoe"]],
        "same_code": [["carl", "carol", "zoe"]],
        "untouched_starters": ["bob"],
    }
    assert summary["statistics"] == {
        "students": 8,
        "left_out": {"untouched_starters": ["bob"], "not_graded": ["frank", "gina", "hal"]},
    }
    separating = [t for t in summary["tests"] if t["id"] in summary["separating"]]
    assert separating and all(0 < t["pass_rate"] < 1 and -1 <= t["discrimination"] <= 1 for t in separating)
    markdown = (out / "summary.md").read_text().splitlines()
    assert "- the same file: carol, zoe" in markdown
    assert "- the same code, up to comments and whitespace: carl, carol, zoe" in markdown
    assert "The lab's starter, unchanged: bob." in markdown
    assert (
        "The statistics below are over 8 of the 12 students; left out: 1 untouched starter (bob) and 3 not graded "
        "(frank, gina, hal): an untouched starter or a file not graded says nothing about the tests."
    ) in markdown
    assert "identical submissions: 2 groups" in output


def test_an_existing_batch_folder_needs_resume(graded_class, tmp_path):
    root, out, _ = graded_class
    status, output = _batch(str(root), "--lab", LAB, "--out", str(out))
    assert status == 2 and "--resume" in output
    status, output = _batch(str(root), "--lab", "lesson1_3", "--out", str(out), "--resume")
    assert status == 2 and "holds a batch of lab ch06" in output
    status, output = _batch(str(tmp_path / "nowhere"), "--lab", LAB, "--out", str(tmp_path / "o"))
    assert status == 2 and "no such file or folder" in output
    status, output = _batch(str(root), "--lab", LAB, "--out", str(tmp_path / "o"), "--shard", "3/2")
    assert status == 2 and "shard" in output


def test_a_killed_batch_resumes_without_regrading_what_was_done(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    for name in ("s1", "s2", "s3", "s4"):
        (root / f"{name}.py").write_text(reference_source(LAB))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "grader", "batch", str(root), "--lab", LAB, "--out", str(out), "--jobs", "1"]
    scratch_root = tmp_path / "tmp"  # the killed run's scratch folders, apart from other tests'
    scratch_root.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch_root))
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 120
    while not list((out / "records").glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.1)
    tree = processes.descendants(proc.pid)
    proc.send_signal(signal.SIGKILL)  # no chance to clean up: a reboot, a lost runner
    proc.wait()
    done = {p.name: p.stat().st_mtime_ns for p in (out / "records").glob("*.json")}
    assert 1 <= len(done) < 4
    # Killed, the folder still says what it is, and a merge will not pass it for the class.
    about = json.loads((out / "batch.json").read_text())
    assert about["shard"] == {"index": 1, "count": 1}
    assert [(s["student"], s["status"]) for s in about["roster"]] == [(f"s{i}", "ok") for i in range(1, 5)]
    merged = CliRunner().invoke(main, ["merge", str(out), "--lab", LAB, "--out", str(tmp_path / "merged")])
    lost = 4 - len(done)
    assert merged.exit_code == 1 and merged.output.splitlines() == [
        f"grader: error: shard 1/1 in {out} is unfinished: {lost} of its 4 students {'has' if lost == 1 else 'have'} "
        "no record; finish it with grader batch --resume, or merge with --partial"
    ]
    assert not [p for p in tree if processes.alive(p)], "the killed batch left processes running"
    assert not leftover_processes()
    # It could not delete its scratch folders (copies of the class's files); the next grader does.
    left = sorted(scratch_root.glob("labkit-*"))
    assert left and sorted(scratch.sweep(scratch_root)) == left
    assert not list(scratch_root.iterdir())

    status, output = _batch(str(root), "--lab", LAB, "--out", str(out), "--resume", "--jobs", "1")
    assert status == 0, output
    assert f"graded now {4 - len(done)}, up to date {len(done)}" in output
    for name, mtime in done.items():
        assert (out / "records" / name).stat().st_mtime_ns == mtime  # not graded again
    assert {r["score"] for r in _rows(out).values()} == {"120"}

    (root / "s1.py").write_text(labs.get(LAB).starter.read_text())  # a changed submission is graded again
    status, output = _batch(str(root), "--lab", LAB, "--out", str(out), "--resume", "--jobs", "1")
    assert "graded now 1, up to date 3" in output and _rows(out)["s1"]["score"] == "0"


def test_shards_merge_into_the_single_runs_gradebook(graded_class, tmp_path):
    root, out, _ = graded_class
    parts = []
    for index in (1, 2):
        part = tmp_path / f"shard{index}"
        status, output = _batch(str(root), "--lab", LAB, "--out", str(part), "--shard", f"{index}/2", "--jobs", "1")
        assert status == 0, output
        parts.append(part)
    assert not set(_rows(parts[0])) & set(_rows(parts[1]))
    merged = tmp_path / "merged"
    result = CliRunner().invoke(main, ["merge", *map(str, parts), "--lab", LAB, "--out", str(merged)])
    assert result.exit_code == 0, result.output
    assert (merged / "grades.csv").read_text() == (out / "grades.csv").read_text()
    single = json.loads((out / "summary.json").read_text())
    combined = json.loads((merged / "summary.json").read_text())
    assert combined == single
    assert (merged / "similarity.json").read_text() == (out / "similarity.json").read_text()
    assert sorted(p.name for p in (merged / "reports").iterdir()) == sorted(p.name for p in (out / "reports").iterdir())
    # The refusals: tests/test_batch_shards.py


def test_every_student_id_gets_its_own_row_graded_with_its_own_file(tmp_path):
    # The kit's earlier file names gave "bob smith" the name "bob_smith-7e50351d", another student's
    # id, and cut long ids at 120 characters: one student's record replaced the other's, and their
    # staged files shared a folder. Mallory's labs folder is a link to Bob's: she got his 100.
    solution, starter = reference_source(LAB), labs.get(LAB).starter.read_text()
    forks = {"bob smith": solution, "bob_smith-7e50351d": starter, "x" * 130: starter, "x" * 130 + "y": solution}
    root = tmp_path / "forks"
    for student, text in forks.items():
        (root / student / "labs" / LAB).mkdir(parents=True)
        (root / student / "labs" / LAB / "starter.py").write_text(text)
    (root / "mallory").mkdir()
    (root / "mallory" / "labs").symlink_to("../bob smith/labs")
    (root / os.fsdecode(b"caf\xe9")).mkdir()  # a folder name that is not UTF-8 (it stopped the batch)
    out = tmp_path / "out"
    status, output = _batch(str(root), "--lab", LAB, "--out", str(out), "--jobs", "2")
    assert status == 0, output
    rows = _rows(out)
    assert len((out / "grades.csv").read_text().splitlines()) == 1 + len(rows) == 1 + len(forks) + 2
    assert rows["caf\\xe9"]["status"] == "missing"
    for student, text in forks.items():
        row = rows[student]
        assert row["status"] == "graded" and row["sha256"] == hashlib.sha256(text.encode()).hexdigest(), student
        assert row["score"] == ("120" if text == solution else "0"), student
    assert (rows["mallory"]["status"], rows["mallory"]["score"], rows["mallory"]["reason"]) == (
        "invalid",
        "0",
        "mallory/labs is a symbolic link to ../bob smith/labs, outside the student's own folder",
    )
    reports = sorted(p.name for p in (out / "reports").iterdir())
    assert len(reports) == len(forks) and "bob%20smith.json" in reports and "bob_smith-7e50351d.json" in reports


def test_the_terminal_shows_a_students_id_as_text_never_as_control_sequences(tmp_path):
    """A file's name is the student's id: one that holds escape sequences (clear the screen, set the
    title) or a new line is printed escaped, on one line, as grader run prints a name."""
    root = tmp_path / "class"
    root.mkdir()
    ids = ["x\x1b[2J\x1b[31mred", "y\x1b]0;pwned\x07", "two\nlines"]
    for student in ids:
        (root / f"{student}.py").write_text("")  # invalid: nothing is graded
    status, output = _batch(str(root), "--lab", LAB, "--out", str(tmp_path / "out"))
    assert status == 0, output
    assert "\x1b" not in output and "\x07" not in output
    progress = [line for line in output.splitlines() if line.startswith("[")]
    assert progress == [
        "[1/3] two\\nlines: invalid",
        "[2/3] x\\x1b[2J\\x1b[31mred: invalid",
        "[3/3] y\\x1b]0;pwned\\x07: invalid",
    ]


def test_a_resume_whose_inputs_lack_graded_students_is_refused_unless_told_to_forget_them(tmp_path):
    """An input left out of a resume (the zip of a second section) used to drop its students' records, reports
    and grades without a word, exit 0 (a helper agent's review): now it changes nothing and names them."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "alice.py").write_text("x = 1\n")
    (second / "kate.py").write_text("y = 2\n")
    out = tmp_path / "out"
    status, output = _batch(str(first), str(second), "--lab", LAB, "--out", str(out))
    assert status == 0, output
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    status, output = _batch(str(first), "--lab", LAB, "--out", str(out), "--resume")
    assert status == 2 and "holds the records of 1 student these inputs do not: kate" in output, output
    assert "--forget-missing" in output
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # nothing changed
    status, output = _batch(str(first), "--lab", LAB, "--out", str(out), "--resume", "--forget-missing")
    assert status == 0, output
    assert set(_rows(out)) == {"alice"} and not (out / "records" / "kate.json").exists()


def test_a_folder_another_command_is_writing_is_refused(graded_class, tmp_path):
    """Two resumes of one folder at once graded the same students twice and both wrote the class files (a
    helper agent's review): the second command is refused while the first holds the folder."""
    root, out, _ = graded_class
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running grader batch holds it
        status, output = _batch(str(root), "--lab", LAB, "--out", str(out), "--resume")
        assert status == 2 and "is being written by another grader command" in output, output
        roster = tmp_path / "roster.csv"
        roster.write_text("student\nalice\n")
        result = CliRunner().invoke(main, ["export", str(out), "--format", "csv", "--roster", str(roster)])
        assert result.exit_code == 2 and "is being written by another grader command" in result.output
    finally:
        os.close(fd)
    status, output = _batch(str(root), "--lab", LAB, "--out", str(out), "--resume")
    assert status == 0, output


def test_files_that_stopped_the_batch_get_their_verdicts_and_the_class_its_gradebook(tmp_path):
    """A security review: three small files each stopped `grader batch` with a traceback, leaving no
    gradebook (and --resume stopped again): 6,000 unary minuses (ast.parse raised MemoryError in the static
    scan), a `coding: unicode_escape` declaration that decodes to a lone surrogate (Python refuses the file;
    intake took it, and writing its text stopped the batch), and a message holding a lone surrogate (no
    UTF-8 file could hold grades.csv's row; `grader run` stopped printing its table)."""
    root = tmp_path / "class"
    root.mkdir()
    (root / "alice.py").write_text(reference_source(LAB))
    (root / "minus.py").write_text("X = " + "-" * 6000 + "1\n")
    (root / "escape.py").write_bytes(b'# -*- coding: unicode_escape -*-\nX = "\\ud800"\nY = 1\n')
    surrogate = reference_source(LAB).replace(
        '        """Return tanh(self); its derivative is 1 - tanh(self) ** 2."""\n',
        '        """Return tanh(self); its derivative is 1 - tanh(self) ** 2."""\n'
        '        raise AssertionError("bad " + chr(0xD800) + " end")\n',
        1,
    )
    assert surrogate != reference_source(LAB)
    (root / "lone.py").write_text(surrogate)
    status, output = _batch(str(root), "--lab", LAB, "--out", str(tmp_path / "out"), "--jobs", "1")
    assert status == 0, output
    rows = _rows(tmp_path / "out")
    assert {s: (r["status"], r["score"]) for s, r in rows.items() if s != "lone"} == {
        "alice": ("graded", "120"),
        "minus": ("graded", "0"),
        "escape": ("invalid", "0"),
    }
    assert "lone surrogate" in rows["escape"]["reason"] and rows["minus"]["reason"].startswith("does not parse")
    assert rows["lone"]["status"] == "graded" and 0 < float(rows["lone"]["score"]) < 120
    lone = json.loads((tmp_path / "out" / "reports" / "lone.json").read_text())
    assert any("bad \\ud800 end" in t["message"] for t in lone["tests"])
    solo = subprocess.run(
        [sys.executable, "-m", "grader", "run", "--lab", LAB, "--submission", root / "lone.py"],
        capture_output=True,
        text=True,
        cwd=labs.KIT_ROOT,
    )
    assert solo.returncode == 1 and "bad \\ud800 end" in solo.stdout, solo.stderr

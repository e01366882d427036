"""The class files from hand-made records and reports (grader.batch.gradebook, grader.batch.identical):
the reason on every row below full, identical submissions, untouched starters and students not
graded kept out of the statistics, and the summary's text as an instructor reads it."""

import csv
import io
import random

from grader import verdicts
from grader.batch import gradebook, identical
from tests.handmade import report, test_row

SYNTAX = verdicts.syntax_error("dave.py", 4, "invalid syntax").message
NOT_YET = "not implemented yet: Task 1 (starter.py:29 in __init__)"
TASKS = [("value", "Task 1: Value"), ("tensor", "Task 2: Tensor")]


def student(name, sha, passes, code, failure="wrong value 3"):
    """A graded student's record and report: t1 (task 1) and t2 (task 2), a point each."""
    rows = [
        test_row(t, task, "passed", 1, 1) if t in passes else test_row(t, task, "failed", 0, 1, failure)
        for t, task in (("t1", "value"), ("t2", "tensor"))
    ]
    doc = report(rows, tasks=TASKS, implementation={"kind": "submission", "name": f"{name}.py", "sha256": sha})
    record = {"student": name, "key": name, "status": "graded", "reason": "", "sha256": sha}
    record |= {"score": doc["score"], "max_score": 2, "flags": [], "code": code}
    return record, doc


def code(digest, **facts):
    return {"parses": True, "syntax_error_line": None, "code_sha256": digest, "starter": False} | facts


CLASS = [
    student("alice", "sha-a", {"t1", "t2"}, code("code-a")),
    student("bob", "sha-s", set(), code("code-s", starter=True), NOT_YET),
    student("bea", "sha-s", set(), code("code-s", starter=True), NOT_YET),  # the same file as bob: not a copy
    student("carol", "sha-c", {"t1"}, code("code-c")),
    student("zoe", "sha-c", {"t1"}, code("code-c")),  # carol's file
    student("carl", "sha-c2", {"t1"}, code("code-c")),  # carol's code, other comments
    student("dave", "sha-d", set(), code(None, parses=False, syntax_error_line=4), SYNTAX),
]
MISSING = {"student": "frank", "key": "frank", "status": "missing", "reason": "no .py file found", "sha256": ""}
RECORDS = [r for r, _ in CLASS] + [MISSING | {"score": 0, "max_score": 2, "flags": []}]
REPORTS = {r["key"]: doc for r, doc in CLASS}


def summary(records=RECORDS):
    return gradebook.summary("ch06", "Odd lab", 2, gradebook.explained(records, REPORTS), REPORTS)


def test_every_row_below_full_has_its_reason_and_full_marks_none():
    rows = list(csv.DictReader(io.StringIO(gradebook.grades_csv(gradebook.explained(RECORDS, REPORTS)))))
    assert [(r["student"], r["score"], r["status"], r["reason"]) for r in rows] == [
        ("alice", "2", "graded", ""),
        ("bea", "0", "graded", "the starter, unchanged"),
        ("bob", "0", "graded", "the starter, unchanged"),
        ("carl", "1", "graded", "1 test failed in task 2: wrong value 3"),
        ("carol", "1", "graded", "1 test failed in task 2: wrong value 3"),
        ("dave", "0", "graded", "does not parse (line 4)"),
        ("frank", "0", "missing", "no .py file found"),
        ("zoe", "1", "graded", "1 test failed in task 2: wrong value 3"),
    ]


def test_identical_groups_leave_the_untouched_starters_apart():
    assert identical.groups(RECORDS) == {
        "same_file": [["carol", "zoe"]],
        "same_code": [["carl", "carol", "zoe"]],
        "untouched_starters": ["bea", "bob"],
    }
    twins = [r for r, _ in CLASS if r["student"] in ("carol", "zoe")]
    assert identical.groups(twins)["same_code"] == []  # the same code as the same file: said once


def test_the_statistics_leave_out_starters_and_students_not_graded_and_say_so():
    doc = summary()
    assert doc["statistics"] == {
        "students": 5,
        "left_out": {"untouched_starters": ["bea", "bob"], "not_graded": ["frank"]},
    }
    assert doc["distribution"]["count"] == 5 and doc["distribution"]["mean_percent"] == 50  # 2 + 1+1+1 + 0 of 10
    # no starter counted, nor dave's file, which does not parse, in either test's figures
    assert {t["id"]: (t["pass_rate"], t["students"]) for t in doc["tests"]} == {"t2": (0.25, 4), "t1": (1.0, 4)}
    assert doc["separating"] == ["t2"]
    assert all(s["students"] <= 4 for s in doc["failure_patterns"])  # the starters' failures are not counted
    assert [(r["student"], r["reason"]) for r in doc["below_full"]] == [
        ("bea", "the starter, unchanged"),
        ("bob", "the starter, unchanged"),
        ("dave", "does not parse (line 4)"),
        ("carl", "1 test failed in task 2: wrong value 3"),
        ("carol", "1 test failed in task 2: wrong value 3"),
        ("zoe", "1 test failed in task 2: wrong value 3"),
    ]


def test_the_summary_does_not_depend_on_the_order_of_the_records():
    shuffled = RECORDS[:]
    random.Random(6).shuffle(shuffled)
    assert summary(shuffled) == summary()  # shards merge in any order


def test_the_markdown_says_what_was_left_out_how_tests_separate_and_who_is_identical():
    text = gradebook.summary_markdown(summary())
    lines = text.splitlines()
    assert (
        "The statistics below are over 5 of the 8 students; left out: 2 untouched starters (bea, bob) and "
        "1 not graded (frank): an untouched starter or a file not graded says nothing about the tests."
    ) in lines
    # t1 every file that loads passed: dave's, which does not parse, says nothing of it
    assert "1 of 2 tests separate students (some pass them, some do not); 1 every student passed, " in text
    assert f"{gradebook.FILES_LEFT_OUT} The failures of these files are counted apart." in lines
    assert "The most failed first. The discrimination index is the point-biserial correlation" in text
    # t2 over alice, carl, carol, zoe: passed 1,0,0,0, the rest of the score 1 for each: no index
    assert "| `t2` | 25% | - | failed: wrong value 3 (3); files that do not load: 1 |" in lines
    assert "`t1`" not in text
    assert "| dave | 0/2 | does not parse (line 4) |" in lines
    assert "- the same file: carol, zoe" in lines
    assert "- the same code, up to comments and whitespace: carl, carol, zoe" in lines
    assert "The lab's starter, unchanged: bea, bob." in lines
    assert "| frank | missing | no .py file found |" in lines


def test_a_class_with_nothing_left_out_says_so():
    everyone = [r for r, _ in CLASS if r["student"] in ("alice", "carol")]
    text = gradebook.summary_markdown(summary(everyone))
    assert "The statistics below are over all 2 students." in text.splitlines()
    assert "## Identical submissions" not in text and "## Untouched starters" not in text


def test_no_cell_of_the_gradebook_runs_as_a_formula_or_drives_a_terminal():
    """A security review: a file named `\\x1b]0;PWNED\\x07\\x1b[2Jmal.py`, or a message the student's code raised
    holding `\\x1b[2J`, wrote escape sequences into grades.csv, which `cat` ran; a record from a shard with the flag
    code `=HYPERLINK(...)` wrote a formula in the flags column. Every text cell is escaped as for a terminal and
    kept from a formula."""
    record, doc = student("\x1b]0;PWNED\x07\x1b[2Jmal", "sha-x", {"t1"}, code("code-x"), "boom \x1b[2J\u202e")
    record["flags"] = [{"code": '=HYPERLINK("http://evil.example/","see")'}]
    text = gradebook.grades_csv(gradebook.explained([record], {record["key"]: doc}))
    assert not any(c in text for c in "\x1b\x07\u202e")
    row = next(csv.DictReader(io.StringIO(text)))
    assert row["student"] == "\\x1b]0;PWNED\\x07\\x1b[2Jmal"
    assert row["flags"] == '\'=HYPERLINK("http://evil.example/","see")'
    assert row["reason"] == "1 test failed in task 2: boom \\x1b[2J\\u202e"

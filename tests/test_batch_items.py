"""The class's item analysis (grader.batch.items) and the wording of failures it counts
(grader.batch.messages): pure functions on hand-made reports, the discrimination index
computed by hand for a class of four."""

import math

import pytest

from grader import labs, verdicts
from grader.batch import items, messages
from tests.handmade import report, test_row

NOT_YET = "not implemented yet: Task 3: XOR - implement train ({name}:40 in train)"


def student(name: str, passes: set[str], shape: str, activation: str) -> dict:
    """One student's report on five tests: t_easy (1 point), t_hard (2), t_mid (3), t_none and t_all (1 each)."""
    points = {"t_easy": 1, "t_hard": 2, "t_mid": 3, "t_none": 1, "t_all": 1}
    failures = {
        "t_easy": verdicts.syntax_error(name, 3, "invalid syntax").message,
        "t_hard": f"grad has shape {shape}, expected (3,)",
        "t_mid": f"expected 'relu', got '{activation}'",
        "t_none": NOT_YET.format(name=name),
    }
    tasks = {"t_easy": "value", "t_hard": "tensor", "t_mid": "tensor", "t_none": "xor", "t_all": "xor"}
    rows = [
        test_row(t, tasks[t], "passed", p, p)
        if t in passes | {"t_all"}
        else test_row(t, tasks[t], "failed", 0, p, failures[t])
        for t, p in points.items()
    ]
    return report(rows, implementation={"kind": "submission", "name": name, "sha256": "0" * 64})


# Scores: a 7, b 2, c 5, d 1 (of 8).
CLASS = [
    student("a.py", {"t_easy", "t_hard", "t_mid"}, "", ""),
    student("b.py", {"t_easy"}, "(2, 3)", "tanh"),
    student("c.py", {"t_easy", "t_mid"}, "(4,)", ""),
    student("d.py", set(), "(1, 3)", "sigmoid"),
]


def test_the_class_is_as_the_hand_computations_below_assume():
    assert [r["score"] for r in CLASS] == [7, 2, 5, 1]


def test_point_biserial_by_hand():
    # t_easy: passed 1,1,1,0; rest of the score 6,1,4,1: means 3/4 and 3, Sxy = 2, Sxx = 3/4, Syy = 18
    assert items.point_biserial([True, True, True, False], [6, 1, 4, 1]) == pytest.approx(2 / math.sqrt(0.75 * 18))
    # t_hard: passed 1,0,0,0; rest 5,2,5,1: Sxy = 7/4, Sxx = 3/4, Syy = 51/4
    assert items.point_biserial([True, False, False, False], [5, 2, 5, 1]) == pytest.approx(1.75 / math.sqrt(9.5625))
    # the strong fail it: passed 0,0,1; rest 3,2,0: r = -5/sqrt(28)
    assert items.point_biserial([False, False, True], [3, 2, 0]) == pytest.approx(-5 / math.sqrt(28))


def test_point_biserial_is_none_when_nothing_varies():
    assert items.point_biserial([True, True], [1, 5]) is None  # every student passed
    assert items.point_biserial([True, False], [0.1, 0.1]) is None  # the rest of the score is the same
    with pytest.raises(ValueError):
        items.point_biserial([True], [1, 2])


def test_per_test_pass_rate_discrimination_and_common_failures():
    rows = {t["id"]: t for t in items.tests(CLASS)}
    assert list(rows) == ["t_easy", "t_hard", "t_mid", "t_none", "t_all"]
    assert {i: (t["pass_rate"], t["failures"], t["discrimination"]) for i, t in rows.items()} == {
        # d's file does not parse: its failure is the file's, not the test's, and is left out (a, b, c pass)
        "t_easy": (1.0, 0, None),
        "t_hard": (0.25, 3, 0.566),  # 1.75 / sqrt(9.5625)
        "t_mid": (0.5, 2, 0.688),  # rest 4,2,2,1: Sxy = 3/2, Sxx = 1, Syy = 19/4
        "t_none": (0.0, 4, None),
        "t_all": (1.0, 0, None),
    }
    assert rows["t_hard"]["common_failures"] == [  # (2, 3) and (1, 3) are one mistake; (4,) another
        {"message": "failed: grad has shape (2, 3), expected (3,)", "count": 2},
        {"message": "failed: grad has shape (4,), expected (3,)", "count": 1},
    ]
    assert rows["t_none"]["common_failures"] == [
        {"message": "failed: not implemented yet: Task 3: XOR - implement train", "count": 4}
    ]
    # d's file does not parse: a failure of every test alike, counted apart from the test's own
    assert (rows["t_easy"]["file_failures"], rows["t_easy"]["common_failures"]) == (1, [])
    assert [t["file_failures"] for t in rows.values()] == [1, 0, 0, 0, 0]
    assert [t["students"] for t in rows.values()] == [3, 4, 4, 4, 4]
    assert rows["t_all"]["common_failures"] == []


def test_files_that_do_not_load_are_left_out_of_each_tests_figures():
    """A test that every file reaching it passes does not separate anyone, however many files fail to load;
    a file that lacks a name fails only the tests that use it; a test no file reaches counts them all."""
    syntax = verdicts.syntax_error("x.py", 1, "invalid syntax").message

    def graded(name: str, t1: str, t2: str) -> dict:
        rows = [
            test_row("t1", "value", "passed", 1, 1) if t1 == "ok" else test_row("t1", "value", "failed", 0, 1, t1),
            test_row("t2", "tensor", "passed", 1, 1) if t2 == "ok" else test_row("t2", "tensor", "failed", 0, 1, t2),
        ]
        return report(rows, implementation={"kind": "submission", "name": name, "sha256": "0" * 64})

    lacks = verdicts.missing_name(labs.get("ch06"), "Tensor").message
    strong, weak = graded("s.py", "ok", "ok"), graded("w.py", "ok", "wrong value 3")
    rows = {
        t["id"]: t for t in items.tests([strong, weak, graded("b.py", syntax, syntax), graded("n.py", "ok", lacks)])
    }
    assert (rows["t1"]["pass_rate"], rows["t1"]["students"], rows["t1"]["discrimination"]) == (1.0, 3, None)
    assert (rows["t1"]["file_failures"], rows["t2"]["file_failures"]) == (1, 2)
    assert (rows["t2"]["pass_rate"], rows["t2"]["students"], rows["t2"]["failures"]) == (0.5, 2, 1)
    assert [t["id"] for t in items.separating(list(rows.values()))] == ["t2"]
    nothing_loads = items.tests([graded("b.py", syntax, syntax), graded("c.py", syntax, syntax)])
    assert [(t["pass_rate"], t["students"], t["file_failures"]) for t in nothing_loads] == [(0.0, 2, 2)] * 2


def test_separating_tests_are_those_some_pass_the_most_failed_first():
    assert [t["id"] for t in items.separating(items.tests(CLASS))] == ["t_hard", "t_mid"]
    ties = [
        {"id": "x", "pass_rate": 0.5, "discrimination": 0.2},
        {"id": "y", "pass_rate": 0.5, "discrimination": 0.9},
        {"id": "z", "pass_rate": 0.5, "discrimination": None},
    ]
    assert [t["id"] for t in items.separating(ties)] == ["y", "x", "z"]


def test_failure_patterns_count_students_whatever_the_values():
    # the most students first; then the most failures; then by the pattern's text
    assert items.failure_patterns(CLASS) == [
        {
            "pattern": "failed: not implemented yet: Task #: XOR - implement train",
            "example": "failed: not implemented yet: Task 3: XOR - implement train",
            "students": 4,
            "failures": 4,
            "tests": ["t_none"],
        },
        {
            "pattern": "failed: expected '…', got '…'",
            "example": "failed: expected 'relu', got 'tanh'",
            "students": 2,
            "failures": 2,
            "tests": ["t_mid"],
        },
        {
            "pattern": "failed: grad has shape (#, #), expected (#,)",
            "example": "failed: grad has shape (2, 3), expected (3,)",
            "students": 2,
            "failures": 2,
            "tests": ["t_hard"],
        },
        {
            "pattern": "failed: <file> does not parse: SyntaxError at line #: invalid syntax",
            "example": "failed: <file> does not parse: SyntaxError at line 3: invalid syntax",
            "students": 1,
            "failures": 1,
            "tests": ["t_easy"],
        },
        {
            "pattern": "failed: grad has shape (#,), expected (#,)",
            "example": "failed: grad has shape (4,), expected (3,)",
            "students": 1,
            "failures": 1,
            "tests": ["t_hard"],
        },
    ]
    assert len(items.failure_patterns(CLASS, top=2)) == 2


def test_students_who_share_a_file_name_are_counted_apart():
    twins = [student("starter.py", set(), "(2, 3)", "tanh"), student("starter.py", set(), "(2, 3)", "tanh")]
    assert items.failure_patterns(twins)[0]["students"] == 2


@pytest.mark.parametrize(
    "message, name, line",
    [
        ("Value(3).data should be a float\nmore detail", "", "Value(3).data should be a float"),
        ("TypeError: bad operand (alice.py:12 in __add__)", "alice.py", "TypeError: bad operand"),
        ("importing alice.py raised ValueError", "alice.py", "importing <file> raised ValueError"),
        ("", "", "(no message)"),
        ("x" * 200, "", "x" * messages.MESSAGE_CHARS),
    ],
)
def test_first_line(message, name, line):
    assert messages.first_line(message, name) == line


@pytest.mark.parametrize(
    "line, shaped",
    [
        ("expected [1.0, -2.5e-3] got 3.", "expected [#, #] got #"),
        ("No module named 'torch'", "No module named '…'"),
        ('key "alpha" missing', "key '…' missing"),
        ("the chapter's exercises in ch06 use x2", "the chapter's exercises in ch06 use x2"),
    ],
)
def test_pattern_replaces_numbers_and_quoted_values_only(line, shaped):
    assert messages.pattern(line) == shaped

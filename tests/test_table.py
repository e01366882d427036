"""What `grader run` prints, as a person reads it (grader.report.table.render): the heading, a line
per task, the tests that lost points grouped by reason (one message for a file every test errors
on), the total (of one task, for a partial run), the flags and the one "next:" line; colour only
when asked for; long and odd messages. The live lines (grader.report.live) on a clock of the
test's own. And the real commands, `grader run` and `make lab`, read line by line as they print:
each task's line as its tests end, a hanging test said to be running while it runs."""

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from grader import labs, verdicts
from grader.grading import runner
from grader.report import live, table
from tests import handmade
from tests.grading import SLEEPS
from tests.handmade import test_row
from tests.mutation import reference_source

KIT = Path(__file__).resolve().parent.parent


def aligned(left: str, right: str) -> str:
    """A line as wide as the table: ``left`` at its start, ``right`` at its end."""
    return left + " " * (table.WIDTH - len(left) - len(right)) + right


def row(id, task, outcome, points, max_points, message="", hint=""):
    return test_row(id, task, outcome, points, max_points, message, hint, duration_s=0.01)


def report(tests, tasks=(("value", "Task 1: Value"), ("tensor", "Task 2: Tensor")), flags=(), **fields):
    return handmade.report(
        tests,
        tasks=tasks,
        flags=flags,
        lab_title="Automatic differentiation",
        isolation={"mode": "worker", "protections": []},
        **fields,
    )


MIXED = report(
    [
        row("test_value_add", "value", "passed", 3, 3),
        row("test_value_tanh[neg]", "value", "failed", 0, 1.5, "x.grad is 3.0, expected 4.0", "add (+=) into .grad"),
        row("test_tensor_matmul", "tensor", "error", 0, 1, "ZeroDivisionError: division by zero (alice.py:12 in mm)"),
        row(
            "test_tensor_sum",
            "tensor",
            "timeout",
            0,
            0.5,
            "timeout: the test ran longer than its limit of 10 s",
            "a loop",
        ),
        row("test_tensor_dies", "tensor", "crashed", 0, 0.5, "crashed: the test process died (killed by signal 9)"),
        row(
            "test_tensor_deep",
            "tensor",
            "not_run",
            0,
            0.25,
            "not run: the lab's tests used up their time limit of 300 s",
        ),
    ],
    flags=[{"code": "disallowed-import", "line": 1, "message": "imports os, which this lab does not allow"}],
)

MIXED_TEXT = """\
ch06: Automatic differentiation
code under test: alice.py (worker)

Task 1: Value                                                               1 of 2 passed      3/4.5
Task 2: Tensor                                                              0 of 4 passed     0/2.25

Task 1: Value
  test_value_tanh[neg]    0/1.5  FAILED
      x.grad is 3.0, expected 4.0
      hint: add (+=) into .grad

Task 2: Tensor
  test_tensor_matmul        0/1  ERROR
      ZeroDivisionError: division by zero (alice.py:12 in mm)
  test_tensor_sum         0/0.5  TIMEOUT
      timeout: the test ran longer than its limit of 10 s
      hint: a loop
  test_tensor_dies        0/0.5  CRASHED
      crashed: the test process died (killed by signal 9)
  test_tensor_deep       0/0.25  not run
      not run: the lab's tests used up their time limit of 300 s

Total: 3/6.75  (1 passed, 1 failed, 1 error, 1 timeout, 1 crashed, 1 not run)
flag: imports os, which this lab does not allow
next: Task 1: Value, test_value_tanh[neg]: add (+=) into .grad"""


def test_task_lines_then_what_lost_points_the_total_the_flag_and_what_next():
    assert table.render(MIXED, color=False) == MIXED_TEXT


def test_task_lines_are_as_wide_as_the_table_with_their_columns_aligned():
    lines = table.render(MIXED, color=False).splitlines()[3:5]
    assert [len(line) for line in lines] == [table.WIDTH, table.WIDTH]
    assert [line.index("passed") for line in lines] == [lines[0].index("passed")] * 2
    assert [line.split()[-1] for line in lines] == ["3/4.5", "0/2.25"]


def test_passed_tests_are_counted_on_their_task_line_not_listed():
    assert "test_value_add" not in table.render(MIXED, color=False)


def test_all_passed_lists_no_test_and_says_there_is_nothing_next():
    document = report(
        [row("test_value_add", "value", "passed", 1, 1), row("test_tensor_sum", "tensor", "passed", 0.5, 0.5)]
    )
    assert table.render(document, color=False).splitlines()[3:] == [
        aligned("Task 1: Value", "1 of 1 passed        1/1"),
        aligned("Task 2: Tensor", "1 of 1 passed    0.5/0.5"),
        "",
        "Total: 1.5/1.5  (2 passed)",
        "next: nothing: every test passed",
    ]


def test_no_colour_means_no_escape_sequences():
    assert "\x1b" not in table.render(MIXED, color=False)


def test_colour_styles_the_words_and_says_nothing_else():
    text = table.render(MIXED, color=True)
    assert click.unstyle(text) == MIXED_TEXT

    def styled(code: str, word: str) -> bool:
        return re.search(rf"\x1b\[{code}m(\x1b\[\d+m)*{re.escape(word)}\x1b\[0m", text) is not None

    assert styled("31", "FAILED") and styled("31", "ERROR")
    assert styled("35", "TIMEOUT") and styled("35", "CRASHED") and styled("33", "not run")
    assert styled("36", "      hint: add (+=) into .grad")
    assert styled("1", "ch06: Automatic differentiation")
    assert styled("31", "1 of 2 passed      3/4.5")  # red: the task lost points
    assert styled("31", "Total: 3/6.75  (1 passed, 1 failed, 1 error, 1 timeout, 1 crashed, 1 not run)")  # red: lost
    assert styled("33", "flag: imports os, which this lab does not allow")
    assert styled("1", "next: Task 1: Value, test_value_tanh[neg]: add (+=) into .grad")
    passed = table.render(
        report([row("test_value_add", "value", "passed", 1, 1)], tasks=(("value", "Task 1: Value"),)), color=True
    )
    assert re.search(r"\x1b\[32m(\x1b\[\d+m)*Total: 1/1  \(1 passed\)\x1b\[0m", passed)
    assert re.search(r"\x1b\[32m(\x1b\[\d+m)*1 of 1 passed        1/1\x1b\[0m", passed)


STUB = "not implemented yet: implement Value.__init__ (starter.py:29 in __init__)"


def test_tests_that_lost_points_for_one_reason_share_it():
    document = report(
        [
            row("test_a", "value", "failed", 0, 1, STUB),
            row("test_b", "value", "passed", 2, 2),
            row("test_c", "value", "failed", 0, 1, "x.grad is 3.0, expected 4.0", "add (+=) into .grad"),
            row("test_d", "value", "failed", 0, 1, STUB),  # with test_a, although not next to it
            row("test_e", "tensor", "failed", 0, 0.5, STUB),  # another task, the same words
        ]
    )
    assert table.render(document, color=False).splitlines()[5:] == [
        "",
        "Task 1: Value",
        "  test_a      0/1  FAILED",
        "  test_d      0/1  FAILED",
        f"      {STUB}",
        "  test_c      0/1  FAILED",
        "      x.grad is 3.0, expected 4.0",
        "      hint: add (+=) into .grad",
        "",
        "Task 2: Tensor",
        "  test_e    0/0.5  FAILED",
        f"      {STUB}",  # said again: the message above it is another one
        "",
        "Total: 2/5.5  (1 passed, 4 failed)",
        f"next: Task 1: Value, test_a: {STUB}",  # no hint (a stub has none): what the message says to do
    ]


def test_more_tests_than_a_few_for_one_reason_share_one_row():
    tests = [row(f"test_{i}", "value", "failed", 0, 0.5, STUB) for i in range(table.GROUP_ROWS + 1)]
    tests += [row("test_t", "tensor", "failed", 0, 1, STUB)]
    lines = table.render(report(tests), color=False).splitlines()
    assert lines[5:14] == [
        "",
        "Task 1: Value",
        "  test_0 + 3 more      0/2  FAILED",
        f"      {STUB}",
        "",
        "Task 2: Tensor",
        "  test_t               0/1  FAILED",
        "      (same message as above)",  # the row above says it
        "",
    ]


def test_a_file_that_every_test_errors_on_gets_one_message_and_no_rows():
    cause = "alice.py does not parse: SyntaxError at line 2: expected ':'"
    hint = "run `python -m py_compile` on your file to see the error in context"
    document = report([row(f"test_{i}", "value" if i < 3 else "tensor", "error", 0, 1, cause, hint) for i in range(5)])
    assert table.render(document, color=False).splitlines()[3:] == [
        aligned("Task 1: Value", "0 of 3 passed        0/3"),
        aligned("Task 2: Tensor", "0 of 2 passed        0/2"),
        "",
        "ERROR in every test, for one reason:",
        f"      {cause}",
        f"      hint: {hint}",
        "",
        "Total: 0/5  (5 error)",
        f"next: {hint}",
    ]
    # failures of another kind, or in other words, are the tests', not the file's
    timeouts = report([row(f"test_{i}", "value", "timeout", 0, 1, "timeout: 10 s", "a loop") for i in range(5)])
    assert "test_0 + 4 more" in table.render(timeouts, color=False)


def test_a_partial_run_shows_its_task_only_and_says_the_others_were_not_run():
    not_in_run = "not run: this run graded only Task 1: Value"
    tests = [
        row("test_a", "value", "passed", 1, 1),
        row("test_b", "value", "failed", 0, 2, "x.grad is 3.0, expected 4.0", "add (+=) into .grad"),
        row("test_t", "tensor", "not_run", 0, 5, not_in_run),
    ]
    lines = table.render(report(tests, partial={"task": "value"}), color=False).splitlines()
    assert lines[3:] == [
        aligned("Task 1: Value", "1 of 2 passed        1/3"),
        "",
        "Task 1: Value",
        "  test_b      0/2  FAILED",
        "      x.grad is 3.0, expected 4.0",
        "      hint: add (+=) into .grad",
        "",
        "Total for Task 1: Value only: 1/3  (1 passed, 1 failed); the other tasks were not run",
        "next: Task 1: Value, test_b: add (+=) into .grad",
    ]
    tests[1] = row("test_b", "value", "passed", 2, 2)
    lines = table.render(report(tests, partial={"task": "value"}), color=False).splitlines()
    assert lines[-2:] == [
        "Total for Task 1: Value only: 3/3  (2 passed); the other tasks were not run",
        "next: every test of Task 1: Value passed; grade the whole lab to see the other tasks",
    ]


def test_next_is_the_first_task_not_at_full_marks_in_the_tables_order():
    document = report(
        [
            row("test_t", "tensor", "failed", 0, 1, "wrong shape", "keep the axis"),
            row("test_v1", "value", "passed", 1, 1),
            row("test_v2", "value", "timeout", 0, 1, "timeout: the test ran longer than its limit of 10 s", "a loop"),
        ]
    )
    assert table.render(document, color=False).splitlines()[-1] == "next: Task 1: Value, test_v2: a loop"


def test_another_labs_file_is_told_to_be_graded_as_that_lab():
    """Its tests fail because it is another lab's work: the next step is the lab, not a test's hint (a review
    graded lesson1_3's correct file as ch06 and was told to fix test_value_second_backward_accumulates_leaves_only)."""
    flag = {
        "code": "another-lab",
        "line": 1,
        "message": verdicts.another_labs_file("ch06", "lesson1_3", (3, 3), (1, 5)),
    }
    lost = [row("test_v", "value", "failed", 0, 1, "wrong", "a hint about the engine")]
    lines = table.render(report(lost, flags=[flag], lab="ch06"), color=False).splitlines()
    assert lines[-2] == "flag: " + flag["message"]
    assert (
        lines[-1]
        == "next: this file looks like lab lesson1_3's: grade it as that lab (--lab lesson1_3), or hand in lab ch06's"
    )
    passed = [row("test_v", "value", "passed", 1, 1)]
    assert table.render(report(passed, flags=[flag], lab="ch06"), color=False).splitlines()[-1] == (
        "next: nothing: every test passed"  # what passes earns its points, whatever the flag says
    )


def test_a_long_message_is_wrapped_under_its_row():
    message = "expected " + " ".join(f"{i / 7:.6f}" for i in range(30))
    document = report([row("test_a", "value", "failed", 0, 1, message, "h")], tasks=(("value", "T"),))
    lines = table.render(document, color=False).splitlines()
    said = lines[lines.index("  test_a      0/1  FAILED") + 1 : lines.index("      hint: h")]
    assert len(said) == 4
    assert said[0] == "      expected 0.000000 0.142857 0.285714 0.428571 0.571429 0.714286 0.857143 1.000000"
    assert said[-1] == "        3.714286 3.857143 4.000000 4.142857"
    assert all(s.startswith("        ") for s in said[1:])
    assert all(len(s) <= table.WIDTH - 6 for s in said)
    assert " ".join(s.strip() for s in said) == message  # nothing lost or cut


def test_a_long_test_id_pushes_its_row_out_rather_than_being_cut():
    long_id = "test_tensor_used_twice[" + "x" * 60 + "]"
    document = report(
        [row(long_id, "value", "failed", 0, 1, "one"), row("test_b", "value", "failed", 0, 1, "two")],
        (("value", "T"),),
    )
    lines = table.render(document, color=False).splitlines()
    assert lines[6] == f"  {long_id}      0/1  FAILED"
    assert lines[8] == "  test_b" + " " * 58 + "      0/1  FAILED"  # the name column is at most 64 wide


def test_line_breaks_and_tabs_in_a_message_become_spaces():
    # textwrap expands the tab to column 8 of its own line, then makes every break a space
    document = report(
        [row("test_a", "value", "failed", 0, 1, "line one\nline two\r\n\tindented\x0bend", "")],
        tasks=(("value", "T"),),
    )
    assert table.render(document, color=False).splitlines()[7] == "      line one line two" + " " * 9 + "indented end"


def test_escape_sequences_in_a_message_are_shown_not_obeyed():
    hostile = "ValueError: \x1b[8m\x1b[2K (alice.py:3 in f)"
    document = report(
        [row("test_a", "value", "error", 0, 1, hostile, "hint \u202eright to left")], tasks=(("value", "T"),)
    )
    document["implementation"]["name"] = "alice.py\rbob.py"  # a file's name is the student's choice too
    shown = table.render(document, color=False)
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    assert "ValueError: \\x1b[8m\\x1b[2K (alice.py:3 in f)" in shown and "hint \\u202eright to left" in shown
    assert "code under test: alice.py\\x0dbob.py" in shown and shown.splitlines()[-2].startswith("Total: 0/1")
    assert shown.splitlines()[-1] == "next: T, test_a: hint \\u202eright to left"
    document["implementation"]["name"] = "new\nline.py"  # one line, as the batch writes such a name (a review's)
    assert "code under test: new\\nline.py (worker)" in table.render(document, color=False).splitlines()


# -- the live lines (grader.report.live), on a clock of the test's own ---------------------
class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


LAB = labs.Lab(
    id="ch06",
    title="Automatic differentiation",
    folder=KIT / "labs" / "ch06",
    public=("Value",),
    allowed_imports=(),
    tasks=(labs.Task("value", "Task 1: Value"), labs.Task("tensor", "Task 2: Tensor")),
    limits={"test_seconds": 20},
)
TESTS = [
    {"id": "test_v", "task": "value", "points": 1},
    {"id": "test_w", "task": "value", "points": 2},
    {"id": "test_t", "task": "tensor", "points": 1},
]


def result(id, task, outcome, points):
    return runner.TestResult(id, task, outcome, points if outcome == "passed" else 0, points, 0.1, "", "")


def test_live_lines_say_each_task_when_its_tests_end_and_a_test_that_runs_long():
    said, clock = [], Clock()
    follow = live.Live(LAB, color=False, echo=said.append, clock=clock)
    done = {}

    def poll(running, seconds=0.05, limit=None):
        clock.now += seconds
        follow(runner.Progress(TESTS, dict(done), running, limit))

    poll("test_v")
    done["test_v"] = result("test_v", "value", "passed", 1)
    poll("test_w")
    assert said == []  # Task 1 has a test still running
    poll("test_w", 2.9)
    assert said == []  # not long yet
    poll("test_w", 0.2)
    assert said == ["  ... test_w is still running (3 s; its limit is 20 s)"]
    poll("test_w", 9.7)
    assert len(said) == 1  # said again only every 10 s
    poll("test_w", 0.2)
    assert said[1:] == ["  ... test_w is still running (13 s; its limit is 20 s)"]
    done["test_w"] = result("test_w", "value", "timeout", 2)
    poll("test_t", limit=2.0)
    assert said[2:] == [aligned("Task 1: Value", "1 of 2 passed        1/3")]
    poll("test_t", 2.9, limit=2.0)  # a new test: its own clock
    assert said[3:] == []
    poll("test_t", 0.2, limit=2.0)  # test_w timed out: the stream says test_t has the shorter limit (grader.limits)
    assert said[3:] == ["  ... test_t is still running (3 s; its limit is 2 s)"]
    done["test_t"] = result("test_t", "tensor", "passed", 1)
    poll(None)
    poll(None, 30)
    assert said[4:] == [aligned("Task 2: Tensor", "1 of 1 passed        1/1")]  # once, and nothing after


def test_live_lines_keep_the_tables_order_when_a_later_task_ends_first():
    said = []
    follow = live.Live(LAB, color=False, echo=said.append, clock=Clock())
    follow(runner.Progress(TESTS, {"test_t": result("test_t", "tensor", "passed", 1)}, "test_v"))
    assert said == []
    every = {t["id"]: result(t["id"], t["task"], "passed", t["points"]) for t in TESTS}
    follow(runner.Progress(TESTS, every, None))
    assert [line.split("  ")[0] for line in said] == ["Task 1: Value", "Task 2: Tensor"]


def test_live_lines_of_one_task_name_only_it():
    said = []
    follow = live.Live(LAB, color=False, echo=said.append, clock=Clock())
    tensor = [t for t in TESTS if t["task"] == "tensor"]  # a run of one task follows its tests only
    follow(runner.Progress(tensor, {"test_t": result("test_t", "tensor", "failed", 1)}, None))
    assert said == [aligned("Task 2: Tensor", "0 of 1 passed        0/1")]


# -- the real command ----------------------------------------------------------------------
GRADER = str(Path(sys.executable).with_name("grader"))
CLEAN_ENV = {k: v for k, v in os.environ.items() if k != "IMPL" and not k.startswith(("LABKIT_", "PYTEST_"))}


def test_grader_run_prints_the_table_to_a_pipe(tmp_path):
    out = tmp_path / "ref.json"
    proc = subprocess.run(
        [GRADER, "run", "--lab", "ch06", "--impl", "ref", "--json", str(out)],
        cwd=KIT,
        env=CLEAN_ENV,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = json.loads(out.read_text())
    lines = proc.stdout.splitlines()
    assert lines[:3] == [
        "ch06: Automatic differentiation: Value, Tensor and gradcheck",
        "code under test: reference/ch06 (in-process)",
        "",
    ]
    assert lines[3].startswith("Task 1: Value, the scalar engine ") and len(lines[3]) == table.WIDTH
    assert len(lines) == 3 + len(document["tasks"]) + 4  # a line per task, then the total: no test listed
    assert lines[-3:] == [
        f"Total: 120/120  ({document['counts']['passed']} passed)",  # ch06's 100 visible points, 20 hidden
        "next: nothing: every test passed",
        f"report: {out}",
    ]
    assert document["counts"]["passed"] == len(document["tests"]) > 0
    assert "\x1b" not in proc.stdout and "\r" not in proc.stdout  # not a terminal: no colour, no tricks
    assert proc.stdout == table.render(document, color=False) + f"\nreport: {out}\n"


def test_the_readme_sample_is_what_grader_run_prints_with_task_1_done(tmp_path):
    reference, starter = reference_source("ch06"), labs.get("ch06").starter.read_text()
    value = reference[reference.index("class Value") : reference.index("class Tensor")]
    done = starter[: starter.index("class Value")] + value + starter[starter.index("class Tensor") :]
    (tmp_path / "starter.py").write_text(done)
    lines, _, status = follow_lines(
        # As a student's copy prints it: the README's sample is the students', whose kit has no hidden tests.
        [GRADER, "run", "--lab", "ch06", "--submission", str(tmp_path / "starter.py"), "--isolation", "in-process"]
        + ["--visible-only"],
        env=CLEAN_ENV,
    )
    assert status == 1
    printed = [line for _, line in lines]
    assert printed[1] == "code under test: starter.py (in-process)"  # `make lab CH=06` names labs/ch06/starter.py
    readme = (KIT / "README.md").read_text(encoding="utf-8")
    sample = readme.split("With Task 1 done:\n\n```text\n")[1].split("\n```\n")[0].splitlines()
    assert sample == [printed[0], "code under test: labs/ch06/starter.py (in-process)", *printed[2:]]


def follow_lines(args, **kwargs) -> tuple[list[tuple[float, str]], float, int]:
    """Run ``args``, noting when each line of its output arrives: (seconds, line) pairs, when it ended, its status."""
    started = time.monotonic()
    proc = subprocess.Popen(
        args, cwd=KIT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs
    )
    lines = [(time.monotonic() - started, line.rstrip("\n")) for line in proc.stdout]
    status = proc.wait(timeout=300)
    return lines, time.monotonic() - started, status


def hanging_submission(folder: Path) -> Path:
    """The reference, but relu's backward sleeps for an hour: three tests of Task 1 hang (one of them hidden), the
    others pass."""
    path = folder / "hangs.py"
    source = reference_source("ch06")
    old = "            if self.data > 0:\n                self.grad += out.grad\n"
    assert source.count(old) == 1
    path.write_text(source.replace(old, f"            if self.data > 0:\n                {SLEEPS}\n"))
    return path


HANGING = [
    "test_value_unary_functions[relu_positive]",
    "test_value_used_twice_gets_both_contributions",
    "test_value_random_graphs",  # last of Task 1's visible tests
    "hidden/test_hidden.py::test_hidden_value_operations_at_other_points",  # Task 1's hidden tests run next
]  # in the order they run


@pytest.mark.parametrize("isolation", ["in-process", "worker"])
def test_a_hanging_test_is_said_to_run_while_it_runs_and_each_task_as_it_ends(tmp_path, isolation):
    submission = hanging_submission(tmp_path)
    args = [GRADER, "run", "--lab", "ch06", "--submission", str(submission), "--isolation", isolation]
    limits = ["--limit", "test_seconds=4", "--limit", "test_seconds_after_timeout=3.5"]
    lines, ended, status = follow_lines([*args, *limits], env=CLEAN_ENV)
    assert status == 1, lines
    text = [line for _, line in lines]
    running = [i for i, line in enumerate(text) if "still running" in line]
    # After the first timeout, each test has the shorter limit, and the line says the limit the test has: in-process
    # the hidden tests' first one imports the code under test again (their module's own handle) and keeps the
    # lab's; behind the wall the code was imported once, before the tests, and every later test has the shorter.
    last = 4 if isolation == "in-process" else 3.5
    assert [text[i] for i in running] == [f"  ... {HANGING[0]} is still running (3 s; its limit is 4 s)"] + [
        f"  ... {test} is still running (3 s; its limit is 3.5 s)" for test in HANGING[1:3]
    ] + [f"  ... {HANGING[3]} is still running (3 s; its limit is {last:g} s)"], text
    task_1 = next(i for i, line in enumerate(text) if line.startswith("Task 1: Value, the scalar engine "))
    total = text.index("Total: 114.5/120  (86 passed, 4 timeout)")
    assert running[-1] < task_1 < total
    # seen while it ran: each line came when its test had run 3 s of its 4, before the test ended
    assert lines[running[1]][0] - lines[running[0]][0] > 3, lines
    assert lines[total][0] - lines[running[0]][0] > 4, lines
    assert text[total + 1] == "flag: uses sys.modules"  # the scan's word on how the hang sleeps (tests.grading.SLEEPS)
    assert text[total + 2].startswith(f"next: Task 1: Value, the scalar engine, {HANGING[0]}: ")


def test_make_lab_shows_the_lines_as_they_come_and_grades_one_task(tmp_path):
    submission = hanging_submission(tmp_path)
    lines, ended, status = follow_lines(["make", "-s", "lab", "CH=06", f"IMPL={submission}", "TASK=value"])
    assert status == 1, lines
    text = [line for _, line in lines]
    running = [i for i, line in enumerate(text) if "still running" in line]
    # The tests after the first timeout stop at 2 s (test_seconds_after_timeout), before a line is due.
    assert [text[i] for i in running] == [f"  ... {HANGING[0]} is still running (3 s; its limit is 10 s)"], text
    total = next(
        i for i, line in enumerate(text) if line.startswith("Total for Task 1: Value, the scalar engine only:")
    )
    assert lines[total][0] - lines[running[0]][0] > 10, lines  # the first line came long before the end
    tasks = [line for line in text if line.startswith("Task ")]
    assert tasks == [
        aligned("Task 1: Value, the scalar engine", "hidden 1 of 2   26 of 30 passed    20.5/26"),
        "Task 1: Value, the scalar engine",
    ]
    report = json.loads((KIT / "reports" / "ch06-hangs-value.json").read_text())
    assert report["partial"] == {"task": "value"} and report["score"] == 20.5 and report["max_score"] == 120

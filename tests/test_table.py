"""The terminal table (grader.report.table.render) as a person reads it: the header, one block per
task with a row per test and its points, the message and hint of each test that lost points,
the total and the flags; --failures-only (show_passed=False); colour only when asked for;
long and odd messages. And the real `grader run` printing it to a pipe."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click

from grader.report import table
from tests import handmade
from tests.handmade import test_row

KIT = Path(__file__).resolve().parent.parent


def row(id, task, outcome, points, max_points, message="", hint=""):
    return test_row(id, task, outcome, points, max_points, message, hint, duration_s=0.01)


def report(tests, tasks=(("value", "Task 1: Value"), ("tensor", "Task 2: Tensor")), flags=()):
    return handmade.report(
        tests,
        tasks=tasks,
        flags=flags,
        lab_title="Automatic differentiation",
        isolation={"mode": "worker", "protections": []},
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

Task 1: Value                                                                                  3/4.5
  test_value_add            3/3  passed
  test_value_tanh[neg]    0/1.5  FAILED
      x.grad is 3.0, expected 4.0
      hint: add (+=) into .grad

Task 2: Tensor                                                                                0/2.25
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
flag: imports os, which this lab does not allow"""


def test_every_row_points_message_hint_total_and_flag():
    assert table.render(MIXED, color=False) == MIXED_TEXT


def test_task_headers_are_as_wide_as_the_table_with_the_score_at_the_right():
    lines = table.render(MIXED, color=False).splitlines()
    headers = [line for line in lines if line.startswith("Task ")]
    assert [(len(h), h.split()[-1]) for h in headers] == [(table.WIDTH, "3/4.5"), (table.WIDTH, "0/2.25")]


def test_failures_only_hides_the_passed_rows_and_nothing_else():
    text = table.render(MIXED, color=False, show_passed=False)
    assert text == MIXED_TEXT.replace("  test_value_add            3/3  passed\n", "")
    assert "Task 1: Value" in text and "Total: 3/6.75" in text  # a task's score still shows


def test_all_passed_says_only_passed_in_the_total():
    document = report(
        [row("test_value_add", "value", "passed", 1, 1), row("test_tensor_sum", "tensor", "passed", 0.5, 0.5)]
    )
    text = table.render(document, color=False)
    assert text.splitlines()[-1] == "Total: 1.5/1.5  (2 passed)"
    assert table.render(document, color=False, show_passed=False).splitlines()[3:] == [
        "Task 1: Value" + " " * 84 + "1/1",
        "",
        "Task 2: Tensor" + " " * 79 + "0.5/0.5",
        "",
        "Total: 1.5/1.5  (2 passed)",
    ]


def test_no_colour_means_no_escape_sequences():
    assert "\x1b" not in table.render(MIXED, color=False)


def test_colour_styles_the_words_and_says_nothing_else():
    text = table.render(MIXED, color=True)
    assert click.unstyle(text) == MIXED_TEXT

    def styled(code: str, word: str) -> bool:
        return re.search(rf"\x1b\[{code}m(\x1b\[\d+m)*{re.escape(word)}\x1b\[0m", text) is not None

    assert styled("32", "passed") and styled("31", "FAILED") and styled("31", "ERROR")
    assert styled("35", "TIMEOUT") and styled("35", "CRASHED") and styled("33", "not run")
    assert styled("36", "      hint: add (+=) into .grad")
    assert styled("1", "ch06: Automatic differentiation")
    assert styled("31", "Total: 3/6.75  (1 passed, 1 failed, 1 error, 1 timeout, 1 crashed, 1 not run)")  # red: lost
    assert styled("33", "flag: imports os, which this lab does not allow")
    passed = report([row("test_value_add", "value", "passed", 1, 1)], tasks=(("value", "Task 1: Value"),))
    assert re.search(r"\x1b\[32m(\x1b\[\d+m)*Total: 1/1  \(1 passed\)\x1b\[0m", table.render(passed, color=True))


def test_one_reason_for_many_failures_is_said_once():
    stub = "not implemented yet: implement Value.__init__ (starter.py:29 in __init__)"
    document = report(
        [
            row("test_a", "value", "failed", 0, 1, stub, "store float(data)"),
            row("test_b", "value", "failed", 0, 1, stub, "store float(data)"),
            row("test_c", "value", "failed", 0, 1, stub, "a different hint"),
        ],
        tasks=(("value", "Task 1: Value"),),
    )
    assert table.render(document, color=False).splitlines()[4:12] == [
        "  test_a      0/1  FAILED",
        f"      {stub}",
        "      hint: store float(data)",
        "  test_b      0/1  FAILED",
        "      (same message as above)",
        "  test_c      0/1  FAILED",
        f"      {stub}",
        "      hint: a different hint",
    ]


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
        [row(long_id, "value", "passed", 1, 1), row("test_b", "value", "passed", 1, 1)], (("value", "T"),)
    )
    lines = table.render(document, color=False).splitlines()
    assert lines[4] == f"  {long_id}      1/1  passed"
    assert lines[5] == "  test_b" + " " * 58 + "      1/1  passed"  # the name column is at most 64 wide


def test_line_breaks_and_tabs_in_a_message_become_spaces():
    # textwrap expands the tab to column 8 of its own line, then makes every break a space
    document = report(
        [row("test_a", "value", "failed", 0, 1, "line one\nline two\r\n\tindented\x0bend", "")],
        tasks=(("value", "T"),),
    )
    assert table.render(document, color=False).splitlines()[5] == "      line one line two" + " " * 9 + "indented end"


def test_escape_sequences_in_a_message_are_shown_not_obeyed():
    hostile = "ValueError: \x1b[8m\x1b[2K (alice.py:3 in f)"
    document = report(
        [row("test_a", "value", "error", 0, 1, hostile, "hint \u202eright to left")], tasks=(("value", "T"),)
    )
    document["implementation"]["name"] = "alice.py\rbob.py"  # a file's name is the student's choice too
    shown = table.render(document, color=False)
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    assert "ValueError: \\x1b[8m\\x1b[2K (alice.py:3 in f)" in shown and "hint \\u202eright to left" in shown
    assert "code under test: alice.py\\x0dbob.py" in shown and shown.splitlines()[-1].startswith("Total: 0/1")


# -- the real command ----------------------------------------------------------------------
def test_grader_run_prints_the_table_to_a_pipe(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "IMPL" and not k.startswith(("LABKIT_", "PYTEST_"))}
    out = tmp_path / "ref.json"
    proc = subprocess.run(
        [str(Path(sys.executable).with_name("grader")), "run", "--lab", "ch06", "--impl", "ref", "--json", str(out)],
        cwd=KIT,
        env=env,
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
    assert lines[-2:] == [f"Total: 100/100  ({document['counts']['passed']} passed)", f"report: {out}"]
    assert document["counts"]["passed"] == len(document["tests"]) > 0
    assert "\x1b" not in proc.stdout  # not a terminal: no colour
    assert proc.stdout == table.render(document, color=False) + f"\nreport: {out}\n"

"""The hint that names a bug reaches the student: `grader run` on a file (behind the wall), its table
read as a person reads it, names the bug under the first failing test.

tests/test_mutants.py checks every mutant's first failure through the runner; this checks the
command's own output for the bugs whose hints take the most machinery: a probe of the code under
test after the failure (a backward() without its seed, a default argument), and an error of the
code turned into the failure that names it (a plain number not wrapped).
"""

import json
import re
import subprocess
import sys

import pytest

from grader import labs
from grader.testing import bugs
from tests.mutation import apply, catalogue, reference_source

ROW = re.compile(r"^  (?P<test>\S+)\s+\S+/\S+\s+(?P<outcome>passed|FAILED|ERROR|TIMEOUT|CRASHED|not run)$")


def first_failure_as_printed(table: str) -> tuple[str, str]:
    """The first failing row's test id and what is printed under it, its wrapped lines joined."""
    lines = table.splitlines()
    for index, line in enumerate(lines):
        row = ROW.match(line)
        if row and row["outcome"] != "passed":
            below = []
            for more in lines[index + 1 :]:
                if ROW.match(more) or not more.startswith("    "):
                    break
                below.append(more.strip())
            return row["test"], " ".join(below)
    raise AssertionError(f"no failing row in:\n{table}")


def graded_mutant(lab_id: str, name: str, tmp_path, *options: str) -> tuple:
    """The catalogue's mutant ``name`` of ``lab_id``, graded by `grader run` as a student's file (behind the
    wall), with ``options``: the mutant and the finished process, which must say points were lost."""
    mutant = next(m for m in catalogue(lab_id) if m.name == name)
    submission = tmp_path / "alice.py"
    submission.write_text(apply(reference_source(lab_id), mutant), encoding="utf-8")
    command = [sys.executable, "-m", "grader", "run", "--lab", lab_id, "--submission", str(submission), *options]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=labs.KIT_ROOT, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return mutant, proc


@pytest.mark.parametrize(
    ("lab_id", "name"),
    [
        ("lesson1_3", "value_backward_no_seed"),
        ("lesson1_3", "value_add_does_not_wrap_numbers"),
        ("lesson1_3", "fit_line_zero_grad_default_false"),
    ],
)
def test_the_table_names_the_bug_under_the_first_failure(lab_id, name, tmp_path):
    mutant, proc = graded_mutant(lab_id, name, tmp_path)
    test, said = first_failure_as_printed(proc.stdout)
    assert test in mutant.caught_by, f"{name}: the first failing row is {test}"
    assert "hint: " in said, f"{name}: no hint under {test}:\n{said}"
    assert mutant.kind in bugs.named_in(said), f"{name} ({bugs.BUGS[mutant.kind].label!r}): {test} says\n{said}"


@pytest.mark.parametrize("lab_id", ["ch06", "lesson1_3"])
def test_a_wrong_forward_value_is_hinted_as_one_in_every_test_it_fails(lab_id, tmp_path):
    """A tanh that computes the wrong value fails every test that uses tanh, the exercises whose figures
    hold f and its gradients among them: each one's hint says the forward value is wrong (or which forward
    bug gives it), not tanh's derivative, a number used twice or the numerical check (they once did, and
    sent the student to code that was right). Hidden tests included."""
    report_path = tmp_path / "report.json"
    mutant, _ = graded_mutant(lab_id, "value_tanh_forward_sign", tmp_path, "--json", str(report_path))
    failed = [t for t in json.loads(report_path.read_text(encoding="utf-8"))["tests"] if t["outcome"] != "passed"]
    assert mutant.caught_by <= {t["id"] for t in failed}
    named = "your result is exactly what you get when `tanh` computes"  # the forward bug itself, where it is seen
    for test in failed:
        hint = test["hint"]
        assert ("forward computation is wrong" in hint or named in hint) and "derivative" not in hint, test

"""Mutants generated from each lab's reference (grader mutants): the lab's visible tests kill every one
the lab does not declare equivalent; the generator mutates only the solution regions, with stable ids."""

import dataclasses
import json
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.grading import runner
from grader.implementation import Implementation
from grader.kit import mutant_grading, mutants
from tests import processes

SOURCE = textwrap.dedent(
    '''\
    import numpy as np


    def shown(x):
        return x - 1


    def step(p, g, n):
        """A docstring."""
        # BEGIN SOLUTION
        total = 0.0
        for i in range(n):
            p.grad += g.T - 2
        total = -np.sum(g, axis=0, keepdims=True)
        return total
        # END SOLUTION
    '''
)


def test_generator_mutates_only_the_solution_regions_with_every_operator():
    generated = mutants.generate(SOURCE)
    assert {mutant.operator for mutant in generated} >= {
        "augassign_to_assign",
        "double_term",
        "swap_operands",
        "drop_term",
        "flip_sign",
        "transpose",
        "drop_keepdims",
        "range_off_by_one",
        "constant",
        "drop_reset",
        "early_return",
    }
    for mutant in generated:
        assert mutant.qualname == "step"
        assert "return x - 1" in mutant.source  # the function outside the regions is never touched
        compile(mutant.source, mutant.id, "exec")
    assert len({mutant.id for mutant in generated}) == len(generated)
    assert len({mutant.source for mutant in generated}) == len(generated)
    by_operator = {mutant.operator: mutant for mutant in generated}
    assert "p.grad = g.T - 2" in by_operator["augassign_to_assign"].source
    assert "g.swapaxes(-1, -2)" in by_operator["transpose"].source
    assert "np.sum(g, axis=0)" in by_operator["drop_keepdims"].source


def test_ids_do_not_change_when_other_lines_move():
    moved = SOURCE.replace("def shown(x):\n", "def shown(x):\n    x = x * 1\n")
    before = {mutant.id for mutant in mutants.generate(SOURCE)}
    after = {mutant.id for mutant in mutants.generate(moved)}
    assert before == after


def test_a_stale_declaration_is_an_error(tmp_path):
    lab = labs.get("lesson1_3")
    (tmp_path / "instructor").mkdir()
    (tmp_path / mutant_grading.DECLARATIONS).write_text(
        '[[equivalent]]\nid = "fit_line:swap_operands:00000000"\nreason = "gone"\n'
    )
    with pytest.raises(mutant_grading.DeclarationError, match="fit_line:swap_operands:00000000"):
        mutant_grading.checked_declarations(dataclasses.replace(lab, folder=tmp_path), mutant_grading.generate(lab)[1])


def test_a_declaration_without_a_reason_is_an_error(tmp_path):
    lab = labs.get("lesson1_3")
    (tmp_path / "instructor").mkdir()
    (tmp_path / mutant_grading.DECLARATIONS).write_text('[[equivalent]]\nid = "x"\n')
    with pytest.raises(mutant_grading.DeclarationError, match="one-line reason"):
        mutant_grading.declared_equivalent(dataclasses.replace(lab, folder=tmp_path))


def test_an_unknown_lab_is_a_usage_error():
    result = CliRunner().invoke(main, ["mutants", "--lab", "no_such_lab"])
    assert result.exit_code == 2, result.output


def _no_undeclared_survivor(lab_id: str) -> None:
    outcome = mutant_grading.grade(labs.get(lab_id), jobs=2)
    by_id = {mutant.id: mutant for mutant in outcome.mutants}
    survivors = "\n".join(by_id[i].diff(outcome.reference) for i in outcome.survived)
    assert not outcome.survived, (
        f"lab {lab_id}: mutants of the reference that score full marks on the visible tests; strengthen "
        f"labs/{lab_id}/test_lab.py, or declare a truly equivalent one in {mutant_grading.DECLARATIONS}:\n{survivors}"
    )
    assert outcome.killed


# A class per lab: `make test` (--dist loadscope) gives each class its own xdist worker, so the labs run side by side.
class TestCh06:
    LAB = "ch06"

    def test_every_generated_mutant_is_killed_or_declared_equivalent(self):
        _no_undeclared_survivor(self.LAB)


class TestLesson1_3:
    LAB = "lesson1_3"

    def test_every_generated_mutant_is_killed_or_declared_equivalent(self):
        _no_undeclared_survivor(self.LAB)


def test_every_lab_has_its_class():
    assert {TestCh06.LAB, TestLesson1_3.LAB} == set(labs.discover()), "add a class for the new lab above"


def test_a_queue_entry_stops_at_its_first_failure_and_the_next_one_runs_whole(tmp_path):
    """run_many(stop_at_first_failure=True), behind the wall: the pristine starter fails its first graded test and
    skips the rest; the reference after it in the same session runs every test (the stop is per submission)."""
    lab = labs.get("lesson1_3").visible_only()
    starter = tmp_path / "starter.py"
    starter.write_text(lab.starter.read_text(encoding="utf-8"), encoding="utf-8")
    reference = tmp_path / "reference.py"
    reference.write_text(mutant_grading.generate(lab)[0], encoding="utf-8")
    runs = {}
    runner.run_many(
        lab,
        [Implementation("submission", starter), Implementation("submission", reference)],
        isolation="worker",
        on_result=lambda position, run: runs.__setitem__(position, run),
        stop_at_first_failure=True,
    )
    outcomes = [r.outcome for r in runs[0].results]
    assert outcomes[0] == "failed" and set(outcomes[1:]) == {"not_run"} and len(outcomes) > 10
    assert all(r.points == 0 for r in runs[0].results)
    assert {r.outcome for r in runs[1].results} == {"passed"} and len(runs[1].results) == len(outcomes)


def test_a_survivor_is_printed_with_its_diff_exits_1_and_is_in_the_json(monkeypatch, tmp_path):
    """The command's report of a survivor: a "mutant" that changes only a comment scores full marks."""
    lab = labs.get("lesson1_3")
    reference, generated = mutant_grading.generate(lab)
    harmless = reference.replace("\n", "\n# a harmless edit\n", 1)
    survivor = mutants.GeneratedMutant("fit_line:comment:00000000", "fit_line", "comment", 2, harmless)
    declared = mutant_grading.declared_equivalent(lab)
    killed = next(m for m in generated if m.id not in declared)  # every undeclared mutant is killed (above)
    monkeypatch.setattr(mutant_grading, "generate", lambda lab: (reference, [killed, survivor]))
    monkeypatch.setattr(mutant_grading, "checked_declarations", lambda lab, generated: {})
    report = tmp_path / "mutants.json"
    result = CliRunner().invoke(main, ["mutants", "--lab", "lesson1_3", "--jobs", "1", "--json", str(report)])
    assert result.exit_code == 1, result.output
    assert "SURVIVED fit_line:comment:00000000 (line 2)" in result.output and "+# a harmless edit" in result.output
    assert "lab lesson1_3: 2 mutants, 1 killed, 1 survived, 0 declared equivalent" in result.output
    saved = json.loads(report.read_text(encoding="utf-8"))
    assert (saved["killed"], saved["survived"]) == (1, 1)
    assert [s["id"] for s in saved["survivors"]] == ["fit_line:comment:00000000"]


@pytest.mark.parametrize("interrupt", [processes.to_the_process, processes.to_another_thread], ids=["main", "thread"])
def test_an_interrupted_run_writes_nothing_and_leaves_no_session_running(tmp_path, interrupt):
    """Ctrl-C while both jobs grade: exit 130 at once, no outcome, none of its sessions or sandboxes left."""
    report = tmp_path / "mutants.json"
    process = processes.start(["mutants", "--lab", "lesson1_3", "--jobs", "2", "--json", str(report)])
    started: set[int] = set()
    for _ in range(1200):  # both jobs' sandboxes running (a minute at most)
        started |= processes.descendants(process.pid)
        if len([pid for pid in started if _command(pid) == "bwrap"]) >= 2:
            break
        time.sleep(0.05)
    interrupt(process)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 130, errors
    assert errors.splitlines()[-1] == "interrupted: no mutant outcome written"
    assert not report.exists()
    assert started and not [pid for pid in started if processes.alive(pid)]


def _command(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None

"""Mutants generated from each lab's reference (grader mutants): the lab's visible tests kill every one
the lab does not declare equivalent; the generator mutates only the solution regions, with stable ids."""

import dataclasses
import textwrap

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.kit import mutant_grading, mutants

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

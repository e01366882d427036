"""The tests that reach a function (grader.kit.reach): what each test calls, recorded in-process
(grader.harness.calls); a queue entry that runs some tests only; and what a mutant of a function needs.

That a mutant graded with the tests that reach its edit gets the verdicts of a full run is checked where
mutants are graded: tests/test_mutants.py compares a fifth of the catalogue with full runs behind the
wall, and test_generated_mutants.py needs every generated mutant's verdict as before.
"""

import importlib.util
import sys

import pytest
from click.testing import CliRunner

from grader import labs, verdicts
from grader.cli import main
from grader.grading import runner
from grader.harness.calls import AT_IMPORT, CallRecorder
from grader.implementation import Implementation
from grader.kit import mutant_grading, reach
from tests.mutation import reach as lab_reach
from tests.mutation import reference_source, shared_folder

LAB = "lesson1_3"


def test_each_test_reaches_the_functions_it_calls_in_the_reference(tmp_path_factory):
    reached = lab_reach(LAB, shared_folder(tmp_path_factory))
    tests = {t["id"] for t in runner.collect(labs.get(LAB).visible_only())}
    assert set(reached.calls) == tests
    fitting = reached.tests_for("fit_line")
    assert "test_fit_line_reproduces_the_lessons_table" in fitting
    assert "test_softmax_reproduces_the_lesson" not in fitting  # it calls the engine, never fit_line
    # A closure's path is the function's: Value.__add__.backward, which Python names Value.__add__.<locals>.backward.
    closure = reached.tests_for("Value.__add__.backward")
    assert closure and closure <= reached.tests_for("Value.__add__") < tests
    # Code outside any function (a class's body, the module's) runs at import: every test.
    assert reached.tests_for("Value") is None and reached.tests_for("<module>") is None


def test_a_function_the_file_calls_at_import_is_reached_by_every_test(tmp_path):
    source = tmp_path / "student.py"
    source.write_text(
        "def scale():\n    return 2.0\n\n\nFACTOR = scale()\n\n\ndef double(x):\n    def inner():\n"
        "        return FACTOR * x\n    return inner()\n"
    )
    recorder = CallRecorder({str(source)})
    spec = importlib.util.spec_from_file_location("labkit_reach_student", source)
    module = importlib.util.module_from_spec(spec)
    recorder.start()
    try:
        spec.loader.exec_module(module)
        module.double(3.0)
    finally:
        seen = recorder.stop()
    assert sys.gettrace() is None
    assert seen == ["<import>:scale", "<module>", "double", "double.<locals>.inner"]
    reached = reach.Reach(
        {"test_a": frozenset(seen), "test_b": frozenset()}, frozenset({"scale", "double", "double.inner"})
    )
    assert reached.tests_for("scale") is None  # FACTOR, which every later test sees, came from it
    assert reached.tests_for("double.inner") == {"test_a"} == reached.tests_for("double")
    assert AT_IMPORT == "<import>:"


def test_a_queue_entry_runs_only_the_tests_it_asks_for_in_both_modes(tmp_path):
    lab = labs.get(LAB).visible_only()
    reference = tmp_path / "starter.py"
    reference.write_text(reference_source(LAB), encoding="utf-8")
    asked = {"test_softmax_reproduces_the_lesson", "test_numerical_derivative_is_central"}
    for isolation in ("in-process", "worker"):
        asking, whole = runner.run_many(
            lab, [Implementation("submission", reference)] * 2, isolation=isolation, only=[asked, None]
        )
        outcomes = {r.id: (r.outcome, r.message, r.points) for r in asking.results}
        assert {t for t, (outcome, _, _) in outcomes.items() if outcome == "passed"} == asked, isolation
        left_out = {outcomes[t] for t in outcomes if t not in asked}
        assert left_out == {("not_run", verdicts.NOT_SELECTED["message"], 0)}, isolation
        assert {r.outcome for r in whole.results} == {"passed"}, f"{isolation}: the next entry runs every test"
        assert asking.calls == {} == whole.calls  # recorded only when asked


def test_calls_are_recorded_in_process_only(tmp_path):
    lab = labs.get(LAB).visible_only()
    with pytest.raises(ValueError, match="in-process only"):
        runner.run_many(lab, [Implementation("submission", tmp_path / "x.py")], isolation="worker", record_calls=True)


def test_a_reference_that_fails_its_own_tests_has_no_reach_and_grader_mutants_says_so(monkeypatch):
    lab = labs.get(LAB).visible_only()
    starter = lab.starter.read_text(encoding="utf-8")
    with pytest.raises(reach.ReachError, match="the reference does not pass these of its tests: test_") as caught:
        reach.measure(lab, starter)
    assert "more" in str(caught.value)  # a few of them named, not all 42
    monkeypatch.setattr(mutant_grading, "generate", lambda lab: (starter, []))
    monkeypatch.setattr(mutant_grading, "checked_declarations", lambda lab, generated: {})
    result = CliRunner().invoke(main, ["mutants", "--lab", LAB])
    assert result.exit_code == 2 and "the reference does not pass" in result.output, result.output

"""The expected gradients the kit ships (grader.testing.expected_gradients) are the oracle's answers now, a
process uses them instead of computing them, only for the running test's lab and tier, and uses nothing
that is not one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.testing import expected_gradients, memo
from grader.testing.numeric import numerical_gradient

VISIBLE_TEST = "labs/ch06/test_lab.py::test_tensor_gradcheck[add] (call)"
HIDDEN_TEST = "labs/ch06/hidden/test_hidden.py::test_hidden_tensor_batched_matmul (call)"


def test_the_shipped_gradients_are_what_the_oracle_computes_now():
    """`grader gradients --check` grades every lab's tests on the reference, recording each answer the oracle
    computes (none looked up): each file must hold exactly those, and equal."""
    result = CliRunner().invoke(main, ["gradients", "--check"])
    assert result.exit_code == 0, result.output
    for lab_id, tier in (("ch06", "visible"), ("ch06", "hidden"), ("lesson1_3", "visible")):
        text = expected_gradients.table(lab_id, tier).read_text(encoding="utf-8")
        assert json.loads(text)["answers"], (lab_id, tier)  # ch06's visible tests file about a hundred


def double(x):
    return 2.0 * x


# A computation as the checker names one, with a function of the kit's testing package (a lab's own would do).
PARTS = ("tensor", numerical_gradient, 0, [np.arange(3.0)], None)
ANSWER = np.array([2.0, 2.0, 2.0])


@pytest.fixture
def tables(tmp_path, monkeypatch):
    """Files of this test's instead of the kit's: ``ship(answers, tier)`` writes ch06's file of ``tier``."""
    monkeypatch.setattr(expected_gradients, "table", lambda lab_id, tier="visible": tmp_path / f"{lab_id}-{tier}.json")
    monkeypatch.delenv(expected_gradients.RECORD_GRADIENTS_ENV, raising=False)

    def ship(answers: dict, tier: str = "visible", **head) -> None:
        document = json.loads(expected_gradients.document(answers, "ch06", tier))
        expected_gradients.write(expected_gradients.table("ch06", tier), json.dumps({**document, **head}))
        expected_gradients.forget()

    yield ship
    expected_gradients.forget()


def test_a_filed_answer_is_looked_up_and_remembered_without_computing(tables, monkeypatch):
    tables({expected_gradients.digest(PARTS): expected_gradients.encoded(ANSWER)})
    monkeypatch.setenv("PYTEST_CURRENT_TEST", VISIBLE_TEST)
    memo.forget()

    def compute():
        raise AssertionError("computed, though the answer is shipped")

    got = memo.remembered(PARTS, compute)
    assert np.array_equal(got, ANSWER) and not got.flags.writeable
    assert memo.remembered(PARTS, compute) is got
    memo.forget()


def test_answers_are_read_for_the_running_tests_lab_and_tier_only(tables, monkeypatch):
    """A visible test never reads the hidden tests' file; a hidden one reads it only for a test file its
    lab.toml declares hidden (a fork cannot add one); outside a lab's tests nothing is read."""
    tables({expected_gradients.digest(PARTS): expected_gradients.encoded(ANSWER)}, tier="hidden")
    monkeypatch.setenv("PYTEST_CURRENT_TEST", HIDDEN_TEST)
    assert "hidden/test_hidden.py" in labs.get("ch06").hidden_tests
    assert np.array_equal(expected_gradients.shipped(PARTS), ANSWER)
    for elsewhere in (
        VISIBLE_TEST,
        "labs/ch06/hidden/test_planted.py::test_x (call)",
        "labs/lesson1_3/hidden/test_hidden.py::test_x (call)",
        "tests/test_x.py::test_x (call)",
    ):
        monkeypatch.setenv("PYTEST_CURRENT_TEST", elsewhere)
        assert expected_gradients.shipped(PARTS) is None, elsewhere
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    assert expected_gradients.shipped(PARTS) is None


@pytest.mark.parametrize(
    "entry",
    [{"float": "nan"}, {"shape": [2], "values": ["0x1p+0"]}, {"shape": [1], "values": ["inf"]}, {"int": 3}],
    ids=["nan", "wrong-shape", "infinite", "not-an-answer"],
)
def test_an_entry_that_is_not_a_finite_answer_is_computed_instead(tables, monkeypatch, entry):
    tables({expected_gradients.digest(PARTS): entry})
    monkeypatch.setenv("PYTEST_CURRENT_TEST", VISIBLE_TEST)
    assert expected_gradients.shipped(PARTS) is None


@pytest.mark.parametrize("field", ["sources", "python", "numpy_streams"])
def test_a_file_written_for_other_sources_another_python_or_numpy_is_not_used(tables, monkeypatch, field):
    monkeypatch.setenv("PYTEST_CURRENT_TEST", VISIBLE_TEST)
    answers = {expected_gradients.digest(PARTS): {"float": (2.0).hex()}}
    tables(answers)
    assert expected_gradients.shipped(PARTS) == 2.0
    tables(answers, **{field: "other"})
    assert expected_gradients.shipped(PARTS) is None


def test_a_computation_is_filed_by_what_it_computes():
    """Another input, closure value, function or signature: another name; an object named by identity, a
    function of an installed package or of the standard library has none, and is computed."""
    key = expected_gradients.digest(PARTS)
    assert key is not None
    assert key == expected_gradients.digest(("tensor", numerical_gradient, 0, [np.arange(3.0)], None))
    assert key != expected_gradients.digest(("tensor", numerical_gradient, 0, [np.arange(3.0) + 1], None))
    assert key != expected_gradients.digest(("tensor", numerical_gradient, 1, [np.arange(3.0)], None))
    assert key != expected_gradients.digest(("tensor", numerical_gradient, 0, [np.arange(3.0, dtype=np.float32)], None))


def _functions_of_one_line():
    def scaled(k):
        return lambda x: k * x

    pairs = [
        (scaled(2.0), scaled(3.0)),
        (lambda x: x + 1, lambda x: x - 1),
        (lambda a, b: a * b[0], lambda a, *b: a * b[0]),  # one line, one bytecode: the signature tells them apart
    ]
    return pairs


def test_functions_that_compute_different_things_get_different_names(monkeypatch):
    # This file is a kit test, whose functions are not filed: name them as if they were a lab's own.
    monkeypatch.setattr(expected_gradients, "_is_source", lambda relpath: True)
    for one, other in _functions_of_one_line():
        assert expected_gradients.digest(("t", one)) != expected_gradients.digest(("t", other))


def test_what_is_not_the_labs_or_the_checkers_code_has_no_name():
    assert expected_gradients.digest(("t", double)) is None  # a kit test's function, as this file's
    assert expected_gradients.digest(("t", object())) is None
    assert expected_gradients.digest(("t", json.dumps)) is None  # the standard library's
    assert expected_gradients.digest(("t", pytest.approx)) is None  # an installed package's, in the kit's .venv
    assert expected_gradients.digest(("t", np.zeros(1, dtype="i4,i4"))) is None  # structured dtypes share a str
    assert expected_gradients.digest(("t", np.longdouble(1.5))) is None

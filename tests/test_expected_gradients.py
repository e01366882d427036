"""The expected gradients the kit ships (grader/testing/expected_gradients.json) are the oracle's answers
now, a process uses them instead of computing them, and it uses nothing that is not one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from grader.cli import main
from grader.testing import expected_gradients, memo


def test_the_shipped_gradients_are_what_the_oracle_computes_now():
    """`grader gradients --check` grades every lab's visible tests on the reference, recording each answer
    the oracle computes (none looked up): the file must hold exactly those, and equal."""
    result = CliRunner().invoke(main, ["gradients", "--check"])
    assert result.exit_code == 0, result.output
    answers = json.loads(expected_gradients.PATH.read_text(encoding="utf-8"))["answers"]
    assert len(answers) > 100  # ch06's gradient checks alone file about a hundred


def double(x):
    return 2.0 * x


def _filed(tmp_path, monkeypatch, answers: dict, fingerprint: str | None = None):
    """Ship ``answers`` (by key) in a file of this test's, under ``fingerprint`` (the sources' by default)."""
    path = tmp_path / "expected_gradients.json"
    text = expected_gradients.document(answers)
    if fingerprint is not None:
        text = text.replace(expected_gradients.fingerprint(), fingerprint)
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(expected_gradients, "PATH", path)
    monkeypatch.delenv(expected_gradients.RECORD_ENV, raising=False)
    expected_gradients.forget()


@pytest.fixture(autouse=True)
def _forget():
    yield
    expected_gradients.forget()


PARTS = ("tensor", double, 0, [np.arange(3.0)], None)


def test_a_filed_answer_is_looked_up_and_remembered_without_computing(tmp_path, monkeypatch):
    answer = np.array([2.0, 2.0, 2.0])
    _filed(tmp_path, monkeypatch, {expected_gradients.digest(PARTS): expected_gradients.encoded(answer)})
    memo.forget()

    def compute():
        raise AssertionError("computed, though the answer is shipped")

    got = memo.remembered(PARTS, compute)
    assert np.array_equal(got, answer) and not got.flags.writeable
    assert memo.remembered(PARTS, compute) is got


@pytest.mark.parametrize(
    "entry",
    [{"float": "nan"}, {"shape": [2], "values": ["0x1p+0"]}, {"shape": [1], "values": ["inf"]}, {"int": 3}],
    ids=["nan", "wrong-shape", "infinite", "not-an-answer"],
)
def test_an_entry_that_is_not_a_finite_answer_is_computed_instead(tmp_path, monkeypatch, entry):
    _filed(tmp_path, monkeypatch, {expected_gradients.digest(PARTS): entry})
    assert expected_gradients.shipped(PARTS) is None


def test_a_file_from_other_sources_is_not_used(tmp_path, monkeypatch):
    key = expected_gradients.digest(PARTS)
    _filed(tmp_path, monkeypatch, {key: {"float": (2.0).hex()}}, fingerprint="0" * 64)
    assert expected_gradients.shipped(PARTS) is None
    _filed(tmp_path, monkeypatch, {key: {"float": (2.0).hex()}})
    assert expected_gradients.shipped(PARTS) == 2.0


def test_a_computation_is_filed_by_what_it_computes():
    """Another input, another closure value, another function: another name; an object named by identity
    (or a function from outside the kit) has none, and is computed."""
    key = expected_gradients.digest(PARTS)
    assert key == expected_gradients.digest(("tensor", double, 0, [np.arange(3.0)], None))
    assert key != expected_gradients.digest(("tensor", double, 0, [np.arange(3.0) + 1], None))
    assert key != expected_gradients.digest(("tensor", double, 1, [np.arange(3.0)], None))

    def scaled(k):
        return lambda x: k * x

    assert expected_gradients.digest(("t", scaled(2.0))) != expected_gradients.digest(("t", scaled(3.0)))
    assert expected_gradients.digest(("t", lambda x: x + 1)) != expected_gradients.digest(("t", lambda x: x - 1))
    assert expected_gradients.digest(("t", object())) is None
    assert expected_gradients.digest(("t", np.sum)) is None  # not a Python function of the kit

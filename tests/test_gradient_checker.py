"""The kit's gradient checker (grader.testing.gradients) reads a passing check's values in one go
(behind the wall, one round trip), and still names the step that is wrong when a check fails."""

import numpy as np
import pytest

from grader.testing import (
    LabCheckFailure,
    check_scalar_cases,
    check_scalar_gradients,
    check_tensor_gradients,
    gradients,
)
from reference.ch06 import Tensor, Value


@pytest.fixture
def events(monkeypatch):
    """What the checker does, in order: "backward" for each backward() it calls, "read" for each batch of
    reads, "value" for each value it takes from the engine."""
    happened = []
    for engine in (Value, Tensor):
        backward = engine.backward
        monkeypatch.setattr(engine, "backward", lambda self, *a, b=backward: happened.append("backward") or b(self, *a))
    read_each = gradients.read_each
    monkeypatch.setattr(gradients, "read_each", lambda pairs: happened.append("read") or read_each(pairs))
    for name in ("as_float", "as_array"):
        convert = getattr(gradients, name)
        monkeypatch.setattr(gradients, name, lambda x, what, c=convert: happened.append("value") or c(x, what))
    return happened


def test_a_passing_check_reads_its_forward_value_and_gradients_together(events):
    grads = check_scalar_gradients(Value, lambda a, b: (a * b).tanh() + a, [0.5, -1.5], "tanh(a*b) + a")
    assert events == ["backward", "read", "value", "value", "value"]  # the forward value, then two gradients
    t = np.tanh(-0.75)
    assert grads == pytest.approx([1 + (1 - t * t) * -1.5, (1 - t * t) * 0.5])
    events.clear()
    check_tensor_gradients(Tensor, lambda a: (a * a).sum(), [np.arange(6.0).reshape(2, 3)], "sum of squares")
    assert events == ["backward", "read", "value", "value"]


def test_a_table_of_passing_cases_is_read_once(events):
    cases = [(lambda x: x * x, [1.5], "x * x", ""), (lambda x: x.exp() + x, [0.2], "exp(x) + x", "")]
    check_scalar_cases(Value, cases)
    assert events == ["backward", "backward", "read"] + ["value"] * 4


class _WrongForwardAndBrokenBackward(Value):
    """Multiplication's forward value is off, and backward() raises."""

    def __mul__(self, other):
        out = super().__mul__(other)
        out.data += 1.0
        return out

    def backward(self):
        raise RuntimeError("backward is broken")


def test_a_failing_check_is_run_again_step_by_step_and_names_the_forward_value_first():
    """Read together, the backward's error would come first; step by step, the wrong forward value does."""
    with pytest.raises(LabCheckFailure, match="a \\* b: forward value"):
        check_scalar_gradients(_WrongForwardAndBrokenBackward, lambda a, b: a * b, [2.0, 3.0], "a * b")


class _ExpForgetsItsGradient(Value):
    def exp(self):
        return Value(np.exp(self.data))  # the right value, no graph behind it


def test_a_failing_case_in_a_table_is_the_one_named():
    cases = [(lambda x: x * x, [1.5], "x * x", ""), (lambda x: x.exp() * x, [0.2], "exp(x) * x", "an exp hint")]
    with pytest.raises(LabCheckFailure, match="exp\\(x\\) \\* x: d/d|exp\\(x\\) \\* x: derivative") as failure:
        check_scalar_cases(_ExpForgetsItsGradient, cases)
    assert "x * x:" not in str(failure.value)

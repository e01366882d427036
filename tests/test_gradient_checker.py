"""The kit's gradient checker (grader.testing.gradients) reads a passing check's values in one go
(behind the wall, one round trip), and still names the step that is wrong when a check fails."""

import sys
from pathlib import Path

import numpy as np
import pytest

from grader.testing import (
    LabCheckFailure,
    check_scalar_cases,
    check_scalar_gradients,
    check_tensor_gradients,
    constant,
    gradients,
    shape_of,
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


def _weighted(out):
    """The labs' weighted(): weights of the result's shape (grader.testing.shape_of), summed."""
    return (out * constant(np.random.default_rng(7).normal(size=shape_of(out)))).sum()


class _ShapeWatched(Tensor):
    """The reference Tensor, whose .shape reads are written down, and which can lie about it."""

    __slots__ = ()  # the reference's layout, so that a result can be made one
    seen: list = []
    lie = False

    @property
    def shape(self):
        reader = Path(sys._getframe(1).f_code.co_filename).name
        if reader != "tensor.py":  # the engine's own reads are not the test's
            _ShapeWatched.seen.append(f"shape read by {reader}")
        return self.data.shape[::-1] if _ShapeWatched.lie else self.data.shape

    def __mul__(self, other):
        out = super().__mul__(other)
        out.__class__ = _ShapeWatched
        return out


def test_a_shape_the_computation_builds_on_comes_from_the_oracle_and_is_read_with_the_rest(events):
    """Behind the wall the result's .shape would be a wait before the computation goes on: the oracle's run
    gives it, and the engine's own is taken then, without waiting (grader.testing.remote.snapshot: in-process,
    read at once), and read with the values, in the one read."""
    _ShapeWatched.seen = events
    check_tensor_gradients(_ShapeWatched, lambda a: _weighted(a * 2.0), [np.arange(6.0).reshape(2, 3)], "2a, weighted")
    assert "shape read by shapes.py" not in events  # the test's shape_of asked the oracle's run
    assert events.count("shape read by remote.py") == 1 and events.count("read") == 1


class _ShapeOfItsGradient(Tensor):
    """A .shape taken from .grad, which a result has only once backward() ran: wrong when weighted() asks."""

    __slots__ = ()

    @property
    def shape(self):
        return self.grad.shape

    def __mul__(self, other):
        out = super().__mul__(other)
        out.__class__ = _ShapeOfItsGradient
        return out


class _ShapeFilledInLater(Tensor):
    """A .shape that is a list the engine fills in at the next backward(): empty when weighted() asks."""

    __slots__ = ()
    # id of a result: (the list its .shape answered, the shape to fill it with, the result). Holding the
    # result keeps its id from being reused by a later result, which would be handed the filled-in list.
    lists: dict = {}

    @property
    def shape(self):
        if Path(sys._getframe(1).f_code.co_filename).name == "tensor.py":  # the engine's own reads
            return self.data.shape
        return _ShapeFilledInLater.lists.setdefault(id(self), ([], self.data.shape, self))[0]

    def __mul__(self, other):
        out = super().__mul__(other)
        out.__class__ = _ShapeFilledInLater
        return out


def test_a_shape_snapshot_is_a_copy_of_what_the_engine_answered_then(monkeypatch):
    """The list the engine answered, filled in after: the claim is the empty list it was, as in turn."""
    monkeypatch.setattr(_ShapeFilledInLater, "lists", {})
    backward = Tensor.backward

    def filling_backward(self, *args):
        for answered, shape, _result in _ShapeFilledInLater.lists.values():
            answered[:] = shape
        backward(self, *args)

    monkeypatch.setattr(Tensor, "backward", filling_backward)
    with pytest.raises(LabCheckFailure, match="forward value"):
        check_tensor_gradients(_ShapeFilledInLater, lambda a: _weighted(a * 2.0), [np.ones((2, 3))], "2a, weighted")


def test_the_engines_shape_is_the_one_it_had_when_the_computation_asked(events):
    """Read at the end, after backward(), this engine's .shape would be right and the check would pass; taken
    when weighted() asked, it fails as the check in turn fails."""
    with pytest.raises(AttributeError, match="NoneType"):
        check_tensor_gradients(_ShapeOfItsGradient, lambda a: _weighted(a * 2.0), [np.ones((2, 3))], "2a, weighted")


def test_an_engine_whose_shape_is_not_the_oracles_is_checked_step_by_step(events, monkeypatch):
    """The read-together run proves nothing then: the check runs again in turn, reads the shape first, and
    fails as it would have (here, weights of the shape it claims do not multiply its result)."""
    _ShapeWatched.seen = events
    monkeypatch.setattr(_ShapeWatched, "lie", True)
    with pytest.raises(ValueError, match="could not be broadcast"):  # the engine's own error, as in turn it always was
        check_tensor_gradients(_ShapeWatched, lambda a: _weighted(a * 2.0), [np.ones((2, 3))], "2a, weighted")
    assert "shape read by shapes.py" in events[events.index("read") :]  # the run in turn asked the engine

"""The oracle's expected gradients are computed once per pytest process (grader.testing.memo): the same
check on the same inputs for the next submission reuses them; anything that changes the computation or
its inputs computes them again."""

import numpy as np
import pytest

from grader.testing import gradients, memo
from reference.ch06 import Tensor, Value


@pytest.fixture
def computed(monkeypatch):
    """The expected gradients the checker computes, by central differences, during a test."""
    calls = []
    numerical_gradient = gradients.numerical_gradient
    monkeypatch.setattr(gradients, "numerical_gradient", lambda f, x: calls.append(x) or numerical_gradient(f, x))
    return calls


def _weights(seed):
    return np.random.default_rng(seed).normal(size=(2, 3))


def test_the_same_check_for_the_next_submission_computes_nothing(computed):
    w = _weights(11)
    data = np.random.default_rng(12).normal(size=(2, 3))
    for _ in range(3):  # three submissions graded by one process: a function made anew each time
        gradients.check_tensor_gradients(Tensor, lambda t, w=w: (t.tanh() * w).sum(), [data.copy()], "tanh")
    assert len(computed) == 1


def test_other_inputs_or_other_closed_over_values_compute_again(computed):
    data = np.random.default_rng(13).normal(size=(2, 3))
    w = _weights(1)

    def f(t):
        return (t.exp() * w).sum()

    for _ in range(2):
        gradients.check_tensor_gradients(Tensor, f, [data], "exp")
    assert len(computed) == 1
    data[0, 0] += 1.0  # the same array object, other numbers
    gradients.check_tensor_gradients(Tensor, f, [data], "exp")
    assert len(computed) == 2
    w = _weights(2)  # the same function, closing over other weights
    gradients.check_tensor_gradients(Tensor, f, [data], "exp")
    assert len(computed) == 3
    for at in (0.5, 0.25, 0.5):
        gradients.check_scalar_gradients(Value, lambda a: a.tanh(), [at], "tanh")
    assert len(computed) == 5


def test_a_computation_that_cannot_be_named_is_computed_each_time(computed):
    table = {"scale": 2.0}  # a dict may change while it stays the same object
    for _ in range(2):
        gradients.check_scalar_gradients(Value, lambda a: a * table["scale"], [0.5], "scaled")
    assert len(computed) == 2


def test_a_remembered_answer_cannot_be_changed_by_a_caller():
    answer = memo.remembered(("test_memo", np.arange(3.0)), lambda: np.ones(3))
    with pytest.raises(ValueError, match="read-only"):
        answer[0] = 5.0
    assert memo.remembered(("test_memo", np.arange(3.0)), lambda: np.zeros(3)).tolist() == [1.0, 1.0, 1.0]


def test_equal_code_in_another_module_with_other_globals_is_another_computation():
    """Code objects compare equal without their file, and a test file's helper of the same name may draw
    other numbers (weighted()'s seed differs between a lab's visible and hidden tests): each module's
    function gets its own expected gradients."""
    source = "def f(a):\n    return (a * SCALE).sum()\n"
    modules = []
    for scale in (2.0, 3.0):
        module = {"SCALE": scale}
        exec(compile(source, "same_file.py", "exec"), module)
        modules.append(module)
    assert modules[0]["f"].__code__ == modules[1]["f"].__code__
    data = np.random.default_rng(14).normal(size=(2, 3))
    for module in modules:  # each passes: a correct engine against its own expected gradient
        got = gradients.check_tensor_gradients(Tensor, module["f"], [data], "scaled")
        assert np.allclose(got[0], module["SCALE"])

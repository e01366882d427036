"""The diagnosis of a failed check (grader.testing.diagnosis): each common shape of error is
recognised from the numbers alone and named in the vocabulary of grader.testing.bugs; what
several bugs would explain is said to be uncertain; a right but imprecise gradient is never
taken for a bug. The wrong numbers here are worked out by hand (or by numpy from the formula
a student wrote), never by the fault-model engine the diagnosis uses.

The kit's mutants measure the same thing on whole labs (tests/test_mutants.py); this file
pins each shape down on its smallest example, and checks what a person reads in the terminal.
"""

import subprocess
import sys

import numpy as np
import pytest

from grader import labs
from grader.testing import bugs, diagnosis, faults, memo
from grader.testing.checks import expect_close, show, show_apart
from tests.mutation import apply, catalogue, reference_source


def named(text: str) -> set[str]:
    return bugs.named_in(text)


def weights(shape, seed=7):
    return np.random.default_rng(seed).normal(size=shape)


def weighted(out, seed=7):
    return (out * weights(out.shape, seed)).sum()


# -- the vocabulary -----------------------------------------------------------------------
def test_every_label_names_its_own_kind_and_no_other():
    for kind, bug in bugs.BUGS.items():
        assert named(bug.label) == {kind}, (kind, bug.label, named(bug.label))


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("`+`'s backward assigns the gradient with `=` instead of `+=`", {"overwrite"}),  # "assigns" is no sign
        ("every rule adds (+=) into .grad", set()),  # advice, not a bug named
        ("x.grad for x.sum(axis=1) on a (3, 4) input, seeded 1..n", set()),
        ("Tensor mean_over_two_axes: forward value", set()),
        ("relu must not change its input (no in-place writes)", {"in_place"}),
    ],
)
def test_words_name_a_bug_only_when_they_mean_it(text, kinds):
    assert named(text) == kinds


# -- wrong gradients: each shape from its numbers ----------------------------------------------
def test_the_other_operands_value():
    # f = a * b at a = 1.5, b = -0.7; self.grad += self.data * out.grad gives a.grad = 1.5 (not -0.7).
    hint = diagnosis.explain_gradients(lambda a, b: a * b, [1.5, -0.7], [1.5, 1.5], constants=False)
    assert named(hint) == {"other_operand"}, hint
    assert "`*`" in hint and "self" in hint


def test_an_overwritten_accumulation():
    # f = (x + 1) * x at 1.5: the product gives x 2.5, then `+` assigns x.grad = 1.5 (not 2.5 + 1.5).
    hint = diagnosis.explain_gradients(lambda x: (x + 1.0) * x, [1.5], [1.5], constants=False)
    assert named(hint) == {"overwrite"}, hint
    assert "`+`" in hint


def test_a_sign():
    # f = weighted(a - b): b.grad = +w instead of -w.
    a, b = np.arange(4.0).reshape(2, 2), np.ones((2, 2))
    w = weights((2, 2))
    hint = diagnosis.explain_gradients(lambda a, b: weighted(a - b), [a, b], [w, w])
    assert named(hint) == {"sign"}, hint
    assert "`-`" in hint and "other" in hint


def test_a_factor():
    # d(x**3)/dx without the factor k: x**2 = 4 at x = 2 instead of 12.
    hint = diagnosis.explain_gradients(lambda x: x**3, [2.0], [4.0], constants=False)
    assert named(hint) == {"factor"}, hint


def test_a_missing_transpose_on_square_matrices():
    a, b = np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([[0.5, -2.0], [1.5, 1.0]])
    w = weights((2, 2))
    hint = diagnosis.explain_gradients(lambda a, b: weighted(a @ b), [a, b], [w @ b, a.T @ w])  # dA = dC @ B
    assert named(hint) == {"transpose"}, hint


@pytest.mark.parametrize(
    ("op", "slip"),
    [
        ("tanh", lambda g, y: g * 1.0 - y * y),  # grad * 1.0 - t * t
        ("tanh", lambda g, y: 1.0 - y * y * g),  # 1.0 - t * t * out.grad
        ("sigmoid", lambda g, y: g * y * 1.0 - y),  # grad * s * 1.0 - s
    ],
    ids=["tanh_grad_first", "tanh_grad_last", "sigmoid_grad_first"],
)
def test_a_rule_that_lost_its_parentheses(op, slip):
    # f = weighted(op(x)): an upstream gradient other than 1 is what shows the slip.
    x = np.array([[0.3, -1.2], [0.8, 2.0]])
    y = np.tanh(x) if op == "tanh" else 1.0 / (1.0 + np.exp(-x))
    hint = diagnosis.explain_gradients(lambda x: weighted(getattr(x, op)()), [x], [slip(weights((2, 2)), y)])
    assert named(hint) == {"derivative"}, hint
    assert f"`{op}`'s backward" in hint and "the parentheses left out" in hint, hint


def test_a_relu_rule_that_compares_the_product():
    # grad * x > 0 for grad * (x > 0): 1 where the product is positive, 0 elsewhere (a review's relu)
    x = np.array([[-1.5, 0.3], [0.4, -2.0]])
    w = weights((2, 2))
    hint = diagnosis.explain_gradients(lambda a: weighted(a.relu()), [x], [(w * x > 0).astype(float)])
    assert named(hint) == {"derivative"} and "compares the product" in hint, hint


def test_the_outputs_and_intermediates_gradients_tell_apart_bugs_that_starve_every_input():
    """f = (a*b + c)**2 with u = a*b and s = u + c, every input's gradient 0: which bug it is shows
    in the gradients of f itself and of s (f.grad = 0: never seeded; s.grad = 8: f's step ran last)."""

    def f(a, b, c):
        u = a * b
        s = u + c
        return s**2, u, s

    inputs, zeros = [2.0, -3.0, 10.0], [0.0, 0.0, 0.0]
    unseeded = diagnosis.explain_gradients(f, inputs, zeros, output_grad=0.0, probe_grads=[0.0, 0.0], constants=False)
    assert named(unseeded) >= {"seed"} and "order" not in named(unseeded), unseeded
    # Steps run inputs-first and `+` building its result outside the graph both leave s.grad = 8: both are said.
    out_of_order = diagnosis.explain_gradients(
        f, inputs, zeros, output_grad=1.0, probe_grads=[0.0, 8.0], constants=False
    )
    assert named(out_of_order) == {"order", "detached"} and ", or when " in out_of_order, out_of_order
    # Seeded only after the steps: s.grad = 0, as when `**` builds its result outside the graph.
    late = diagnosis.explain_gradients(f, inputs, zeros, output_grad=1.0, probe_grads=[0.0, 0.0], constants=False)
    assert named(late) == {"seed", "detached"}, late
    # With the inputs' gradients alone, the three cannot be told apart: the hint says so and names none.
    alone = diagnosis.explain_gradients(f, inputs, zeros, output_grad=1.0, constants=False)
    assert diagnosis.CANNOT_TELL in alone and not named(alone), alone


def test_more_numbers_from_the_same_test_settle_what_one_number_cannot():
    # u = 3a at a = 2, f = u + u*u: a breadth-first walk gives 3, and so do two rule bugs of `*`;
    # the same engine got the other order, f = u*u + u, right (39): only the walk explains both.
    first = lambda a: (lambda u: u * u + u)(a * 3.0)  # noqa: E731
    second = lambda a: (lambda u: u + u * u)(a * 3.0)  # noqa: E731
    alone = diagnosis.explain_gradients(second, [2.0], [3.0], constants=False)
    assert "cannot tell" in alone and not named(alone), alone
    settled = diagnosis.explain_gradients(second, [2.0], [3.0], constants=False, also=[(first, [2.0], [39.0])])
    assert named(settled) == {"order"} and "breadth-first" in settled, settled


def test_two_calls_of_backward():
    # y = x*x + x at 3, backward() twice: 27 if intermediates are not reset (7 + 20), 7 if leaves are.
    f = lambda x: x * x + x  # noqa: E731
    assert named(diagnosis.explain_gradients(f, [3.0], [27.0], calls=2, constants=False)) == {"reset"}
    assert "reset" in named(diagnosis.explain_gradients(f, [3.0], [7.0], calls=2, constants=False))


def test_too_many_bugs_fit_then_it_says_it_cannot_tell_and_names_none():
    a, b = weights((3, 4), 1), weights(4, 2)
    hint = diagnosis.explain_gradients(lambda a, b: weighted(a + b), [a, b], [np.zeros((3, 4)), np.zeros(4)])
    assert diagnosis.CANNOT_TELL in hint and "no gradient reached" in hint
    assert not named(hint), hint


@pytest.mark.parametrize("error", ["one-sided difference", "relative"])
def test_a_right_but_imprecise_gradient_is_never_taken_for_a_bug(error):
    """Far enough off to fail the check (rtol 1e-4), too close to be a wrong rule."""
    x, h = weights((3, 4), 3), 1e-3
    w = weights((3, 4))
    one_sided = (np.exp(x + h) - np.exp(x)) / h * w  # a backward rule that estimates exp's derivative
    got = np.exp(x) * w * (1 + 3e-4) if error == "relative" else one_sided
    hint = diagnosis.explain_gradients(lambda a: weighted(a.exp()), [x], [got])
    assert not named(hint), hint
    assert "precision" in hint


def test_when_no_bug_fits_the_shape_of_the_error_is_said():
    x = weights((3, 4), 3)
    right = np.exp(x) * weights((3, 4))
    f = lambda a: weighted(a.exp())  # noqa: E731
    assert named(diagnosis.explain_gradients(f, [x], [2.5 * right])) == {"factor"}
    square = weights((3, 3), 4)
    right = np.exp(square) * weights((3, 3))
    assert named(diagnosis.explain_gradients(f, [square], [right.T])) == {"transpose"}
    assert diagnosis.explain_gradients(f, [x], [right[::-1, ::-1] + 1.0]) == ""  # nothing to say: the test's advice


def test_a_lone_number_is_no_evidence_of_a_factor():
    # The case: any wrong number is "some factor" times the right one; -2.143 says nothing.
    hint = diagnosis.explain_gradients(lambda x: x.exp() * x.tanh(), [0.4], [-2.143], constants=False)
    assert "factor" not in named(hint), hint


def test_a_computation_the_engine_does_not_model_gets_no_diagnosis():
    assert diagnosis.explain_gradients(lambda a: a.cosh(), [0.3], [1.0], constants=False) == ""


# -- the forward value ---------------------------------------------------------------------------
def test_a_reflected_operator_with_its_operands_swapped():
    hint = diagnosis.explain_forward(lambda a, b: 2.0 - a * b, [1.5, -0.7], (1.5 * -0.7) - 2.0)
    assert named(hint) == {"reflected"} and "__rsub__" in hint, hint


def test_a_mean_over_the_wrong_count():
    x = weights((2, 3, 4), 5)
    hint = diagnosis.explain_forward(lambda a: weighted(a.mean(axis=(0, 1))), [x], weighted_mean(x, 24))
    assert named(hint) == {"factor"}, hint


def test_a_mean_over_every_axis_divided_by_the_first_axis_length():
    # mean() of a 3x4 tensor as sum / len(data): divided by 3, not 12; a mean over given axes is right.
    x = weights((3, 4), 5)
    right = float((x.mean(axis=1) * weights((3,))).sum())
    hint = diagnosis.explain_forward(
        lambda a: weighted(a.mean(axis=1)) + a.mean() * 2.0, [x], right + 2.0 * x.sum() / 3
    )
    assert named(hint) == {"factor"}, hint
    assert "len(data)" in hint, hint


def test_a_power_of_the_base_s_absolute_value():
    # x ** 3 as abs(x) ** 3: the negative entries lose their sign, forward and in the rule.
    x = np.array([[-1.5, 0.5], [2.0, -0.7]])
    w = weights((2, 2))
    forward = diagnosis.explain_forward(lambda a: weighted(a**3), [x], float((np.abs(x) ** 3 * w).sum()))
    assert named(forward) == {"sign"} and "abs(x) ** k" in forward, forward
    rule = diagnosis.explain_gradients(lambda a: weighted(a**2), [x], [2 * np.abs(x) * w])
    assert named(rule) == {"sign"} and "abs(x) ** (k - 1)" in rule, rule


def test_a_value_a_hair_off_the_right_one_names_no_forward_bug():
    # log(x + 1e-8) for log(x): a forward bug that changes nothing in this computation (sum's keepdims, say)
    # gives the right value, as close to this one as the check's tolerance: it explains nothing (a review)
    x = weights((2, 3), 3) ** 2 + 0.5
    got = float((np.log(x + 1e-8) * weights((2, 3))).sum())
    assert diagnosis.explain_forward(lambda a: weighted(a.log()), [x], got) == ""


def test_an_output_whose_gradient_is_never_reset():
    # two calls of backward() on (x * x).sum(), the output's seed kept: 1 then 2, so 2x + 4x
    x = np.array([0.5, -1.5, 2.0])
    hint = diagnosis.explain_gradients(lambda a: (a * a).sum(), [x], [6 * x], calls=2)
    assert named(hint) == {"reset"} and "the output's" in hint, hint


def weighted_mean(x, count):
    return float((x.sum(axis=(0, 1)) / count * weights((4,))).sum())


# -- an exception raised inside the code under test ---------------------------------------------
@pytest.mark.parametrize(
    ("type_name", "message", "function", "kinds"),
    [
        (
            "ValueError",
            "matmul: Input operand 1 has a mismatch in its core dimension 0",
            "Tensor.__matmul__.<locals>.backward",
            {"transpose"},
        ),
        (
            "ValueError",
            "non-broadcastable output operand with shape (4,)",
            "Tensor.__add__.<locals>.backward",
            {"unbroadcast"},
        ),
        (
            "ValueError",
            "non-broadcastable output operand with shape (3,4)",
            "Tensor.__matmul__.<locals>.backward",
            {"unbroadcast"},
        ),
        (
            "TypeError",
            "'NoneType' object cannot be interpreted as an integer",
            "Tensor.sum.<locals>.backward",
            {"axis"},
        ),
        (
            "ValueError",
            "operands could not be broadcast together",
            "Tensor.reshape.<locals>.backward",
            {"reshape_back"},
        ),
        ("ValueError", "operands could not be broadcast together", "Tensor.transpose.<locals>.backward", {"transpose"}),
        ("RecursionError", "maximum recursion depth exceeded", "Tensor.backward.<locals>.visit", {"recursion"}),
        # backward() itself (not a rule): a seed of the wrong shape (np.ones(size) for a 0-d loss: a review)
        ("ValueError", "grad has shape (1,), expected ()", "Tensor.backward", {"seed"}),
        ("AttributeError", "'NoneType' object has no attribute 'data'", "", {"missing_return"}),
        ("ZeroDivisionError", "float division by zero", "Value.__truediv__", set()),
        # a rule whose derivative divides by nothing, written with out.data / x (a review's d(xy)/dx = out/x)
        ("ZeroDivisionError", "float division by zero", "Value.__mul__.<locals>.backward", {"derivative"}),
        ("ZeroDivisionError", "float division by zero", "Value.log.<locals>.backward", set()),  # 1/x is log's own
        ("ValueError", "boom", "", set()),
    ],
)
def test_an_error_is_read_from_where_it_was_raised(type_name, message, function, kinds):
    assert named(diagnosis.explain_error(type_name, message, (function,))) == kinds


def test_an_operation_that_refuses_a_plain_number():
    plain = diagnosis.plain_operands(lambda a: a * 2.0, [np.ones(3)])
    assert named(diagnosis.explain_error("ValueError", "wrap it", ("Tensor.__mul__",), plain)) == {"numbers"}
    # the same error where the computation gave `*` no number says nothing about numbers
    plain = diagnosis.plain_operands(lambda a: a * a, [np.ones(3)])
    assert diagnosis.explain_error("ValueError", "wrap it", ("Tensor.__mul__",), plain) == ""


# -- what it costs, and how it reads -------------------------------------------------------------
def test_no_hint_names_more_than_two_bugs():
    every = [
        faults.Fault(op, v, kind, i) for op, specific in faults.SPECIFIC_RULE_FAULTS.items() for v, i, kind in specific
    ]
    for n in (1, 2, 3, 5, len(every)):
        assert len(named(diagnosis.word(every[:n]))) <= 2


def test_numbers_print_as_a_person_writes_them():
    assert show(np.array(4.0)) == "4"
    assert show(np.array([[1.5, 0.0], [-2.0, 1e-7]])) == "[[1.5, 0], [-2, 1e-07]]"
    assert show([2.0, 0.0, -2.0]) == "[2, 0, -2]"


def test_numbers_that_print_alike_are_shown_with_every_digit():
    # A numerical derivative of x**3 at 2 with h = 1e-4 instead of 1e-6: "expected 12, got 12" said nothing.
    expected, got = 12.0, float((2.0001**3 - 1.9999**3) / 2e-4)
    with pytest.raises(AssertionError) as failed:
        expect_close(got, expected, "the derivative", rtol=1e-10, atol=0)
    assert "expected 12, got 12.00000001" in str(failed.value), failed.value
    with pytest.raises(AssertionError) as failed:
        expect_close(np.array([1.0, got]), np.array([1.0, 12.0]), "both", rtol=1e-10, atol=0)
    assert "expected [1, 12], got [1, 12.00000001" in str(failed.value), failed.value
    assert show_apart(0.5, 0.25) == ("0.5", "0.25")  # digits only where they are needed


def test_the_terminal_shows_the_diagnosis_of_a_real_bug(tmp_path):
    """`grader run` on a submission whose `*` uses its own value: the table names that bug, in plain numbers."""
    mutant = next(m for m in catalogue("ch06") if m.name == "value_mul_uses_own_factor")
    path = tmp_path / "alice.py"
    path.write_text(apply(reference_source("ch06"), mutant), encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "run",
            "--lab",
            "ch06",
            "--submission",
            str(path),
            "--json",
            str(tmp_path / "r.json"),
        ],
        cwd=labs.KIT_ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr
    printed = " ".join(proc.stdout.split())
    assert "expected [-24, 16, 8], got [16, 16, 8]" in printed, proc.stdout
    assert "its own value instead of the other operand's" in printed, proc.stdout


def test_an_error_in_a_helper_of_the_codes_own_is_read_in_the_function_that_called_it():
    """A function of the code's own that adds into a gradient (a student's, or the reference's
    Tensor._receive) is none the kit knows: the rule that called it is. One the kit knows is read
    where it is, even when it has nothing to say."""
    shape_error = ("ValueError", "operands could not be broadcast together with shapes (2,6) (3,4) (2,6)")
    calls = ("Tensor._accumulate", "Tensor.reshape.<locals>.backward")
    assert named(diagnosis.explain_error(*shape_error, calls)) == {"reshape_back"}
    assert named(diagnosis.explain_error(*shape_error, ("add_into", "Tensor.transpose.<locals>.backward"))) == {
        "transpose"
    }
    assert named(diagnosis.explain_error(*shape_error, ("Tensor._accumulate",))) == set()
    division = ("ZeroDivisionError", "float division by zero")
    assert diagnosis.explain_error(*division, ("Value.__truediv__", "Tensor.reshape.<locals>.backward")) == ""


def test_only_a_backward_rule_speaks_for_a_helper_it_called():
    """Past a helper, the first function the kit knows speaks for it only if it is a backward rule: a
    forward operation, a function the operation defines and calls itself, or _unbroadcast that called a
    helper says nothing it cannot see. A comprehension is read as the function it is written in; a
    rule written as a lambda is a rule (backward() calls it, not the operation that made it)."""
    shape_error = ("ValueError", "operands could not be broadcast together with shapes (2,6) (3,4) (2,6)")
    axis = ("ValueError", "axis -1 is out of range")
    assert diagnosis.explain_error(*axis, ("Tensor._axis", "Tensor.sum.<locals>.<genexpr>", "Tensor.sum")) == ""
    assert diagnosis.explain_error(*axis, ("Tensor.sum.<locals>.<genexpr>", "Tensor.sum")) == ""
    forward_helper = ("Tensor._axes", "Tensor.sum.<locals>.normalise", "Tensor.sum")
    assert diagnosis.explain_error(*axis, forward_helper) == ""
    assert diagnosis.explain_error(*axis, forward_helper[1:]) == ""
    assert diagnosis.explain_error(*shape_error, ("Tensor.__mul__.<locals>.lift", "Tensor.__mul__")) == ""
    typo = ("TypeError", "'int' object is not iterable")
    assert diagnosis.explain_error(*typo, ("helper", "_unbroadcast", "Tensor.__add__.<locals>.backward")) == ""
    in_a_rule = diagnosis.explain_error(*shape_error, ("Tensor.sum.<locals>.backward.<locals>.<genexpr>",))
    assert in_a_rule and in_a_rule == diagnosis.explain_error(*shape_error, ("Tensor.sum.<locals>.backward",))
    lambda_rule = ("Tensor.__add__.<locals>.<lambda>", "Tensor.backward")
    assert named(diagnosis.explain_error(*shape_error, lambda_rule, {"+"})) == {"unbroadcast"}
    assert named(diagnosis.explain_error(*shape_error, ("Tensor._accumulate", *lambda_rule), {"+"})) == {"unbroadcast"}
    forward_lambda = ("Tensor.__add__.<locals>.<lambda>", "Tensor.__add__")
    assert named(diagnosis.explain_error(*shape_error, forward_lambda, {"+"})) == {"numbers"}


def test_operations_that_call_each_other_are_named_not_the_sort():
    """-x written as 0 - x, where 0 - x is -x + 0: the recursion is in the operations, and the hint named the
    topological sort (a helper agent's review)."""
    cycle = (
        "Tensor.__init__",
        "Tensor.__rsub__",
        "Tensor.__neg__",
        "Tensor.__rsub__",
        "Tensor.__neg__",
        "Tensor.__rsub__",
    )
    said = diagnosis.explain_error("RecursionError", "maximum recursion depth exceeded", cycle)
    assert "`__rsub__` and `__neg__` call each other" in said and "topological" not in said
    assert named(said) == {"recursion"}
    sort = ("Tensor.backward.<locals>.visit",) * 6
    assert "topological sort" in diagnosis.explain_error("RecursionError", "maximum recursion depth exceeded", sort)
    alone = ("Value.__rsub__",) * 6  # one reflected operator calling itself: its own words, as before
    assert "`2.0 - x` (__rsub__) calls itself" in diagnosis.explain_error("RecursionError", "too deep", alone)


def test_the_next_submission_that_fails_the_same_check_searches_nothing_again(monkeypatch):
    """What the search found for a computation is kept for the process (a batch's session grades many
    students, who fail the same checks): the next search of it runs no fault again, and still names
    each submission's own bug."""
    memo.forget()
    runs = []
    run = faults.run
    monkeypatch.setattr(faults, "run", lambda *args, **kwargs: runs.append(args) or run(*args, **kwargs))
    hints, searched = [], []
    # f = a * b at a = 1.5, b = -0.7: a.grad = 1.5 is b's rule multiplying by a's own value; 0.7, a's sign.
    for got in ([1.5, 1.5], [0.7, 1.5], [1.5, 1.5]):
        before = len(runs)
        hints.append(diagnosis.explain_gradients(lambda a, b: a * b, [1.5, -0.7], got, constants=False))
        searched.append(len(runs) - before)
    assert searched[0] > 10 and searched[1:] == [0, 0], searched
    assert named(hints[0]) == {"other_operand"} and named(hints[1]) == {"sign"}, hints
    assert hints[2] == hints[0]

"""Lab lesson1_3's tests: one file for every implementation.

The code under test comes from the seam (``IMPL=mine|ref|path``). Tests use only the
handout's public API, convert every returned value to an exact float or float64 array
before comparing, and compute expected numbers with the kit's own trusted code
(grader.testing), never with the functions the student writes.

The expected figures are the lesson's; where the lesson prints a rounded figure, the
full-precision value from the reference is pinned next to it. When a number is wrong, the hint
names the bug it points to (labs/lesson1_3/diagnoses.py), or no bug when it cannot tell.

Run them with ``make lab LAB=lesson1_3`` or ``IMPL=ref pytest labs/lesson1_3/test_lab.py``.
"""

import math

import numpy as np
import pytest

from grader import under_test
from grader.testing import (
    FORWARD_HINT,
    LabCheckFailure,
    SpecScalar,
    as_array,
    as_float,
    check_scalar_gradients,
    expect_close,
    expect_shape,
    explained_errors,
    fail,
    graded,
    numerical_gradient,
    read_each,
    searching,
)
from grader.testing.graphs import SCALAR_GRAPH_SETTINGS, check_random_graphs, scalar_graphs
from labs.lesson1_3 import diagnoses

lab = under_test("lesson1_3")

ACCUMULATE = "add each contribution with +=: a number used twice receives the sum of both uses"
XS = [0.0, 1.0, 2.0, 3.0]
YS = [1.0, 3.0, 5.0, 7.0]  # exactly y = 2x + 1
NOISY_YS = [1.2, 2.7, 5.3, 6.9]
NOISY_STEPS = 800  # enough for the fit to settle on the least-squares line (exercise 3)


def grads(*values):
    """Each value's .grad as a float, read at once (behind the wall, in one round trip), checked in turn."""
    reads = read_each([(v, "grad") for v in values])
    return [as_float(take(), f"input {i}'s .grad") for i, take in enumerate(reads)]


def expect_diagnosed(got, expected, what: str, diagnose, fallback: str = "", **tolerances):
    """expect_close, whose hint on a failure is the bug ``diagnose()`` recognises (worked out only
    then: it may probe the code under test), else ``fallback``, else the test's own hint."""
    try:
        expect_close(got, expected, what, **tolerances)
    except LabCheckFailure as failure:
        fail(failure.message, diagnose() or fallback)


def spec_derivative(f, at):
    """The kit's derivative of ``f`` (written against the Value API) at ``at``: central differences of SpecScalar."""
    return float(numerical_gradient(lambda x: f(SpecScalar(float(x))).data, np.array(at)))


def central(f, args, i, h=1e-6):
    """The kit's own derivative of a trusted Python function, by central differences."""
    return float(
        numerical_gradient(
            lambda x: f(*[float(x) if j == i else a for j, a in enumerate(args)]), np.array(args[i]), eps=h
        )
    )


# ---------------------------------------------------------------------------
# Task 1: the Value engine
# ---------------------------------------------------------------------------


@graded(task="engine", points=1, hint="Value(data) stores float(data) in .data and starts .grad at the float 0.0")
def test_engine_value_holds_a_float_and_a_zero_gradient():
    x = lab.Value(3)
    expect_close(as_float(x.data, "Value(3).data"), 3.0, "Value(3).data")
    expect_close(as_float(x.grad, "Value(3).grad before any backward pass"), 0.0, "Value(3).grad")


@graded(task="engine", points=3, hint="each backward step multiplies a local derivative by the gradient from above")
def test_engine_reproduces_the_lessons_graph():
    # f = (a*b + c) * (-2) at a = 2, b = -3, c = 10: d = -6, e = 4, f = -8.
    a, b, c = lab.Value(2.0), lab.Value(-3.0), lab.Value(10.0)
    f = (a * b + c) * lab.Value(-2.0)
    f.backward()
    expect_close(as_float(f.data, "f.data"), -8.0, "f = (a*b + c) * (-2): forward value", hint=FORWARD_HINT)
    *got, f_grad = grads(a, b, c, f)  # one read
    expect_diagnosed(
        got,
        [6.0, -4.0, -2.0],
        "(df/da, df/db, df/dc) for f = (a*b + c) * (-2)",
        lambda: diagnoses.lessons_graph(lab.Value, f, got, 2.0, -3.0, 10.0),
    )
    expect_close(
        f_grad,
        1.0,
        "f.grad after f.backward()",
        hint="backward() sets the output's gradient to 1 (df/df) and leaves every gradient as it is: a node's "
        "gradient reset after its rule ran is lost to whoever reads it (the logits' gradients of a computed loss)",
    )


def shared_node(x):
    u = x * 2.0  # an intermediate node used twice: directly and through exp
    return u * u.exp()


def used_by_two_operations(x):
    u = x * 3.0  # twice by one multiply, once by another: a sort that counts u's users once but counts
    return u * 2.0 + u * u  # down once per use runs u's rule before u * 2 has added into u.grad


def used_by_two_operations_swapped(x):
    u = x * 3.0  # the same, with the operands of + swapped: the other order of such a sort's stack
    return u * u + u * 2.0


# x reaches the output along two paths; the rule that runs second must add to what the first left.
# The operation named with each case is the one whose rule runs second.
REPEATED = {
    "(x + 1) * x": (lambda x: (x + 1.0) * x, "add"),
    "(exp(x) + x) * x": (lambda x: (x.exp() + x) * x, "exp"),
    "x**2 * x": (lambda x: x**2 * x, "pow"),
    "log(x) * x": (lambda x: x.log() * x, "log"),
    "tanh(x) * x": (lambda x: x.tanh() * x, "tanh"),
    "u * exp(u) with u = 2x": (shared_node, None),
    "u * 2 + u * u with u = 3x": (used_by_two_operations, None),
    "u * u + u * 2 with u = 3x": (used_by_two_operations_swapped, None),
}


@graded(task="engine", points=4, hint="a number used twice receives the sum of the contributions of both uses")
def test_engine_adds_the_contributions_of_a_repeated_number():
    x = lab.Value(3.0)
    y = x * x + x * 2
    y.backward()
    y_data, x_grad = read_each([(y, "data"), (x, "grad")])
    expect_close(as_float(y_data(), "y.data"), 15.0, "y = x*x + 2x at x = 3: forward value", hint=FORWARD_HINT)
    got = as_float(x_grad(), "x.grad")
    if got != 8.0:
        why = {
            2.0: "only the 2x term's contribution arrived",
            3.0: "x.grad is 3, the contribution of one side of x*x alone: a later rule replaced what the "
            "earlier ones had added (`=` instead of `+=`)",
        }
        fail(f"y = x*x + 2x at x = 3: expected dy/dx = 2x + 2 = 8.0, got {got:g}", why.get(got, ACCUMULATE))
    for text, (f, op) in REPEATED.items():
        x = lab.Value(0.8)
        with diagnoses.plain_numbers(lab.Value, f"y = {text} at x = 0.8"):
            y = f(x)
            y.backward()
            # Read inside: behind the wall the read is the wait that brings an error of the block back in it.
            y_data, x_grad = read_each([(y, "data"), (x, "grad")])
        expected_y = f(SpecScalar(0.8)).data
        expect_close(
            as_float(y_data(), f"({text}).data"), expected_y, f"y = {text} at x = 0.8: forward value", hint=FORWARD_HINT
        )
        got, expected = as_float(x_grad(), "x.grad"), spec_derivative(f, 0.8)
        if not math.isclose(got, expected, rel_tol=1e-4, abs_tol=1e-6):
            said = f"y = {text} at x = 0.8: expected dy/dx = {expected:.6f}, got {got:.6f}"
            if op is None:
                fail(said, diagnoses.shared_node(got, expected))
            alone = diagnoses.rule_alone(lab.Value, op, 0.8)  # a wrong rule, not the adding up, if it fails alone
            if alone is not None:
                fail(f"{said}; {alone[0]}", alone[1])
            fail(
                said,
                f"{op}'s backward rule uses `=` instead of `+=`: a number used twice receives the sum of both uses",
            )
    # a is used twice and has gathered the product's contribution when the rule of a + b runs: b's share is
    # out.grad alone (a rule that hands b what a holds, `other.grad += self.grad`, passed every case above)
    check_scalar_gradients(
        lab.Value,
        lambda a, b: (a + b) * a,
        [1.5, -0.7],
        "Value (a + b) * a",
        hint="a + b passes out.grad to both a and b: b's gradient is the gradient of a + b, not what a has gathered",
    )


NEURON = [-3.0, 1.0, 6.8814, 2.0, 0.0]  # w1, w2, bias, x1, x2


def neuron(w1, w2, b, x1, x2):
    return math.tanh(w1 * x1 + w2 * x2 + b)


def relu(x):
    return max(x, 0.0)


def squared_times(a, b):
    return a * a * b


# numerical_derivative(squared_times, [2, 3], 0): a copy of args that holds ints only (a numpy array made from
# them) stores 2 + h as 2, so both sides of the difference are the same and the estimate is 0.
INT_ARGS = (
    "args may hold ints: nudge a copy made with list(args) (a numpy array of ints is the wrong type for the "
    "copy: it truncates x + h back to x)"
)


@graded(task="engine", points=4, hint="tanh's derivative is 1 - tanh**2; x2 = 0 makes w2's gradient exactly 0")
def test_engine_neuron_matches_finite_differences_to_six_places():
    def neuron_of(w1, w2, bias, x1, x2):
        return (w1 * x1 + w2 * x2 + bias).tanh()

    w1, w2, bias, x1, x2 = (lab.Value(v) for v in NEURON)
    with explained_errors(neuron_of, NEURON):  # an error in a rule is read where it was raised
        out = neuron_of(w1, w2, bias, x1, x2)
        out.backward()
    expect_close(
        as_float(out.data, "out.data"),
        0.7071199874301226,
        "the neuron's output (the lesson: 0.70712): forward value",
        hint=FORWARD_HINT,
    )
    got = grads(w1, w2, bias, x1, x2)
    expected = [central(neuron, NEURON, i) for i in range(5)]
    names = ["w1", "w2", "bias", "x1", "x2"]
    for name, g, e in zip(names, got, expected, strict=True):
        if abs(g - e) >= 5e-7:
            fail(f"the neuron's d out/d {name}: the numerical estimate is {e:.6f}, your engine gives {g:.7f}")


UPSTREAM = "times the gradient arriving from above"
FAR_OUT = (
    "far from 0, e**x and cosh(x) overflow: compute tanh with math.tanh, or from e**-2|x|, which stays small, "
    "and its local derivative as 1 - t*t from that t"
)
POW_AT_ZERO = (
    "the local derivative of x**k, k * x**(k - 1), is 0 at x = 0: written as k * out.data / x, it divides by zero"
)

# Each operation sits under a factor 3 or another operation, so its rule must use out.grad.
SCALAR_CASES = {
    "exp": (lambda x: x.exp() * 3.0, [0.7], f"exp's local derivative is exp(x), its own output, {UPSTREAM}"),
    "log": (lambda x: x.log() * 3.0, [1.3], f"log's local derivative is 1/x, x being the input, {UPSTREAM}"),
    "tanh": (lambda x: x.tanh() * 3.0, [-0.4], f"tanh's local derivative is 1 - t*t with t = tanh(x), {UPSTREAM}"),
    "pow": (lambda x: x**3 + x**-1, [1.7], "x**k has the local derivative k * x**(k - 1)"),
    # (x**-1 has no value at 0: the case's second point is x**3 alone, below)
    "neg_sub": (lambda a, b: -a - b, [1.5, -0.7], "-a is a * -1 and a - b is a + (-b): both stay in the graph"),
    "div": (lambda a, b: a / b, [1.5, -0.7], "a / b is a * b**-1, so d(a/b)/db = -a / b**2"),
    "numbers_on_the_left": (
        lambda a, b: 2.0 - a * b + 3.0 / a + (1.0 + 4.0 * b),
        [1.5, -0.7],
        "the value is right, so each number sits where it belongs: check the backward rules of 2 - x, 3 / x and 1 + x",
    ),
    "numbers_on_the_right": (
        lambda a, b: (a - 2.0) / 4.0 + b * 0.5,
        [1.5, -0.7],
        "the value is right: check the backward rules of x - 2, x / 4 and x * 0.5",
    ),
}


@pytest.mark.parametrize("case", list(SCALAR_CASES))
@graded(
    task="engine",
    points=1,
    hint="each operation's backward rule adds its local derivative times the gradient from above",
)
def test_engine_operations(case):
    f, inputs, hint = SCALAR_CASES[case]
    with diagnoses.plain_numbers(lab.Value, f"Value {case} at {inputs}"), explained_errors(f, inputs):
        got = as_float(f(*[lab.Value(v) for v in inputs]).data, f"Value {case}: the result's .data")
    expected = f(*[SpecScalar(v) for v in inputs]).data
    expect_close(
        got,
        expected,
        f"Value {case}: forward value at {inputs}",
        atol=1e-10,
        hint=diagnoses.forward_value(lab.Value, f, inputs, got) or FORWARD_HINT,
    )
    check_scalar_gradients(lab.Value, f, inputs, f"Value {case}", hint=hint)
    if case == "tanh":  # far out on both sides: e**2x overflows at 800, e**-2x at -800, cosh(x) beyond 710 on either
        for far in (800.0, -800.0):
            check_scalar_gradients(lab.Value, lambda x: x.tanh(), [far], f"Value tanh at {far:g}", error_hint=FAR_OUT)
    if case == "pow":  # at 0, where k * x**(k - 1) is 0 and a rule written as k * out.data / x divides by zero
        check_scalar_gradients(
            lab.Value,
            lambda x: x**3,
            [0.0],
            "Value x**3 at 0",
            hint=POW_AT_ZERO,
            error_hint=POW_AT_ZERO,
        )


@pytest.mark.parametrize("at", [0.5, -2.0, 0.0], ids=["x=0.5", "x=-2", "x=0"])
@graded(task="engine", points=1, hint="exercise 2: relu(x) = x if x > 0 else 0; its gradient is 1 if x > 0 else 0")
def test_engine_relu(at):
    x = lab.Value(at)
    y = x.relu()
    y.backward()
    expect_close(as_float(y.data, "relu(x).data"), max(at, 0.0), f"relu({at:g})")
    got = as_float(x.grad, "x.grad")
    expect_close(
        got,
        1.0 if at > 0 else 0.0,
        f"d relu(x)/dx at x = {at:g}",
        hint=diagnoses.relu_gradient(at, got) or "the gradient passes only where x > 0 (strictly: at x = 0 it is 0)",
    )
    if at != 0.0:  # at the kink the central difference straddles both sides and gives 0.5
        expect_close(central(lambda v: max(v, 0.0), [at], 0), 1.0 if at > 0 else 0.0, "the central difference")
    x = lab.Value(at)
    (x.relu() + x).backward()  # x reaches the output twice: relu's rule must add to x.grad, not replace it
    expect_close(
        as_float(x.grad, "x.grad"),
        (1.0 if at > 0 else 0.0) + 1.0,
        f"d(relu(x) + x)/dx at x = {at:g}",
        hint="relu's backward adds its contribution to x.grad with `+=`, not `=`: x also gets 1 from the + node",
    )


@graded(
    task="engine",
    points=3,
    hint="backward() adds into a leaf's .grad: a leaf used by two graphs collects the gradients of both passes",
)
def test_engine_leaf_gradients_add_up_across_backward_passes():
    x, w = lab.Value(3.0), lab.Value(-2.0)
    (x * w).backward()  # dx = w = -2, dw = x = 3
    (x * x + w).backward()  # a new graph on the same leaves: dx = 2x = 6, dw = 1
    got = grads(x, w)
    expect_close(
        got,
        [4.0, 4.0],
        "(x.grad, w.grad) after (x*w).backward() then (x*x + w).backward(): (-2 + 6, 3 + 1)",
        hint=diagnoses.leaf_passes(got, [6.0, 1.0]),
    )


@graded(task="engine", points=3, hint="exercise 6: chain tanh's derivative through both layers")
def test_engine_two_layer_tanh():
    w1, w2, x = lab.Value(0.5), lab.Value(-1.5), lab.Value(2.0)
    out = (w2 * (w1 * x).tanh()).tanh()
    out.backward()
    by_hand = math.tanh(1.0)  # the hidden value tanh(w1 x)
    top = math.tanh(-1.5 * by_hand)
    expected = [(1 - top**2) * -1.5 * (1 - by_hand**2) * 2.0, (1 - top**2) * by_hand]  # -0.42260, 0.25545
    expect_close(
        as_float(out.data, "out.data"),
        top,
        "tanh(w2 tanh(w1 x)) at w1 = 0.5, w2 = -1.5, x = 2: forward value",
        hint=FORWARD_HINT,
    )
    expect_close(grads(w1, w2), expected, "(d out/d w1, d out/d w2)", atol=1e-12)


# Random graphs (Hypothesis, from a fixed seed): shared nodes, numbers on the left, every function.
# A failure shows the smallest graph found, as an expression with its inputs.
@graded(task="engine", points=1, hint="check each operation alone first; " + ACCUMULATE)
@searching
def test_engine_random_graphs():
    check_random_graphs(
        lab.Value, scalar_graphs(), SCALAR_GRAPH_SETTINGS, hint="check each operation alone first; " + ACCUMULATE
    )


# ---------------------------------------------------------------------------
# Task 2: the numerical check
# ---------------------------------------------------------------------------


@graded(task="numeric", points=4, hint="the central difference is (f(x + h) - f(x - h)) / (2h), not a one-sided one")
def test_numerical_derivative_is_central():
    def cube(x):
        return x**3

    for h in (1e-6, 1e-3):
        try:
            estimate = lab.numerical_derivative(cube, [2.0], 0, h=h)
        except TypeError as exc:  # f(up) for f(*up): x**3 of a list
            fail(
                f"numerical_derivative(x**3, [2], 0, h={h}) raised TypeError: {exc}",
                "f takes the numbers themselves, f(*args): call it in that form of call, f(*up), not f(up)",
            )
        got = as_float(estimate, f"numerical_derivative(x**3, [2], 0, h={h})")
        expected = ((2.0 + h) ** 3 - (2.0 - h) ** 3) / (2 * h)  # 12 + h**2, while a forward difference is 12 + 6h
        expect_close(
            got,
            expected,
            f"the derivative of x**3 at 2 with h = {h}",
            atol=1e-9,
            rtol=0,
            hint=diagnoses.difference_quotient(cube, 2.0, h, got)
            or "the central difference is (f(x + h) - f(x - h)) / (2h)",
        )
    default = as_float(lab.numerical_derivative(cube, [2.0], 0), "numerical_derivative without h")
    expect_close(
        default,
        12.0,
        "the derivative of x**3 at 2 with the default h = 1e-6",
        atol=1e-8,
        rtol=0,
        hint="the default h is 1e-6: the central difference is off by h**2 here, 1e-12 with it",
    )
    # The default itself: 5e-6 from relu's kink, h = 1e-6 stays on one side (slope 1); 1e-5 (CS231n's) straddles it
    near_kink = as_float(lab.numerical_derivative(relu, [5e-6], 0), "numerical_derivative(relu, [5e-6], 0)")
    expect_close(
        near_kink,
        1.0,
        "the derivative of max(x, 0) at x = 5e-6 with the default h",
        atol=1e-6,
        rtol=0,
        hint="the default h is 1e-6 (numerical_derivative(f, args, i, h=1e-6)): a larger one reaches across the "
        "kink at 0, 5e-6 away, and the central difference mixes both slopes",
    )


@graded(task="numeric", points=3, hint="numerical_derivative(f, args, i) moves args[i] by ±h, on copies of args")
def test_numerical_derivative_picks_argument_i_and_leaves_args_alone():
    args = list(NEURON)
    estimates = []
    for i in range(5):
        estimates.append(
            as_float(lab.numerical_derivative(neuron, args, i), f"numerical_derivative(neuron, args, {i})")
        )
        if args != NEURON:
            fail(
                f"numerical_derivative(neuron, args, {i}) changed the caller's args: {NEURON} became {args}",
                diagnoses.changed_args(NEURON, args, i, 1e-6) or "nudge copies: the caller's list must not change",
            )
    hint = diagnoses.nudged_every_argument(neuron, NEURON, 1e-6, estimates)
    for i, got in enumerate(estimates):
        expect_close(
            got,
            central(neuron, NEURON, i),
            f"the neuron's derivative with respect to argument {i}",
            atol=1e-9,
            rtol=0,
            hint=hint or "move args[i] by ±h, and no other argument",
        )
    got = as_float(lab.numerical_derivative(squared_times, [2, 3], 0), "numerical_derivative(f, [2, 3], 0)")
    expected = central(squared_times, [2.0, 3.0], 0)
    expect_close(got, expected, "the derivative of a * a * b at the ints (2, 3) in a", atol=1e-6, rtol=0, hint=INT_ARGS)


@graded(task="numeric", points=3, hint="the engine and the estimate must agree to six decimal places")
def test_numerical_derivative_agrees_with_the_engine():
    rounded = [round(as_float(lab.numerical_derivative(neuron, list(NEURON), i), "the estimate"), 6) for i in range(5)]
    expect_close(rounded, [0.999963, 0.0, 0.499981, -1.499944, 0.499981], "the lesson's estimates", atol=1e-12)
    w1, w2, bias, x1, x2 = (lab.Value(v) for v in NEURON)
    out = (w1 * x1 + w2 * x2 + bias).tanh()
    out.backward()
    expect_close(
        as_float(out.data, "out.data"), neuron(*NEURON), "the engine's neuron: forward value", hint=FORWARD_HINT
    )
    expect_close(grads(w1, w2, bias, x1, x2), rounded, "engine against estimate, to six places", atol=5e-7, rtol=0)


# ---------------------------------------------------------------------------
# Task 3: the gradient through a softmax
# ---------------------------------------------------------------------------


def softmax(z):
    e = np.exp(np.asarray(z) - np.max(z))
    return e / e.sum()


def run_softmax(logits, target):
    values = [lab.Value(v) for v in logits]
    probs, loss = lab.softmax_cross_entropy(values, target)
    probs = list(probs)
    reads = read_each([*((p, "data") for p in probs), (loss, "data"), *((v, "data") for v in values)])
    got_probs = np.array([as_float(reads[i](), f"probs[{i}].data") for i in range(len(probs))])
    got_loss = as_float(reads[len(probs)](), "loss.data")
    after = [as_float(take(), f"logits[{i}].data") for i, take in enumerate(reads[len(probs) + 1 :])]
    if after != [float(v) for v in logits]:
        fail(
            f"softmax_cross_entropy changed the caller's logits: their .data {list(logits)} became {after}",
            "subtract the largest logit in the graph, as new Values (v - m): never in place (v.data -= m), which "
            "every other use of those logits would then see",
        )
    loss.backward()
    return got_probs, got_loss, np.array(grads(*values))


SOFTMAX = "probabilities are exp(z - max) divided by their sum; the gradient of the logits is p - one_hot"


@graded(
    task="softmax",
    points=6,
    hint="probabilities are exp(z - max) divided by their sum, the loss -log of the right class's probability",
)
def test_softmax_reproduces_the_lesson():
    probs, loss, gradient = run_softmax([2.0, 1.0, 0.1], 0)
    hint = diagnoses.softmax_result([2.0, 1.0, 0.1], 0, probs, loss, gradient) or SOFTMAX
    expect_close(probs.round(4), [0.659, 0.2424, 0.0986], "probabilities, to 4 places", atol=1e-12, hint=hint)
    expect_close(round(loss, 4), 0.417, "loss, to 4 places", atol=1e-12, hint=hint)
    expect_close(
        gradient.round(4), [-0.341, 0.2424, 0.0986], "gradient of the logits, to 4 places", atol=1e-12, hint=hint
    )
    expected = softmax([2.0, 1.0, 0.1])
    expect_close(probs, expected, "probabilities", rtol=1e-9, hint=hint)
    expect_close(loss, -math.log(expected[0]), "loss", rtol=1e-9, hint=hint)


@pytest.mark.parametrize("target", [0, 3, 4])
@graded(task="softmax", points=2, hint=SOFTMAX)
def test_softmax_gradient_is_probabilities_minus_one_hot(target):
    logits = list(np.random.default_rng(target).normal(size=5) * 2.0)
    probs, loss, gradient = run_softmax(logits, target)
    hint = diagnoses.softmax_result(logits, target, probs, loss, gradient) or SOFTMAX
    expected = softmax(logits)
    expect_close(probs, expected, f"probabilities of 5 logits, target {target}", rtol=1e-9, hint=hint)
    expect_close(loss, -math.log(expected[target]), f"loss -log p[{target}] for target {target}", rtol=1e-9, hint=hint)
    expect_close(gradient, expected - np.eye(5)[target], "gradient of the logits", atol=1e-12, rtol=1e-9, hint=hint)


@graded(
    task="softmax",
    points=3,
    hint="subtract the LARGEST logit before exp: every exponent is then <= 0, while exp(1000) overflows a float "
    "(shifting by the smallest or the mean logit leaves exponents near 1000 when the logits are far apart)",
)
def test_softmax_is_stable_for_large_logits():
    probs, loss, gradient = run_softmax([1002.0, 1001.0, 1000.1], 0)
    expected = softmax([2.0, 1.0, 0.1])
    expect_close(probs, expected, "probabilities of logits (1002, 1001, 1000.1)", rtol=1e-9)
    expect_close(gradient, expected - [1.0, 0.0, 0.0], "gradient of logits near 1000", atol=1e-9)
    spread = [1000.0, 999.0, -1000.0, -1000.0]  # 2000 apart: only the shift by the largest keeps exp finite
    probs, loss, gradient = run_softmax(spread, 1)
    expected = softmax(spread)  # (0.731, 0.269, 0, 0): exp(-2000) underflows harmlessly to 0
    expect_close(probs, expected, "probabilities of logits (1000, 999, -1000, -1000)", rtol=1e-9)
    expect_close(loss, -math.log(expected[1]), "loss of logits (1000, 999, -1000, -1000), target 1", rtol=1e-9)
    expect_close(gradient, expected - np.eye(4)[1], "gradient of logits (1000, 999, -1000, -1000)", atol=1e-12)


# ---------------------------------------------------------------------------
# Task 4: matrix-product gradients
# ---------------------------------------------------------------------------


def numeric_matmul_grads(X, W, T):
    """The kit's numerical gradients of 0.5 * sum((X W - T)^2) with respect to X and W."""

    def loss(X, W):
        return 0.5 * float(((X @ W - T) ** 2).sum())

    return numerical_gradient(lambda x: loss(x, W), X), numerical_gradient(lambda w: loss(X, w), W)


SHAPES = "dX = dY W^T has X's shape (n, d); dW = X^T dY has W's shape (d, k)"


@pytest.mark.parametrize(
    "shape", [(4, 3, 2), (5, 3, 6), (2, 4, 4), (1, 5, 3)], ids=["lesson_4x3x2", "5x3x6", "2x4x4", "1x5x3"]
)
@graded(
    task="matmul",
    points=2.5,
    hint=f"numpy refusing the shapes of a product means one of its operands needs transposing: {SHAPES}",
)
def test_matmul_grads_match_the_numerical_check(shape):
    n, d, k = shape
    rng = np.random.default_rng(0)
    X, W, T = rng.standard_normal((n, d)), rng.standard_normal((d, k)), rng.standard_normal((n, k))
    dY = X @ W - T  # the gradient of the loss with respect to Y
    result = lab.matmul_grads(X.copy(), W.copy(), dY.copy())
    if not isinstance(result, tuple) or len(result) != 2:
        fail(f"matmul_grads should return a tuple (dX, dW), got {type(result).__name__}")
    dX, dW = as_array(result[0], "dX"), as_array(result[1], "dW")
    hint = diagnoses.matmul_result(X, W, dY, dX, dW)
    expect_shape(dX.shape, (n, d), "dX", hint=hint or SHAPES)
    expect_shape(dW.shape, (d, k), "dW", hint=hint or SHAPES)
    numeric_dX, numeric_dW = numeric_matmul_grads(X, W, T)
    # The lesson measures 1.9e-9 between dW and the numerical check on its (4, 3, 2) problem.
    for name, got, expected in (("dW", dW, numeric_dW), ("dX", dX, numeric_dX)):
        worst = float(np.abs(got - expected).max())
        if worst > 1e-8:
            fail(
                f"{name} for X {X.shape} @ W {W.shape}: differs from the numerical check by {worst:.2e} (over 1e-8)",
                hint or SHAPES,
            )
    # Integer inputs (a student's own toy matrices): the handout's float64 arrays all the same
    whole = lab.matmul_grads(
        np.arange(n * d).reshape(n, d), np.ones((d, k), dtype=np.int64), np.ones((n, k), dtype=int)
    )
    if not isinstance(whole, tuple) or len(whole) != 2:
        fail(f"matmul_grads should return a tuple (dX, dW), got {type(whole).__name__}")
    for name, got in zip(("dX", "dW"), whole, strict=True):
        as_array(got, f"{name} for integer X, W and dY (the handout: float64 arrays whatever the inputs)")


# ---------------------------------------------------------------------------
# Task 5: gradient descent
# ---------------------------------------------------------------------------

# The lesson's table (learning rate 0.05), with the reference's full-precision rows.
TABLE = {
    0: (21.0, 0.0, 0.0),
    1: (7.05875, 0.8500000000000001, 0.4),
    2: (2.373021875, 1.3425, 0.6325000000000001),
    10: (0.0009197664353937435, 2.009280835294629, 0.9575813953269533),
    50: (4.764590706993316e-05, 2.00536833829494, 0.9885383743418655),
    100: (2.326323638968845e-06, 2.0011862115360692, 0.9974673890090854),
    200: (5.545736142803584e-09, 2.0000579170826387, 0.9998763446184832),
}


def rows(xs, ys, lr, steps, **kwargs):
    """fit_line's rows as exact (int, float, float, float) tuples."""
    result = lab.fit_line(list(xs), list(ys), lr, steps, **kwargs)
    if not isinstance(result, list):
        fail(f"fit_line should return a list of rows, got {type(result).__name__}")
    if len(result) != steps + 1:
        numbers = [
            row[0] if isinstance(row, tuple) and row and type(row[0]) is int else None for row in result[: steps + 2]
        ]
        fail(
            f"fit_line(..., steps={steps}) gave {len(result)} rows; it should give {steps + 1} (steps 0 to {steps})",
            diagnoses.row_numbers(numbers, steps) or "evaluate the loss at step 0 too, and at the last step",
        )
    checked = []
    for index, row in enumerate(result):
        if not isinstance(row, tuple) or len(row) != 4:
            fail(f"row {index} should be a tuple (step, loss, w, b), got {row!r:.80}")
        if type(row[0]) is not int or row[0] != index:
            fail(f"row {index} should start with the step number {index}, got {row[0]!r}")
        checked.append(
            (
                index,
                *(as_float(v, f"row {index}'s {name}") for v, name in zip(row[1:], ("loss", "w", "b"), strict=True)),
            )
        )
    return checked


@graded(
    task="descent",
    points=8,
    hint="each step computes a fresh loss, the mean of the squared errors over the points; "
    "record w and b before updating them",
)
def test_fit_line_reproduces_the_lessons_table():
    first = rows(XS, YS, 0.05, 2)  # two steps first: where most bugs show, and cheap to run again in a probe
    _, _, got_w, got_b = first[0]
    if (got_w, got_b) != (0.0, 0.0):
        fail(
            f"row 0 should hold the starting w = b = 0, got w = {got_w}, b = {got_b}",
            "append the row before the update, with the values the loss was computed from",
        )
    right = [TABLE[step] for step in range(3)]
    for step in range(3):
        expect_diagnosed(
            first[step][1:],
            right[step],
            f"step {step}: (loss, w, b)",
            lambda: diagnoses.first_rows(
                first, right, NO_ZEROING[2], len(XS), lambda zero_grad: rows(XS, YS, 0.05, 2, zero_grad=zero_grad)
            ),
            atol=1e-12,
            rtol=1e-6,
        )
    got = rows(XS, YS, 0.05, 200)
    for step, expected in TABLE.items():
        expect_close(got[step][1:], expected, f"step {step}: (loss, w, b)", atol=1e-12, rtol=1e-6)


@graded(task="descent", points=6, hint="exercise 3: noise leaves a floor; the fit is the least-squares line")
def test_fit_line_on_noisy_points_reaches_the_least_squares_line():
    # One run: its step 200 is the lesson's; by step 800 it has settled on the least-squares line (the
    # reference is within 1e-11 of it from step 769 on, a hundredth of the tolerance below).
    got = rows(XS, NOISY_YS, 0.05, NOISY_STEPS)
    expect_close(
        got[200][1:],
        [0.05575003007808269, 1.9701348814270463, 1.0697120225404828],
        "noisy points, step 200: (loss, w, b)",
        atol=1e-12,
        rtol=1e-6,
    )
    A = np.c_[XS, np.ones(4)]
    (w, b), *_ = np.linalg.lstsq(A, np.array(NOISY_YS), rcond=None)  # 1.97, 1.07
    floor = float(((A @ [w, b] - NOISY_YS) ** 2).mean())  # 0.05575: the loss cannot reach zero
    _, loss, got_w, got_b = got[-1]
    expect_close(
        [loss, got_w, got_b], [floor, w, b], f"noisy points after {NOISY_STEPS} steps: (loss, w, b)", atol=1e-9
    )


# Exercise 5 at learning rate 0.05, gradients never cleared: the reference's rows.
NO_ZEROING = {
    2: (0.14952187499999992, 2.1925, 1.0325000000000002),
    3: (10.666475953124998, 3.4627499999999998, 1.6328750000000003),
    50: (2.807859637178902, 2.721566659243643, 1.3863353356727304),
    200: (19.520789804200426, 0.02396930847282039, 0.13783143446479956),
}


@graded(task="descent", points=6, hint="exercise 5: with zero_grad=False the gradients add up from step to step")
def test_fit_line_without_zeroing_keeps_overshooting():
    got = rows(XS, YS, 0.05, 200, zero_grad=False)
    expect_close(got[1][1:], TABLE[1], "without zeroing, step 1 equals the zeroed run's", atol=1e-12, rtol=1e-6)
    shared = [2, 50, 200]  # steps of both tables

    def zeroed_anyway():
        return diagnoses.without_zeroing([got[step][1:] for step in shared], [TABLE[step] for step in shared])

    for step, expected in NO_ZEROING.items():
        expect_diagnosed(
            got[step][1:], expected, f"without zeroing, step {step}: (loss, w, b)", zeroed_anyway, atol=1e-12, rtol=1e-6
        )
    losses = [row[1] for row in got]
    lowest = int(np.argmin(losses))
    if lowest != 78 or max(losses[100:]) < 19:
        fail(
            f"without zeroing the loss should dip to 0.0031 at step 78 and swing back above 19; "
            f"lowest at step {lowest}, largest after step 100 is {max(losses[100:]):.3g}"
        )


# ---------------------------------------------------------------------------
# Task 6: the learning-rate ceiling
# ---------------------------------------------------------------------------


def ceiling(xs):
    """The kit's own 2 / (largest eigenvalue of the MSE loss's Hessian in (w, b))."""
    x = np.asarray(xs, dtype=np.float64)
    hessian = (2 / len(x)) * np.array([[x @ x, x.sum()], [x.sum(), len(x)]])
    return 2 / float(np.linalg.eigvalsh(hessian)[-1])


CEILING_INPUTS = (XS, [-1.0, 0.5, 2.0, 4.5], [10.0, 11.0, 12.5], [2.0])  # one point too: n = 1


@graded(task="ceiling", points=4, hint="2 divided by the LARGEST eigenvalue of the Hessian (2/n)[[Σx², Σx], [Σx, n]]")
def test_max_stable_lr():
    got = [as_float(lab.max_stable_lr(list(xs)), f"max_stable_lr({xs})") for xs in CEILING_INPUTS]
    hint = diagnoses.ceiling(CEILING_INPUTS, got) or (
        "the ceiling is 2 / λ, λ the LARGEST eigenvalue of the Hessian (2/n)[[Σx², Σx], [Σx, n]]: the loss's "
        "steepest curvature"
    )
    expect_close(round(got[0], 3), 0.238, "the lesson's ceiling, to 3 places", atol=1e-12, hint=hint)
    for xs, one in zip(CEILING_INPUTS, got, strict=True):
        expect_close(one, ceiling(xs), f"max_stable_lr({xs})", rtol=1e-9, hint=hint)


# The lesson's learning-rate table: the loss of the 100th evaluation (after 99 updates).
LR_TABLE = {
    0.001: (3.9489413060227085, "3.95"),
    0.01: (0.00030003851144023747, "0.0003"),
    0.05: (2.471139388232938e-06, "0.0000025"),
    0.1: (5.1947521732175676e-09, "5e-9"),
    0.2: (1.2503968360186637e-14, "about 1e-14"),
    0.3: (2.5951540616999025e37, "2.6e37"),
}


@pytest.mark.parametrize("lr", list(LR_TABLE))
@graded(task="ceiling", points=1, hint="the loss of the 100th evaluation is fit_line(xs, ys, lr, 99)[-1]")
def test_learning_rate_table(lr):
    expected, printed = LR_TABLE[lr]
    loss = rows(XS, YS, lr, 99)[-1][1]
    expect_close(
        loss,
        expected,
        f"learning rate {lr}: the loss of the 100th evaluation (the lesson: {printed})",
        atol=0,
        rtol=1e-6,
    )


@graded(task="ceiling", points=3, hint="exercise 4: both rates lie just above the ceiling 0.23795")
def test_rates_0238_and_024_both_diverge():
    for lr, expected in ((0.238, 22.81826694057792), (0.24, 618.2860876137535)):
        got = rows(XS, YS, lr, 99)
        if got[-1][1] <= got[0][1]:
            fail(
                f"learning rate {lr} lies above the ceiling 0.23795: its loss should grow, "
                f"but went from {got[0][1]:.4g} to {got[-1][1]:.4g}"
            )
        expect_close(got[-1][1], expected, f"learning rate {lr}: the loss of the 100th evaluation", rtol=1e-6)


@graded(task="ceiling", points=2, hint="below the ceiling descent converges; above it every step overshoots more")
def test_the_ceiling_separates_convergence_from_divergence():
    limit = as_float(lab.max_stable_lr(list(XS)), "max_stable_lr(xs)")
    below = rows(XS, YS, 0.98 * limit, 300)[-1][1]
    above = rows(XS, YS, 1.02 * limit, 300)[-1][1]
    if not (below < 1e-6 and above > 1e6):
        fail(
            f"after 300 steps: at 0.98 x ceiling the loss should be tiny (got {below:.3g}), "
            f"at 1.02 x ceiling huge (got {above:.3g})"
        )

"""Lab ch06's tests: one file for every implementation.

The code under test comes from the seam (``IMPL=mine|ref|path``), never from an
import of a starter or a reference. Tests use only the handout's public API,
convert every returned value to an exact float or float64 array before comparing,
and take expected gradients from the kit's own checker (grader.testing), never from
the gradcheck the student can edit.

Run them with ``make lab CH=06`` (a table and a score) or ``IMPL=ref pytest labs/ch06/test_lab.py``.
"""

import numpy as np
import pytest

from grader import under_test
from grader.testing import (
    FORWARD_HINT,
    as_array,
    as_float,
    as_shape,
    beside,
    check_scalar_cases,
    check_scalar_gradients,
    check_tensor_cases,
    check_tensor_gradients,
    constant,
    expect_close,
    expect_scalar_gradients,
    expect_shape,
    expect_tensor_gradients,
    explained_errors,
    fail,
    given,
    graded,
    probe,
    raises,
    read_each,
    read_floats,
    recorded,
    searching,
    shape_of,
)
from grader.testing.graphs import (
    GRAPH_SETTINGS,
    SCALAR_GRAPH_SETTINGS,
    check_random_graphs,
    scalar_graphs,
    tensor_graphs,
)
from labs.ch06 import audits, loops
from labs.ch06.xor_mlp import train_xor

lab = under_test("ch06")

CHAIN = 20_000  # additions in the deep-graph test: far beyond the recursion limit
ACCUMULATE = "add each contribution with `+=`: a value used twice receives the sum of both uses"
UNBROADCAST = "sum the gradient of a broadcast operand over the axes it was stretched along (unbroadcast)"
# What a broadcasting case checks, in words that name no bug: its wrong values come from any rule.
STRETCHED = "an operand stretched by broadcasting gets its gradient summed back to its own shape"
REUSE = ACCUMULATE + "; if a test of one of these operations alone fails too, fix that rule first"


def rng(seed=0):
    return np.random.default_rng(seed)


def value_grads(*values, output=None):
    """Each input's .grad (after the output's .data, if given), as floats read together (read_floats)."""
    reads = [(v, "grad", f"input {i}'s .grad") for i, v in enumerate(values)]
    return read_floats([(output, "data", "f.data"), *reads] if output is not None else reads)


# ---------------------------------------------------------------------------
# Task 1: Value, the scalar engine
# ---------------------------------------------------------------------------


@graded(task="value", points=1, hint="Value.__init__ stores float(data) in .data and 0.0 in .grad")
def test_value_stores_float_data_and_zero_grad():
    for raw in (3, 2.5, -1):
        v = lab.Value(raw)
        data, grad = read_each([(v, "data"), (v, "grad")])
        expect_close(as_float(data(), f"Value({raw}).data"), float(raw), f"Value({raw}).data")
        expect_close(as_float(grad(), f"Value({raw}).grad"), 0.0, f"Value({raw}).grad before backward()")


@graded(task="value", points=2, hint="multiply each local derivative by the gradient arriving from above")
def test_value_hand_derived_gradients():
    # f = (a b + c)^2 at a = 2, b = -3, c = 10: u = -6, s = 4, f = 16.
    a, b, c = lab.Value(2.0), lab.Value(-3.0), lab.Value(10.0)
    f, u, s = worked_example(a, b, c)
    f.backward()
    expect_close(
        as_float(f.data, "f.data"), 16.0, "f = (a*b + c)**2 at a=2, b=-3, c=10: forward value", hint=FORWARD_HINT
    )
    expect_scalar_gradients(
        value_grads(a, b, c),
        [-24.0, 16.0, 8.0],
        "(df/da, df/db, df/dc) for f = (a*b + c)**2",
        worked_example,
        [2.0, -3.0, 10.0],
        output=f,
        probes=[u, s],  # their gradients tell a bug in backward() from a result outside the graph
        hint="multiply each local derivative by the gradient arriving from above",
    )


def worked_example(a, b, c):
    """The chapter's f = (a*b + c)**2, and its intermediates u = a*b and s = u + c."""
    u = a * b
    s = u + c
    return s**2, u, s


def with_far_entries(x: np.ndarray) -> np.ndarray:
    """``x`` with its last column's first two entries at 400 and -400 (an activation's saturated inputs)."""
    x = x.copy()
    x[0, -1], x[1, -1] = 400.0, -400.0
    return x


FAR_OUT = (
    "far from 0 an exponential overflows to inf: write sigmoid and tanh so that inf becomes 0 or 1 "
    "(1 / (1 + exp(-x)), np.tanh), not inf / inf, which is nan"
)
POW_AT_ZERO = (
    "the local derivative of x**k, k * x**(k - 1), is 0 at x = 0: written as k * out.data / x, it divides by zero there"
)
EXP_FAR = (
    "e**x is a float up to x = 709 (e**60 is about 1.1e26), where it would overflow: exp needs no clipping or "
    "clamping of x, which changes its value and its gradient far from 0"
)
LOG_NEAR_ZERO = (
    "the local derivative of log is exactly 1/x, near 0 too: an epsilon added in the rule, 1/(x + 1e-8), "
    "is a tenth off at x = 1e-7"
)
UNARY_CASES = {
    "exp": (lambda x: x.exp(), (0.7, 60.0)),  # far out too: e**60 is 1.1e26, which a float holds (a clip does not)
    "log": (lambda x: x.log(), 1.3),
    "tanh": (lambda x: x.tanh(), (-0.4, 400.0)),  # far out too: (e**2x - 1) / (e**2x + 1) overflows there
    "relu_positive": (lambda x: x.relu(), 0.5),  # below 1: a threshold at 1 instead of 0 shows
    "relu_negative": (lambda x: x.relu(), -0.8),
    "pow_3": (lambda x: x**3, (1.7, 0.0)),  # at 0 too: a rule written as k * out.data / x divides by zero
    "pow_negative": (lambda x: x**-1, 0.6),
    "pow_half": (lambda x: x**0.5, 2.0),
    "neg": (lambda x: -x, 1.2),
    "chain": (lambda x: (x * 2.0).exp().log().tanh(), 0.3),
}


@pytest.mark.parametrize("case", list(UNARY_CASES))
@graded(task="value", points=0.5, hint="each function's backward rule is its derivative times out.grad")
def test_value_unary_functions(case):
    f, points = UNARY_CASES[case]
    for at in points if isinstance(points, tuple) else (points,):
        hint = POW_AT_ZERO if at == 0 else FAR_OUT if abs(at) > 100 else EXP_FAR if case == "exp" and at > 1 else ""
        check_scalar_gradients(
            lab.Value, f, [at], f"Value {case} at {at:g}", hint=hint, error_hint=hint, forward_hint=hint
        )
    if case == "log":  # near 0, against 1/x itself (central differences of log are no oracle there)
        x = lab.Value(1e-7)
        x.log().backward()
        expect_close(as_float(x.grad, "x.grad"), 1e7, "d log(x)/dx at x = 1e-7", rtol=1e-9, hint=LOG_NEAR_ZERO)


REFLECTED = (
    "a reflected operator (__radd__, __rsub__, __rmul__, __rtruediv__) gets the number as `other`: "
    "2 - x is other - self"
)
BINARY_CASES = {  # id: (the expression, as the failure message shows it; the computation; what to look at)
    "add": ("a + b", lambda a, b: a + b, "d(a + b)/da = d(a + b)/db = 1"),
    "sub": ("a - b", lambda a, b: a - b, "d(a - b)/da = 1 and d(a - b)/db = -1"),
    "mul": ("a * b", lambda a, b: a * b, "d(a*b)/da = b and d(a*b)/db = a"),
    "div": ("a / b", lambda a, b: a / b, "d(a/b)/da = 1/b and d(a/b)/db = -a/b**2"),
    "number_plus": ("2.0 + a*b", lambda a, b: 2.0 + a * b, REFLECTED),
    "number_minus": ("2.0 - a*b", lambda a, b: 2.0 - a * b, REFLECTED),
    "number_times": ("3.0 * a + b", lambda a, b: 3.0 * a + b, REFLECTED),
    "number_over": ("2.0 / (a*b)", lambda a, b: 2.0 / (a * b), REFLECTED),
    "minus_number": ("a*b - 2.0", lambda a, b: a * b - 2.0, "a number on the right is wrapped as a constant Value"),
    "over_number": ("a*b / 4.0", lambda a, b: a * b / 4.0, "a number on the right is wrapped as a constant Value"),
}


@pytest.mark.parametrize("case", list(BINARY_CASES))
@graded(
    task="value",
    points=0.5,
    hint="the case names the operation under test; a number on the left reaches its reflected operator as `other`",
)
def test_value_arithmetic_and_reflected_operators(case):
    text, f, hint = BINARY_CASES[case]
    check_scalar_gradients(lab.Value, f, [1.5, -0.7], f"Value {case}: f(a, b) = {text} at a = 1.5, b = -0.7", hint=hint)


@graded(task="value", points=2, hint=ACCUMULATE)
def test_value_used_twice_gets_both_contributions():
    x = lab.Value(3.0)
    y = x * x + x
    y.backward()
    got = as_float(x.grad, "x.grad")
    expect_scalar_gradients(
        got,
        7.0,
        "y = x*x + x at x = 3: dy/dx",
        lambda x: x * x + x,
        [3.0],
        output=y,
        hint=ACCUMULATE,
        atol=0,
        rtol=0,
    )
    # The same leaf in every operand position: a rule that assigns instead of adding loses a contribution.
    cases = []
    for name, f in REUSE_CASES.items():
        cases.append((f, [1.5], f"Value {name}", REUSE))
        # + x on top: x already holds a contribution when each rule of f runs, which an assignment (=) loses
        cases.append((lambda x, f=f: f(x) + x, [1.5], f"Value ({name}) + x", REUSE))
    # x as the right operand of -, holding the top + x's contribution when -'s rule runs
    cases.append((lambda x: x * x - x + x, [1.5], "Value x*x - x + x", REUSE))
    check_scalar_cases(lab.Value, cases)  # (f, inputs, what, hint): checked as check_scalar_gradients does


REUSE_CASES = {
    "x + x*x": lambda x: x + x * x,
    "(x + 1) * x": lambda x: (x + 1.0) * x,
    "x * (x - 1)": lambda x: x * (x - 1.0),
    "(x / 2) * x / x": lambda x: (x / 2.0) * x / x,
    "x.exp() * x.tanh() + x.log()": lambda x: x.exp() * x.tanh() + x.log(),
    "x.relu() * x ** 2": lambda x: x.relu() * x**2,
}


DIAMONDS = [  # f of u = 3a, and df/da at a = 2
    ("u*u + u", lambda u: u * u + u, 39.0),
    ("u + u*u", lambda u: u + u * u, 39.0),
    ("u*2 + u*u", lambda u: u * 2.0 + u * u, 42.0),
    ("u*u + u*2", lambda u: u * u + u * 2.0, 42.0),
]


@graded(
    task="value",
    points=2,
    hint="run backward steps in reverse topological order, each node once; every rule adds (+=) into .grad",
)
def test_value_diamond_needs_topological_order():
    # u = 3a feeds both the multiply and the addition of f = u*u + u: du = 2u + 1 = 13, da = 39.
    # Both operand orders: a breadth-first walk from f happens to work for one of them only.
    # And u used twice by one operation and once by another (f = 2u + u*u: du = 2 + 2u = 14, da = 42): a
    # sort that counts u's users once and counts down once per use releases u early, in one order or the other.
    seen = []  # the first order's result, evidence for the diagnosis of the second
    for name, build, expected in DIAMONDS:
        a = lab.Value(2.0)
        u = a * 3.0
        f = build(u)
        f.backward()
        got = as_float(a.grad, "a.grad")
        computation = lambda a, build=build: build(a * 3.0)  # noqa: E731
        expect_scalar_gradients(
            got,
            expected,
            f"f = {name} with u = 3a at a = 2: df/da",
            computation,
            [2.0],
            output=f,
            hint="u's step must run once, after every operation using u has added into u.grad "
            "(reverse topological order)",
            also=seen,
            atol=0,
            rtol=0,
        )
        seen.append((computation, [2.0], [got]))


@graded(task="value", points=1, hint="accept only int or float exponents; anything else raises TypeError")
def test_value_pow_rejects_a_variable_exponent():
    base, exponent = lab.Value(2.0), lab.Value(3.0)  # outside: only ** may raise the TypeError
    with raises(TypeError, "Value(2.0) ** Value(3.0)"):
        base**exponent  # noqa: B018 - the operation is the test
    # "anything else" than an int or a float: an array too, not only a Value
    with raises(TypeError, "Value(2.0) ** np.array(3.0)"):
        base ** given(np.array(3.0))  # noqa: B018 - the operation is the test


@graded(
    task="value",
    points=1,
    hint="the local derivative of relu is 0 where the input is <= 0, at 0 too: pass the gradient only where it is > 0",
)
def test_value_relu_gradient_is_zero_at_zero():
    x = lab.Value(0.0)
    y = x.relu()
    y.backward()
    expect_close(as_float(y.data, "relu(0).data"), 0.0, "relu(0)")
    expect_close(as_float(x.grad, "x.grad"), 0.0, "d relu(x)/dx at x = 0")


@graded(
    task="value",
    points=2,
    hint="leaves accumulate across backward() calls (every rule adds with +=); intermediates start from zero each call",
)
def test_value_second_backward_accumulates_leaves_only():
    x = lab.Value(3.0)
    y = x * x + x
    y.backward()
    y.backward()
    expect_scalar_gradients(
        as_float(x.grad, "x.grad"),
        14.0,
        "two calls of y.backward() for y = x*x + x at 3: x.grad (2 * 7)",
        lambda x: x * x + x,
        [3.0],
        output=y,
        calls=2,
        hint="leaves accumulate across backward() calls; intermediates are set to zero at the start of each call",
        atol=0,
        rtol=0,
    )
    x.backward()  # a leaf as the output: d(x)/d(x) = 1 is added to what x.grad holds
    expect_close(
        as_float(x.grad, "x.grad"),
        15.0,
        "x.backward() after the two calls: x.grad (14 + 1)",
        hint="backward() adds 1 into the output's own .grad with `+=`, not `=`: the output may be a leaf",
    )


# Random graphs (Hypothesis, from a fixed seed): shared nodes, numbers on the left, every function.
# A failure shows the smallest graph found, as an expression with its inputs.
@graded(task="value", points=1, hint="check each operation alone first; " + ACCUMULATE)
@searching
def test_value_random_graphs():
    check_random_graphs(
        lab.Value, scalar_graphs(), SCALAR_GRAPH_SETTINGS, hint="check each operation alone first; " + ACCUMULATE
    )


# ---------------------------------------------------------------------------
# Task 2: Tensor, the array engine
# ---------------------------------------------------------------------------


@graded(task="tensor", points=2, hint="Tensor.__init__: data = np.array(data, dtype=np.float64), grad = zeros")
def test_tensor_construction():
    cases = (([[1, 2, 3], [4, 5, 6]], (2, 3)), (3, ()), (np.arange(4.0), (4,)))
    # What to expect, before the code under test is handed raw: a copy of it, which it may keep and change.
    tensors = [lab.Tensor(raw if type(raw) is int else given(raw)) for raw, _ in cases]
    # Behind the wall, one round trip for the three.
    reads = iter(read_each([(t, name) for t in tensors for name in ("data", "grad", "shape", "ndim")]))
    for raw, shape in cases:
        made, expected = f"Tensor({raw!r})", np.array(raw, dtype=np.float64)
        data = as_array(next(reads)(), f"{made}.data")
        grad = as_array(next(reads)(), f"{made}.grad")
        got_shape, got_ndim = next(reads)(), next(reads)()
        expect_close(data, expected, f"{made}.data")
        expect_close(grad, np.zeros(shape), f"{made}.grad before backward()")
        if tuple(got_shape) != shape or got_ndim != len(shape):
            fail(f"{made}: expected shape {shape} and ndim {len(shape)}, got {got_shape} and {got_ndim}")
    kept = as_array(beside(loops.data_after_the_caller_changes_it, lab.Tensor), "Tensor(a).data")
    expect_close(
        kept,
        [1.0, 2.0, 3.0],
        "Tensor(a).data with a = [1, 2, 3], after the caller adds 10 to a in place",
        hint="Tensor(data) keeps a copy (np.array, not np.asarray): a tensor that is an alias of the caller's "
        "array changes when the caller changes it",
    )


@graded(task="tensor", points=1, hint="backward(grad) starts from the grad it is given: here x.grad = 2 * grad")
def test_backward_with_explicit_seed():
    # The simplest graph first, before the gradient checks: one multiply by a number, a seed.
    with explained_errors(lambda x: x * 2.0, [[1.0, 2.0, 3.0]]):
        x = lab.Tensor(given([1.0, 2.0, 3.0]))
        y = x * 2.0
        y.backward(given(np.array([1.0, 0.0, -1.0])))
        got = as_array(x.grad, "x.grad")
        expect_tensor_gradients(
            got,
            [2.0, 0.0, -2.0],
            "x.grad after (x * 2).backward([1, 0, -1])",
            lambda x: x * 2.0,
            [[1.0, 2.0, 3.0]],
            output=y,
            seed=[1.0, 0.0, -1.0],
            hint="backward(grad) starts from the grad it is given: here x.grad = 2 * grad",
            also=[] if np.allclose(got, [2.0, 0.0, -2.0]) else product_of_two_tensors(),
        )
    # A single-element output given a seed starts from that seed too, not from 1.
    x = lab.Tensor(given([2.0]))
    (x * 2.0).backward(given(np.array([3.0])))
    expect_close(
        as_array(x.grad, "x.grad"),
        [6.0],
        "x.grad after (x * 2).backward([3]) with x = [2]",
        hint="backward(grad) uses the seed it is given whatever the output's size: a single-element output "
        "starts from 1 only when no grad is given",
    )


def product_of_two_tensors() -> list:
    """x * x, both operands tensors, as a diagnosis's evidence (``also``), or none if it cannot be read: a
    requires_grad test of the wrong operand passes x nothing in x * 2.0 alone, a product outside the graph
    or a seed set too late pass nothing in both (and x * x gives a rule its own value and the other's alike)."""

    def gradient():
        x = lab.Tensor(given([1.0, 2.0, 3.0]))
        (x * x).backward(given(np.ones(3)))
        return as_array(read_each([(x, "grad")])[0](), "a gradient")

    got = probe(gradient)
    return [] if got is None else [(lambda x: x * x, [[1.0, 2.0, 3.0]], [got])]


def weighted(out, seed=7):
    """out * fixed weights, summed: a scalar whose gradient differs entry by entry, so wrong axes show."""
    # shape_of: inside a check that reads everything at once, the oracle's shape (the code's is read with the rest)
    weights = constant(np.random.default_rng(seed).normal(size=as_shape(shape_of(out), "the result's .shape")))
    return (out * weights).sum()


def positive(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, size=shape)


def normal(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


# The chapter's eighteen gradient checks, each on shapes that expose a wrong axis or a missing transpose.
# Each operation is checked alone before a case combines it with others (** before /, which is
# built from it; the unary functions before the numbers-on-the-left case), so that the first
# failure names the operation whose rule is wrong.
GRADCHECK_CASES = {
    "add_bias_broadcast": (
        lambda a, b: weighted(a + b),
        [normal(3, 4), normal(4, seed=1)],
        f"d(a + b)/da = d(a + b)/db = 1; {STRETCHED}",
    ),
    "sub_column_row": (
        lambda a, b: weighted(a - b),
        [normal(3, 1), normal(1, 4, seed=1)],
        f"d(a - b)/db = -1; {STRETCHED}",
    ),
    "mul_column_row": (
        lambda a, b: weighted(a * b),
        [normal(3, 1), normal(1, 4, seed=1)],
        f"d(a*b)/da = b and d(a*b)/db = a; {STRETCHED}",
    ),
    # negative bases too: a rule or a forward written with abs(x) is right only where x > 0
    "pow": (
        lambda a, b: weighted(a**3 + a**-0.5) + weighted(b**2 + b**3, seed=8),
        [positive(2, 3), normal(2, 3, seed=1)],
        "d(x**k)/dx = k * x**(k-1)",
    ),
    "div_broadcast": (
        lambda a, b: weighted(a / b),
        [normal(2, 3), positive(3, seed=1)],
        f"d(a/b)/db = -a / b**2; {STRETCHED}",
    ),
    "exp": (lambda a: weighted(a.exp()), [normal(2, 3)], "d exp(x)/dx = exp(x)"),
    "log": (lambda a: weighted(a.log()), [positive(2, 3)], "d log(x)/dx = 1/x"),
    # two entries far out, where (e**2x - 1) / (e**2x + 1) is inf / inf: tanh is ±1 there, its gradient 0
    "tanh": (lambda a: weighted(a.tanh()), [with_far_entries(normal(2, 3))], "d tanh(x)/dx = 1 - tanh(x)**2"),
    "relu": (  # x > 0 under a positive weight and under a negative one: a rule that compares grad * x with 0 shows
        lambda a: weighted(a.relu()),
        [np.array([[-1.5, 0.3], [0.4, -2.0]])],
        "relu passes the gradient where x > 0 and blocks it elsewhere",
    ),
    "neg_and_numbers": (
        lambda a: weighted(2.0 - 3.0 * (-a) / 4.0 + 1.0 / (1.0 + a * a)),
        [normal(2, 3)],
        "2.0 - t, 3.0 * t and 1.0 / t use __rsub__, __rmul__ and __rtruediv__, which get the "
        "number as `other`: 2.0 - t is other - self",
    ),
    "matmul": (
        lambda a, b: weighted(a @ b),
        [normal(2, 3), normal(3, 4, seed=1)],
        "for C = A @ B: dA = dC @ B^T and dB = A^T @ dC",
    ),
    "batched_matmul_shared_weight": (
        lambda x, w: weighted(x @ w),
        [normal(2, 5, 3), normal(3, 4, seed=1)],
        "swap the last two axes for the transpose, and sum the shared weight's gradient over the batch axis",
    ),
    # Both axes without keepdims and one with: a gradient not put back (axis 1), put back on the wrong
    # axis (np.expand_dims(g, -1): axis 0) or put back when keepdims kept it each fails here.
    "sum_axis": (
        lambda a: (
            weighted(a.sum(axis=0)) + weighted(a.sum(axis=1), seed=8) + weighted(a.sum(axis=0, keepdims=True), seed=9)
        ),
        [normal(3, 4)],
        "put the summed axis back (size 1) before broadcasting the gradient",
    ),
    "sum_tuple_and_negative_axes": (
        lambda a: weighted(a.sum(axis=(0, -1))) + weighted(a.sum(axis=-1), seed=8),  # a negative axis in a tuple too
        [normal(2, 3, 4)],
        "normalise negative and tuple axes before expanding them",
    ),
    # Not only leading axes: a gradient broadcast without the averaged axes put back fails here.
    "mean_over_two_axes": (
        lambda a: weighted(a.mean(axis=(0, -1))) + a.mean() * 3.0,  # and over every axis: N is all 24 entries
        [normal(2, 3, 4)],
        "a mean over N entries is the sum times 1/N",
    ),
    "reshape": (
        lambda a: weighted(a.reshape(3, 4) @ a.reshape((4, 3))),
        [normal(2, 6)],
        "reshape's backward reshapes the gradient back to the input's shape",
    ),
    "transpose": (
        lambda a: weighted(a.transpose()) + weighted(a.transpose(0, 2), seed=8),
        [normal(2, 3, 4)],
        "transpose(axis1, axis2) swaps exactly two axes (not .T, which reverses them all)",
    ),
    "two_layer_tanh_network": (
        lambda x, w1, b1, w2: (((x @ w1 + b1).tanh() @ w2) ** 2).mean(),
        [normal(5, 3), normal(3, 4, seed=1), normal(4, seed=2), normal(4, 2, seed=3)],
        "check each operation alone first: the cases above isolate them",
    ),
}


@pytest.mark.parametrize("case", list(GRADCHECK_CASES))
@graded(
    task="tensor",
    points=1.5,
    hint="the case names the operation under test; an error about shapes means a gradient that was not "
    "brought back to its input's shape (unbroadcast, expand_dims, swapping the last two axes)",
)
def test_tensor_gradcheck(case):
    f, inputs, hint = GRADCHECK_CASES[case]
    check_tensor_gradients(
        lab.Tensor,
        f,
        inputs,
        f"Tensor {case}",
        hint=hint,
        # The forward's own words: the case's hint is about its gradient (a wrong sum over axis=0 was told to
        # put the summed axis back before broadcasting the gradient: a review)
        forward_hint=f"the forward computation of {case} is wrong; fix it before looking at gradients",
    )
    if case == "matmul":  # each operand used by two products: a rule that assigns (=) keeps one's contribution
        check_tensor_gradients(
            lab.Tensor, lambda a, b: weighted(a @ b + (a * 2.0) @ b), inputs, "Tensor a @ b + (2a) @ b", hint=REUSE
        )
    if case == "exp":  # far from 0 too, where a clipped or clamped exponent shows
        check_tensor_gradients(
            lab.Tensor,
            lambda a: a.exp().sum(),
            [[60.0, -60.0]],
            "Tensor exp at [60, -60]",
            hint=EXP_FAR,
            forward_hint=EXP_FAR,
        )
    if case == "pow":  # a constant exponent only, as Value's: a Tensor exponent taken apart gets no gradient
        base, exponent = lab.Tensor(given([2.0, 3.0])), lab.Tensor(2.0)
        with raises(
            TypeError,
            "Tensor([2, 3]) ** Tensor(2.0)",
            "Tensor ** k takes a constant int or float k: a Tensor exponent raises TypeError (unwrapped to its "
            "data, it would silently get no gradient)",
        ):
            base**exponent  # noqa: B018 - the operation is the test
    if case == "log":  # near 0, against 1/x itself (central differences of log are no oracle there)
        x = lab.Tensor([1e-7, 0.5])
        x.log().sum().backward()
        expect_close(
            as_array(x.grad, "x.grad"), [1e7, 2.0], "d log(x)/dx at x = [1e-7, 0.5]", rtol=1e-9, hint=LOG_NEAR_ZERO
        )


@pytest.mark.parametrize("case", list(REUSE_CASES))
@graded(task="tensor", points=0.5, hint=REUSE)
def test_tensor_used_twice_gets_all_contributions(case):
    data = positive(2, 3) if "log" in case else normal(2, 3)
    f = REUSE_CASES[case]
    on_top = "f(x) alone was right, f(x) + x is not: an operation of f changed x's data in place"
    check_tensor_cases(  # behind the wall, one round trip for both when both pass
        lab.Tensor,
        [
            (lambda t: weighted(f(t)), [data], f"Tensor {case}", REUSE),
            # + x on top: x already holds a contribution when each rule of f runs, which an assignment (=) loses
            (lambda t: weighted(f(t) + t), [data], f"Tensor ({case}) + x", REUSE, on_top),
            # x as the right operand of -, holding the top + x's contribution when -'s rule runs (once: its case)
            *([(lambda t: weighted(t * t - t + t), [data], "Tensor x*x - x + x", REUSE)] if "-" in case else []),
        ],
    )


@graded(task="tensor", points=1, hint=UNBROADCAST + ": first the extra leading axes, then the stretched size-1 ones")
def test_broadcast_gradients_have_operand_shapes():
    a = lab.Tensor(given(normal(3, 1)))
    b = lab.Tensor(given(normal(1, 4, seed=1)))
    (a * b).sum().backward()
    grad_a, grad_b = as_array(a.grad, "a.grad"), as_array(b.grad, "b.grad")
    expect_shape(grad_a.shape, (3, 1), "(3, 1) * (1, 4): the (3, 1) operand's gradient", UNBROADCAST)
    expect_shape(grad_b.shape, (1, 4), "(3, 1) * (1, 4): the (1, 4) operand's gradient", UNBROADCAST)
    expect_close(grad_a, np.full((3, 1), normal(1, 4, seed=1).sum()), "(3, 1) operand's gradient", atol=1e-12)
    expect_close(grad_b, np.full((1, 4), normal(3, 1).sum()), "(1, 4) operand's gradient", atol=1e-12)
    # A 0-d operand against a vector: its gradient is the sum of the vector's, with shape ()
    check_tensor_gradients(
        lab.Tensor,
        lambda s, v: weighted(s * v),
        [np.array(2.0), normal(3, seed=1)],
        "Tensor () * (3,)",
        hint="a 0-d operand is broadcast to the other's shape too: its gradient is summed back to shape ()",
    )
    # (3, 1) against (2, 3, 4): pad to (1, 3, 1) on the left, then sum axes 0 and 2.
    check_tensor_gradients(
        lab.Tensor,
        lambda a, b: weighted(a * b),
        [normal(2, 3, 4), normal(3, 1, seed=1)],
        "Tensor (2, 3, 4) * (3, 1)",
        hint="broadcasting pads the shorter shape with size-1 axes on the LEFT: drop the extra leading axes "
        "before comparing the remaining axes with the operand's shape",
    )


@graded(
    task="tensor",
    points=2,
    hint="np.matmul broadcasts leading axes: transpose with np.swapaxes(x, -1, -2) (.T reverses every axis) "
    "and unbroadcast both gradients",
)
def test_matmul_broadcasts_leading_axes():
    check_tensor_gradients(
        lab.Tensor,
        lambda a, b: weighted(a @ b),
        [normal(2, 1, 3, 4), normal(5, 4, 2, seed=1)],
        "Tensor (2, 1, 3, 4) @ (5, 4, 2)",
        hint="the transpose is a swap of the last two axes; " + UNBROADCAST,
    )
    check_tensor_gradients(
        lab.Tensor,
        lambda a, b: weighted(a @ b + a),
        [normal(3, 3), normal(3, 3, seed=1)],
        "Tensor a @ b + a, (3, 3) each: a gets 1 from + before @'s rule runs",
        hint="@'s rule adds into a.grad and b.grad with `+=`, not `=`: a also gets a contribution from the + node",
    )


@graded(task="tensor", points=1, hint="check ndim < 2 on either operand and raise ValueError")
def test_matmul_rejects_operands_with_fewer_than_two_axes():
    m, v = lab.Tensor(given(normal(2, 3))), lab.Tensor(given(normal(3)))
    with raises(ValueError, "Tensor (2, 3) @ Tensor (3,)"):
        m @ v
    with raises(ValueError, "Tensor (3,) @ Tensor (3, 2)"):
        v @ lab.Tensor(given(normal(3, 2)))


@graded(task="tensor", points=1, hint="without a seed, backward() needs a single-element tensor")
def test_backward_without_seed_needs_a_single_element():
    x = lab.Tensor(given(normal(3)))
    y = x * 2.0
    with raises(ValueError, "backward() on a (3,) output without a gradient"):
        y.backward()


@graded(
    task="tensor",
    points=2,
    hint="leaves accumulate across backward() calls (every rule adds with +=); intermediates start from zero each call",
)
def test_backward_accumulates_on_leaves_only():
    data = normal(2, 3)
    x = lab.Tensor(given(data))  # a copy: data stays the test's, for the expected gradient
    y = (x * x).sum()
    y.backward()
    y.backward()
    expect_tensor_gradients(
        as_array(x.grad, "x.grad"),
        2 * (2 * data),
        "x.grad after two calls of y.backward() for y = (x * x).sum() (2 * 2x)",
        lambda x: (x * x).sum(),
        [data],
        output=y,
        calls=2,
        hint="leaves accumulate across backward() calls; intermediates are set to zero at the start of each call",
    )
    # The edge of accumulation: the output is the leaf itself. backward(grad) adds grad to what x.grad
    # holds, and keeps no reference to the caller's array (a later pass must not write into it).
    x = lab.Tensor([1.0, 2.0, 3.0])
    y = x * 2.0
    y.backward(given(np.array([1.0, 0.0, -1.0])))
    seed = np.array([1.0, 0.0, -1.0])
    x.backward(seed)  # not given: the test reads it again below
    y.backward(given(np.array([1.0, 0.0, -1.0])))
    expect_close(
        as_array(x.grad, "x.grad"),
        [5.0, 0.0, -5.0],
        "x.grad after (x * 2).backward(g), x.backward(g), (x * 2).backward(g) with g = [1, 0, -1]: 2g + g + 2g",
        hint="backward(grad) adds grad to the output's own .grad, a leaf output too: `+=`, not `=` "
        "(self.grad = self.grad + grad; keeping the array passed in would share it)",
    )
    expect_close(seed, [1.0, 0.0, -1.0], "the array passed to x.backward(g), after a later backward pass")


@graded(
    task="tensor",
    points=2,
    hint="run backward steps in reverse topological order, each node exactly once; every rule adds (+=) into .grad",
)
def test_backward_diamond_needs_topological_order():
    # u = 3a feeds both the multiply and the addition; a breadth-first walk from the output
    # happens to work for one operand order only, so both are checked (and u used twice by one
    # operation, as the Value test says).
    data = normal(2, 2)
    seen = []  # the first order's result, evidence for the diagnosis of the second
    for name, build, _ in DIAMONDS:
        computation = lambda a, build=build: build(a * 3.0).sum()  # noqa: E731
        grads = check_tensor_gradients(
            lab.Tensor,
            computation,
            [data],
            f"diamond f = ({name}).sum() with u = 3a",
            hint="u must run once, after every operation using u has added (+=) into u.grad: "
            "reverse topological order (a breadth-first walk from the output is not one)",
            also=seen,
        )
        seen.append((computation, [data], grads))


@graded(
    task="tensor", points=2, hint="sort the graph with an explicit stack, not recursion (the recursion limit is 1000)"
)
def test_deep_graph_does_not_recurse():
    answer = beside(loops.chain_of_additions, lab.Tensor, CHAIN)
    if not (isinstance(answer, tuple) and len(answer) == 3):
        fail("the chain's loop did not return (x, x.grad, nodes) (the code under test interfered with it)")
    x, grad, nodes = answer
    try:
        got = as_array(grad, "x.grad")
        if got.shape != () or float(got) != 1.0:
            fail(f"a chain of {CHAIN:,} additions: expected x.grad exactly 1.0, got {got!r}")
        audits.audit_chain(x, nodes, CHAIN)
    finally:
        nodes.release()


@graded(
    task="tensor",
    points=1,
    hint="the local derivative of relu is 0 where the input is <= 0, at 0 too: pass the gradient only where it is > 0",
)
def test_tensor_relu_gradient_is_zero_at_zero():
    x = lab.Tensor(given([-1.0, 0.0, 2.0]))
    y = x.relu()
    y.sum().backward()
    expect_close(as_array(y.data, "relu(x).data"), [0.0, 0.0, 2.0], "relu(x) at x = [-1, 0, 2]")
    expect_close(as_array(x.grad, "x.grad"), [0.0, 0.0, 1.0], "d relu(x).sum()/dx at x = [-1, 0, 2]")
    expect_close(
        as_array(x.data, "x.data"),
        [-1.0, 0.0, 2.0],
        "x.data after x.relu()",
        hint="relu returns a new Tensor: it must not change its input (no in-place writes to self.data)",
    )


@graded(
    task="tensor",
    points=1,
    hint="each case names the operation and the shape it must give",
)
def test_shape_operations_forward():
    data = normal(2, 3, 4)
    t = lab.Tensor(given(data))
    reshape = "reshape(*shape) also accepts one tuple, reshape((6, 4))"
    transpose = "transpose(axis1=-2, axis2=-1) swaps two axes only, by default the last two"
    keepdims = "with keepdims=True the summed axes stay, with size 1, also when no axis is given (all of them)"
    mean = "mean divides the sum by the number of entries it averages (a wrong factor: len(data) counts one axis)"
    summed = "sum adds the entries along the axes it is given (every axis when none is given)"
    results = []
    # (the call, the expected result, the hint for a wrong shape, the hint for wrong numbers of the right shape)
    for text, expr, expected, hint, value_hint in (
        ("reshape(4, 6)", lambda: t.reshape(4, 6), data.reshape(4, 6), reshape, reshape),
        ("reshape((6, 4))", lambda: t.reshape((6, 4)), data.reshape(6, 4), reshape, reshape),
        ("transpose()", lambda: t.transpose(), data.swapaxes(1, 2), transpose, transpose),
        ("transpose(0, 1)", lambda: t.transpose(0, 1), data.swapaxes(0, 1), transpose, transpose),
        (
            "sum(axis=-1, keepdims=True)",
            lambda: t.sum(axis=-1, keepdims=True),
            data.sum(-1, keepdims=True),
            keepdims,
            summed,
        ),
        ("sum(keepdims=True)", lambda: t.sum(keepdims=True), data.sum(keepdims=True), keepdims, summed),
        ("mean(axis=(0, 2))", lambda: t.mean(axis=(0, 2)), data.mean((0, 2)), "mean(axis=(0, 2)) averages both", mean),
        (
            "mean(axis=1, keepdims=True)",
            lambda: t.mean(axis=1, keepdims=True),
            data.mean(1, keepdims=True),
            keepdims,
            mean,
        ),
        ("mean(keepdims=True)", lambda: t.mean(keepdims=True), data.mean(keepdims=True), keepdims, mean),
        ("mean()", lambda: t.mean(), data.mean(), mean, mean),
    ):
        results.append((f"t.{text} on a (2, 3, 4) tensor", expr(), expected, hint, value_hint))
    reads = read_each([(result, "data") for _, result, _, _, _ in results])  # behind the wall, one round trip
    for (what, _, expected, hint, value_hint), read in zip(results, reads, strict=True):
        got = as_array(read(), f"{what}: the result's .data")
        expect_shape(got.shape, expected.shape, what, hint)
        expect_close(got, expected, what, hint=value_hint)


# Random graphs (Hypothesis, from a fixed seed): broadcasting, reductions, reshapes, transposes, matmul and
# shared nodes together. A failure shows the smallest graph found, as an expression with its inputs.
@graded(task="tensor", points=1, hint="the gradcheck cases above test each operation alone: fix those first; " + REUSE)
@searching
def test_tensor_random_graphs():
    check_random_graphs(
        lab.Tensor,
        tensor_graphs(),
        GRAPH_SETTINGS,
        hint="the gradcheck cases above test each operation alone: fix those first; " + REUSE,
    )


# ---------------------------------------------------------------------------
# Task 3: gradient checking with your engine (gradcheck itself is provided)
# ---------------------------------------------------------------------------


@graded(
    task="gradcheck",
    points=1,
    hint="gradcheck is provided: if it rejects this correct function, one of your Tensor's rules for *, tanh, + "
    "or sum (or backward()) is wrong; the Tensor tests isolate each one",
)
def test_gradcheck_accepts_correct_gradients():
    def f(a, b):
        return ((a * b).tanh() + a).sum()

    inputs = [normal(2, 3), normal(2, 3, seed=1)]
    check_tensor_gradients(lab.Tensor, f, inputs, "((a * b).tanh() + a).sum()")  # the engine is right...
    # ...and gradcheck agrees (recorded(f) is f; behind the wall it runs next to your code, not called back)
    lab.gradcheck(recorded(f), inputs)


@graded(task="gradcheck", points=1, hint="gradcheck must raise GradcheckError (an AssertionError) on a wrong rule")
def test_gradcheck_rejects_a_noop_backward_rule():
    # Tensor(a.data * 3.0) computes the right forward value but passes no gradient back to a.
    if not issubclass(lab.GradcheckError, AssertionError):
        fail("GradcheckError must subclass AssertionError")
    with raises(lab.GradcheckError, "gradcheck on a function whose backward passes nothing"):
        beside(loops.gradcheck_detached, lab.gradcheck, lab.Tensor, normal(2, 2), "triple")
    audits.audit_gradcheck_ran(lab.Tensor, (2, 2), loops.DETACHED["triple"])


@graded(task="gradcheck", points=1, hint="gradcheck needs f to return a single-element Tensor")
def test_gradcheck_rejects_a_multi_element_output():
    x = normal(2, 2)
    # f's own work first, outside gradcheck: a ValueError of the engine (a Tensor that cannot be made, a
    # product it refuses) is then this test's failure, never taken for gradcheck's refusal of f's output.
    as_array((lab.Tensor(given(x)) * 2.0).data, "(Tensor(x) * 2.0).data")
    with raises(ValueError, "gradcheck on a function returning a (2, 2) tensor"):
        lab.gradcheck(lambda a: a * 2.0, [x])


@graded(task="gradcheck", points=1, hint="gradcheck must not change the caller's arrays: it works on private copies")
def test_gradcheck_leaves_inputs_untouched():
    x = normal(2, 3)
    kept = x.copy()
    # f = sum(a * a), counting its calls; a GradcheckError (a wrong rule) is the other tests' business
    calls = beside(loops.gradcheck_counting_calls, lab.gradcheck, x)
    if type(calls) is not int or calls < 1 + 2 * x.size:
        fail(f"gradcheck called f {calls!r} times; checking a (2, 3) input takes 1 + 2 * 6 calls")
    expect_close(x, kept, "the array passed to gradcheck", atol=0, rtol=0)
    audits.audit_gradcheck_ran(lab.Tensor, x.shape)


@graded(task="gradcheck", points=1, hint="numerical_grad is provided; f must return a float")
def test_numerical_grad_agrees_with_your_engine():
    x = normal(2, 3)
    # f(v) = float(sum(Tensor(v) ** 2).data), run next to your code
    got = as_array(
        beside(loops.numerical_grad_of_squares, lab.numerical_grad, lab.Tensor, given(x)), "numerical_grad's result"
    )
    expect_close(got, 2 * x, "numerical_grad of sum(x**2)", atol=1e-6, rtol=1e-6)
    audits.audit_numerical_grad(lab.Tensor, x, got)


# ---------------------------------------------------------------------------
# Task 4: the chapter's exercises
# ---------------------------------------------------------------------------


@graded(task="exercises", points=2, hint="tanh's derivative is 1 - tanh**2, times the gradient from above")
def test_exercise_a_tanh_neuron():
    a, b, c = lab.Value(2.0), lab.Value(-1.0), lab.Value(1.5)
    f = (a * b + c).tanh()
    f.backward()
    got = value_grads(a, b, c, output=f)
    printed = ["-0.4621", "-0.7864", "1.5729", "0.7864"]  # the chapter's figures, 4 decimals
    shown = [f"{g:.4f}" for g in got]
    if shown[0] != printed[0]:  # f itself: its gradients cannot be right either, and are not the bug to look for
        fail(f"f = tanh(a*b + c) at (2, -1, 1.5): forward value: expected {printed[0]}, got {shown[0]}", FORWARD_HINT)
    if shown != printed:
        fail(f"f = tanh(a*b + c) at (2, -1, 1.5): expected f, df/da, df/db, df/dc = {printed}, got {shown}")


@graded(task="exercises", points=2, hint="exercise (b): d(a/b)/da = 1/b and d(a/b)/db = -a/b**2")
def test_exercise_b_division():
    a_data, b_data = normal(2, 3), positive(2, 3, seed=1)
    a, b = lab.Tensor(given(a_data)), lab.Tensor(given(b_data))
    (a / b).sum().backward()
    a_grad, b_grad = read_each([(a, "grad"), (b, "grad")])
    expect_close(as_array(a_grad(), "a.grad"), 1 / b_data, "d(a/b)/da", rtol=1e-9)
    expect_close(as_array(b_grad(), "b.grad"), -a_data / b_data**2, "d(a/b)/db", rtol=1e-9)
    # `other` may be a numpy array, of ints too: numpy refuses ints to a negative power (an int array ** -1)
    int_divisor = (
        "other may be an int array: numpy refuses ints to a negative power (x ** -1 of an int array, the wrong "
        "type for it), so make other float first, np.asarray(other, dtype=np.float64)"
    )
    with explained_errors(lambda c: c / np.array([2, 4, 5]), [a_data], int_divisor):
        c = lab.Tensor(given(a_data))
        (c / given(np.array([2, 4, 5]))).sum().backward()
        expect_close(
            as_array(c.grad, "c.grad"),
            np.broadcast_to(1 / np.array([2.0, 4.0, 5.0]), (2, 3)),
            "d(c / other)/dc, other an int array [2, 4, 5]",
            rtol=1e-9,
            hint=int_divisor,
        )


@pytest.mark.parametrize("shape", [(3, 4), (4, 4)], ids=["3x4", "4x4_square"])
@graded(
    task="exercises",
    points=1.5,
    hint="exercise (d): without np.expand_dims the (n,) gradient broadcasts along the wrong axis; "
    "a square input hides the shape error but not the wrong values",
)
def test_exercise_d_sum_backward_restores_the_axis(shape):
    x = lab.Tensor(given(normal(*shape)))
    s = x.sum(axis=1)
    seed = np.arange(1.0, shape[0] + 1)  # a different upstream gradient for each row
    s.backward(given(seed))
    expected = np.repeat(seed[:, None], shape[1], axis=1)  # row i's gradient copied across row i
    expect_close(as_array(x.grad, "x.grad"), expected, f"x.grad for x.sum(axis=1) on a {shape} input, seeded 1..n")


@pytest.mark.parametrize("scale", [1.0, 4.0], ids=["unit", "scaled_by_4"])
@graded(task="exercises", points=1.5, hint="exercise (e): d sigmoid(x)/dx = s * (1 - s) with s = sigmoid(x)")
def test_exercise_e_sigmoid(scale):
    x = scale * np.random.default_rng(1).normal(size=(3, 4))
    check_tensor_gradients(
        lab.Tensor, lambda a: (a.sigmoid() ** 2).sum(), [x], f"sigmoid ** 2, inputs scaled by {scale}"
    )
    check_tensor_gradients(
        lab.Tensor,
        lambda a: (a.sigmoid() + a).sum(),
        [x],
        f"sigmoid(x) + x, inputs scaled by {scale}: x gets 1 from + before sigmoid's rule runs",
        hint="sigmoid's rule adds into x.grad with `+=`, not `=`: x also gets a contribution from the + node",
    )
    if scale > 1:  # and far out, where exp overflows: sigmoid is 0 or 1 there, its gradient 0, never nan
        check_tensor_gradients(
            lab.Tensor,
            lambda a: (a.sigmoid() * 3.0).sum(),
            [np.array([[-800.0, -40.0, 40.0, 800.0]])],
            "sigmoid at -800, -40, 40 and 800",
            hint=FAR_OUT,
            forward_hint=FAR_OUT,
        )


def softmax(z):
    """Softmax over the last axis, composed of engine operations (exercise f)."""
    shift = as_array(z.data, "z.data").max(axis=-1, keepdims=True)  # a constant: softmax ignores shifts
    e = (z - shift).exp()
    return e / e.sum(axis=-1, keepdims=True)


def cross_entropy(z, y):
    """Mean over rows of -log softmax(z)[target], with one-hot targets y."""
    return -(softmax(z).log() * y).sum(axis=-1).mean()


@graded(task="exercises", points=4, hint="exercise (f) composes exp, sum(keepdims=True), division and log")
def test_exercise_f_composed_softmax_and_cross_entropy():
    g = np.random.default_rng(1)
    w = constant(g.normal(size=(2, 5)))  # read-only: the expected gradient is computed from it too
    z = g.normal(size=(2, 5))
    check_tensor_gradients(lab.Tensor, lambda t: (softmax(t) * w).sum(), [z], "softmax(z) * w, summed")
    y = constant(np.eye(6)[[0, 4, 2]])
    check_tensor_gradients(lab.Tensor, lambda t: cross_entropy(t, y), [g.normal(size=(3, 6))], "cross-entropy")


# ---------------------------------------------------------------------------
# Task 5: train XOR
# ---------------------------------------------------------------------------

# The chapter's trace (reference engine, full precision), printed there to 5 decimals.
XOR_TRACE = {
    0: 0.7657616518339618,
    100: 0.22574474717320414,
    200: 0.18359477998071644,
    300: 0.13689256874613562,
    400: 0.08255527866150389,
    500: 0.0353499446380547,
    600: 0.010783983586208773,
    606: 0.009952363585128436,
}
XOR_PREDICTIONS = [0.07, 0.904, 0.919, 0.138]
# A correct engine agrees to the printed digits, or differs by one in the last one.
PRINTED_LOSS_TOLERANCE = 1e-5


@graded(task="xor", points=8, hint="get every Tensor test passing first: XOR uses @, broadcasting, tanh, ** and mean")
def test_xor_training_reproduces_the_chapter():
    run = train_xor(lab.Tensor, max_steps=700, checkpoints=XOR_TRACE, atol=PRINTED_LOSS_TOLERANCE)
    for step, expected in XOR_TRACE.items():
        if step > run.last_step:
            fail(f"XOR training stopped at step {run.last_step}; the chapter's run reaches step 606")
        expect_close(run.losses[step], expected, f"XOR loss at step {step}", atol=PRINTED_LOSS_TOLERANCE, rtol=0)
    if run.last_step != 606:
        fail(f"XOR: the loss should first drop below 0.01 at step 606, got step {run.last_step}")
    expect_close(run.predictions, XOR_PREDICTIONS, "XOR predictions at step 606", atol=1e-3, rtol=0)


@graded(task="xor", points=4, hint="without zeroing, each step uses the sum of every gradient so far")
def test_xor_without_zeroing_overshoots():
    first = {0: XOR_TRACE[0]}  # before any update, the same loss as with zeroing
    run = train_xor(lab.Tensor, zero_grad=False, max_steps=200, checkpoints=first, atol=PRINTED_LOSS_TOLERANCE)
    expect_close(
        run.losses[0], XOR_TRACE[0], "XOR loss at step 0, before any update", atol=PRINTED_LOSS_TOLERANCE, rtol=0
    )
    if run.last_step != 199:
        fail(f"XOR without zeroing should run all 200 steps, it stopped after step {run.last_step}")
    losses = np.array(run.losses)
    lowest = int(np.argmin(losses))
    if lowest != 157:
        fail(f"XOR without zeroing the gradients: the loss should bottom out at step 157, got step {lowest}")
    expect_close(losses[157], 0.023155900304043214, "lowest loss without zeroing", atol=PRINTED_LOSS_TOLERANCE, rtol=0)
    expect_close(
        losses[199],
        0.33423123102206237,
        "loss at step 199 without zeroing (overshot)",
        atol=PRINTED_LOSS_TOLERANCE,
        rtol=0,
    )

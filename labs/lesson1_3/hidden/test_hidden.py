"""Lab lesson1_3's hidden tests: the visible tests' properties on cases the visible tests do not use.

Each test checks behaviour the handout asks for, through its public API only, on other random
seeds, shapes, values, exponents, data and graph topologies than labs/lesson1_3/test_lab.py: a
submission tuned to the visible cases (memorised answers, rules that hold only for the visible
shapes, exponents or data) fails them (labs/lesson1_3/instructor/tuned/visible_only.py is one).
They are counted only at grading time and are never shipped to students.

As in test_lab.py, every returned value is converted to an exact float or float64 array before
it is compared, and expected numbers come from the kit's own trusted code (grader.testing, plain
numpy) or closed forms, never from the functions the student writes. Every random draw is seeded.

Run them with ``IMPL=ref pytest labs/lesson1_3/hidden/test_hidden.py``.
"""

import math

import numpy as np

from grader import under_test
from grader.testing import (
    FORWARD_HINT,
    LabCheckFailure,
    as_array,
    as_float,
    check_scalar_cases,
    check_scalar_gradients,
    expect_close,
    expect_shape,
    fail,
    graded,
    numerical_gradient,
    read_each,
)
from labs.lesson1_3 import diagnoses

lab = under_test("lesson1_3")

ACCUMULATE = "add each contribution with +=: a number used along several paths receives the sum of all of them"


def grads(*values):
    return [as_float(v.grad, f"input {i}'s .grad") for i, v in enumerate(values)]


def expect_diagnosed(got, expected, what: str, diagnose, fallback: str = "", **tolerances):
    """expect_close whose hint on a failure is the bug ``diagnose()`` recognises, else ``fallback``."""
    try:
        expect_close(got, expected, what, **tolerances)
    except LabCheckFailure as failure:
        fail(failure.message, diagnose() or fallback or failure.hint)


# ---------------------------------------------------------------------------
# Task 1: the Value engine
# ---------------------------------------------------------------------------

# Other points, and exponents the visible tests do not use (fractional, -2, 4, 2 at a negative x).
OPERATIONS = {
    "exp at -1.3": (lambda x: x.exp() * -1.5, [-1.3]),
    "log at 0.45": (lambda x: x.log() * 2.5, [0.45]),
    "tanh at 1.7": (lambda x: x.tanh() * 0.5, [1.7]),
    "relu at 1.6 and -0.9": (lambda a, b: a.relu() * 2.5 + b.relu() * 4.0, [1.6, -0.9]),
    "x**2 at -1.2": (lambda x: x**2 * 1.5, [-1.2]),
    "x**0.5 at 2.3": (lambda x: x**0.5 * 2.0, [2.3]),
    "x**1.5 at 0.6": (lambda x: x**1.5 - x, [0.6]),
    "x**-2 at -0.8": (lambda x: x**-2 * 0.5, [-0.8]),
    "x**4 at -1.1": (lambda x: x**4 + x, [-1.1]),
    "-(a - b) * 2": (lambda a, b: -(a - b) * 2.0, [-0.6, 2.2]),
    "a / b": (lambda a, b: a / b, [-2.4, 0.6]),
    "(a + 0.25) / -2 - b * 3": (lambda a, b: (a + 0.25) / -2.0 - b * 3, [0.9, -1.4]),
}


@graded(
    task="engine",
    points=3,
    hint="each operation adds its local derivative times out.grad; x**k has the local derivative k * x**(k - 1) "
    "for any constant k, fractional or negative",
)
def test_hidden_engine_operations_at_other_points_and_exponents():
    check_scalar_cases(lab.Value, [(f, inputs, f"Value {case}", "") for case, (f, inputs) in OPERATIONS.items()])


def shared_chain(x):
    u = x * 2.0  # reaches the output directly and through two operations: paths of different lengths
    return u * u.tanh().exp()


def three_uses(x):
    u = x * 1.5 - 0.5
    return u.relu() * u.tanh() + u**2


def diamond(x):
    a = x.exp()
    b = (a * x).log()
    return a * b + b.tanh()


# A number, or an intermediate node, used along several paths of graphs the visible tests do not build.
REUSED = {
    "relu(x) * x at 1.3": (lambda x: x.relu() * x, [1.3]),
    "relu(x) + x * x at 0.4": (lambda x: x.relu() + x * x, [0.4]),
    "u * exp(tanh(u)), u = 2x, at -0.35": (shared_chain, [-0.35]),
    "relu(u) * tanh(u) + u**2, u = 1.5x - 0.5, at 0.9": (three_uses, [0.9]),
    "a * b + tanh(b), a = exp(x), b = log(a x), at 0.7": (diamond, [0.7]),
    "x * x * x + x * tanh(x) at -0.6": (lambda x: x * x * x + x * x.tanh(), [-0.6]),
}


@graded(task="engine", points=3, hint=ACCUMULATE)
def test_hidden_engine_numbers_reused_along_several_paths():
    check_scalar_cases(lab.Value, [(f, inputs, f"y = {case}", ACCUMULATE) for case, (f, inputs) in REUSED.items()])
    # relu at its kink inside a graph: the input of relu is exactly 0, where its local derivative is 0.
    x = lab.Value(1.0)
    y = (x - 1.0).relu() * x + x
    y.backward()
    expect_close(as_float(y.data, "y.data"), 1.0, "y = relu(x - 1) * x + x at x = 1: forward value", hint=FORWARD_HINT)
    expect_close(
        as_float(x.grad, "x.grad"),
        1.0,
        "dy/dx of relu(x - 1) * x + x at x = 1 (relu's input is 0 there)",
        hint="relu passes the gradient only where its input is > 0: at 0 its local derivative is 0",
    )


NUMBERS_ON_THE_LEFT = {
    "1.5 + x": (lambda x: (1.5 + x) * x, [0.4]),
    "4 - a * b + 2 * a": (lambda a, b: 4 - a * b + 2 * a, [-1.1, 0.7]),
    "0.5 / x + 3 * x": (lambda x: 0.5 / x + 3 * x, [-0.8]),
    "sum([a * b, tanh(b), c])": (lambda a, b, c: sum([a * b, b.tanh(), c]), [0.3, -1.2, 2.0]),
}


@graded(
    task="engine",
    points=3,
    hint="a reflected method gets the number as `other`, on the left (2 + x calls x.__radd__(2), and sum() starts "
    "from 0 + x); backward() adds into a leaf's .grad on every pass",
)
def test_hidden_engine_numbers_on_the_left_and_several_passes():
    v = lab.Value(-2)
    expect_close(as_float(v.data, "Value(-2).data"), -2.0, "Value(-2).data")
    expect_close(as_float(v.grad, "Value(-2).grad before any backward pass"), 0.0, "Value(-2).grad")
    for case, (f, inputs) in NUMBERS_ON_THE_LEFT.items():
        with diagnoses.plain_numbers(lab.Value, f"Value {case} at {inputs}"):
            check_scalar_gradients(lab.Value, f, inputs, f"Value {case}")
    # Three backward passes over graphs that share the leaves x and w: their gradients add up.
    x, w = lab.Value(0.5), lab.Value(-1.5)
    (x * w + 1.0).backward()  # dx = w = -1.5, dw = x = 0.5
    (x.tanh() * 2.0).backward()  # dx = 2 (1 - tanh(x)**2)
    (w**2 / x).backward()  # dx = -w**2 / x**2 = -9, dw = 2w / x = -6
    got = grads(x, w)
    expect_close(
        got,
        [-1.5 + 2 * (1 - math.tanh(0.5) ** 2) - 9.0, 0.5 - 6.0],
        "(x.grad, w.grad) after three backward passes over graphs sharing x = 0.5 and w = -1.5",
        atol=1e-12,
        hint=diagnoses.leaf_passes(got, [-9.0, -6.0])
        or "backward() adds into a leaf's .grad: a leaf used by several graphs collects the gradients of all passes",
    )


# ---------------------------------------------------------------------------
# Task 2: the numerical check
# ---------------------------------------------------------------------------


def bumpy(a, b, c, d):
    return a * math.exp(b) / c + math.sin(d * a)


def quartic(x):
    return x**4 - 2.0 * x


def numeric_diagnosis(f, args, i: int, h: float, got: float) -> str:
    """Which wrong difference quotient of ``f`` along ``args[i]``, or which nudge of ``args``, gives ``got``."""

    def along_i(v):
        return f(*[v if j == i else a for j, a in enumerate(args)])

    return diagnoses.difference_quotient(along_i, args[i], h, got) or diagnoses.nudged_every_argument(f, args, h, [got])


def central(f, args, i, h):
    """The kit's own central difference of a trusted Python function."""
    return float(
        numerical_gradient(lambda x: f(*[float(x) if j == i else a for j, a in enumerate(args)]), np.array(args[i]), h)
    )


@graded(task="numeric", points=3, hint="(f(.., x + h, ..) - f(.., x - h, ..)) / (2h), moving args[i] alone, on copies")
def test_hidden_numerical_derivative_other_functions_and_steps():
    args = [float(v) for v in np.round(np.random.default_rng(71).uniform(0.5, 2.0, 4), 3)]
    before = list(args)
    for h in (1e-2, 1e-4):
        for i in range(4):
            got = as_float(lab.numerical_derivative(bumpy, args, i, h=h), f"numerical_derivative(f, args, {i}, h={h})")
            if args != before:
                fail(
                    f"numerical_derivative(f, args, {i}, h={h}) changed the caller's args: {before} became {args}",
                    diagnoses.changed_args(before, args, i, h) or "nudge copies: the caller's list must not change",
                )
            expect_diagnosed(
                got,
                central(bumpy, args, i, h),
                f"the derivative of a * exp(b) / c + sin(d * a) at {args} with respect to argument {i}, h = {h}",
                lambda got=got, i=i, h=h: numeric_diagnosis(bumpy, before, i, h, got),
                "move args[i] by ±h, and no other argument",
                atol=1e-9,
                rtol=1e-9,
            )
    for h, default in ((0.1, False), (1e-6, True)):
        if default:
            got = as_float(lab.numerical_derivative(quartic, [-1.3], 0), "numerical_derivative without h")
        else:
            got = as_float(
                lab.numerical_derivative(quartic, [-1.3], 0, h=h), f"numerical_derivative(f, [-1.3], 0, h={h})"
            )
        expect_close(
            got,
            central(quartic, [-1.3], 0, h),
            f"the derivative of x**4 - 2x at -1.3 with h = {h}{' (the default)' if default else ''}",
            atol=1e-8,
            rtol=0,
            hint=diagnoses.difference_quotient(quartic, -1.3, h, got)
            or "the central difference is (f(x + h) - f(x - h)) / (2h)",
        )


# ---------------------------------------------------------------------------
# Task 3: the gradient through a softmax
# ---------------------------------------------------------------------------


def softmax(z):
    e = np.exp(np.asarray(z, dtype=np.float64) - np.max(z))
    return e / e.sum()


SOFTMAX = "probabilities are exp(z - max) divided by their sum; the gradient of the logits is p - one_hot"
THROUGH = (
    "build the loss from the logits with Value operations: loss.backward() must carry the gradient on through "
    "whatever computed the logits"
)


def run_softmax(logits, target, what: str, also=()):
    """The probabilities, the loss, each logit's gradient after loss.backward(), and the reads of the .grad of
    each of ``also`` (read_each's, to take where the test looks at them): behind the wall two round trips, one
    before backward() and one after."""
    probs, loss = lab.softmax_cross_entropy(logits, target)
    probs = list(probs)
    reads = read_each([*((p, "data") for p in probs), (loss, "data")])
    got_probs = np.array([as_float(reads[i](), f"{what}: probs[{i}].data") for i in range(len(probs))])
    got_loss = as_float(reads[-1](), f"{what}: loss.data")
    loss.backward()
    grads = read_each([(v, "grad") for v in [*logits, *also]])
    got = [as_float(take(), f"{what}: logit {i}'s .grad") for i, take in enumerate(grads[: len(logits)])]
    return got_probs, got_loss, np.array(got), grads[len(logits) :]


@graded(task="softmax", points=3, hint=SOFTMAX)
def test_hidden_softmax_of_computed_logits_of_other_lengths():
    for n, target, seed in ((2, 1, 101), (7, 6, 102), (10, 3, 103)):
        rng = np.random.default_rng(seed)
        xs, offsets = rng.normal(size=n), rng.normal(size=n) * 2.0
        what = f"{n} logits z_i = s * x_i + o_i (s = 1.7), target {target}"
        s = lab.Value(1.7)
        logits = [s * float(x) + float(o) for x, o in zip(xs, offsets, strict=True)]
        probs, loss, gradient, (s_grad,) = run_softmax(logits, target, what, also=[s])
        z = 1.7 * xs + offsets
        expected = softmax(z)
        one_hot = np.eye(n)[target]
        hint = diagnoses.softmax_result(z, target, probs, loss, gradient) or SOFTMAX
        expect_close(probs, expected, f"{what}: probabilities", rtol=1e-9, hint=hint)
        expect_close(loss, -math.log(expected[target]), f"{what}: loss -log p[{target}]", rtol=1e-9, hint=hint)
        expect_close(gradient, expected - one_hot, f"{what}: gradient of the logits", atol=1e-12, rtol=1e-9, hint=hint)
        expect_close(
            as_float(s_grad(), f"{what}: s.grad"),
            float((expected - one_hot) @ xs),
            f"{what}: d loss / d s = sum of (p_i - one_hot_i) x_i",
            atol=1e-12,
            rtol=1e-9,
            hint=THROUGH,
        )
    # The probabilities are Values of the graph too: probs[1]'s backward reaches the logits, p1 * (one_hot(1) - p)
    logits = [lab.Value(v) for v in (2.0, 1.0, 0.1)]
    p1 = list(lab.softmax_cross_entropy(logits, 0)[0])[1]
    p1.backward()
    reads = read_each([(v, "grad") for v in logits])
    got = np.array([as_float(take(), f"logit {i}'s .grad after probs[1].backward()") for i, take in enumerate(reads)])
    right = softmax([2.0, 1.0, 0.1])
    expect_close(
        got,
        right[1] * (np.eye(3)[1] - right),
        "logits (2, 1, 0.1): their gradient after probs[1].backward()",
        atol=1e-12,
        hint="probs are built from the logits (each exp(z - m) / total, Values of the graph): a probability made "
        "as Value(e.data / total.data) is outside the graph, and passes nothing back",
    )


@graded(
    task="softmax",
    points=2,
    hint="subtract the LARGEST logit, wherever it is, before exp: every exponent is then <= 0",
)
def test_hidden_softmax_is_stable_wherever_the_largest_logit_is():
    # the largest in the middle, last by a little, last by 1000 (a search that stops one short meets exp(1000))
    for logits, target in (([-2000.0, 400.0, 750.0, 749.0], 3), ([-1200.0, -1201.5, -1199.0], 0), ([0.0, 1000.0], 1)):
        what = f"logits {tuple(logits)}, target {target}"
        probs, loss, gradient, _ = run_softmax([lab.Value(v) for v in logits], target, what)
        expected = softmax(logits)
        expect_close(probs, expected, f"{what}: probabilities", rtol=1e-9)
        expect_close(loss, -math.log(expected[target]), f"{what}: loss", rtol=1e-9)
        expect_close(gradient, expected - np.eye(len(logits))[target], f"{what}: gradient of the logits", atol=1e-12)


# ---------------------------------------------------------------------------
# Task 4: matrix-product gradients
# ---------------------------------------------------------------------------

SHAPES = "dX = dY W^T has X's shape (n, d); dW = X^T dY has W's shape (d, k)"


@graded(task="matmul", points=3, hint=f"a square X or W runs with a missing transpose, silently wrong: {SHAPES}")
def test_hidden_matmul_grads_other_shapes_and_seeds():
    for seed, (n, d, k) in enumerate(((3, 3, 2), (6, 2, 5), (2, 7, 1), (4, 4, 3)), start=40):
        rng = np.random.default_rng(seed)
        X, W, T = rng.standard_normal((n, d)), rng.standard_normal((d, k)), rng.standard_normal((n, k))
        dY = X @ W - T

        def loss(X, W, T=T):
            return 0.5 * float(((X @ W - T) ** 2).sum())

        result = lab.matmul_grads(X.copy(), W.copy(), dY.copy())
        if not isinstance(result, tuple) or len(result) != 2:
            fail(f"matmul_grads should return a tuple (dX, dW), got {type(result).__name__}")
        dX, dW = as_array(result[0], "dX"), as_array(result[1], "dW")
        hint = diagnoses.matmul_result(X, W, dY, dX, dW) or SHAPES
        expect_shape(dX.shape, (n, d), f"dX for X {X.shape} @ W {W.shape}", hint=hint)
        expect_shape(dW.shape, (d, k), f"dW for X {X.shape} @ W {W.shape}", hint=hint)
        numeric_dX = numerical_gradient(lambda x, W=W, f=loss: f(x, W), X)
        numeric_dW = numerical_gradient(lambda w, X=X, f=loss: f(X, w), W)
        for name, got, expected in (("dX", dX, numeric_dX), ("dW", dW, numeric_dW)):
            worst = float(np.abs(got - expected).max())
            if worst > 1e-8:
                fail(
                    f"{name} for X {X.shape} @ W {W.shape} (seed {seed}): differs from the numerical check "
                    f"by {worst:.2e} (over 1e-8)",
                    hint,
                )


# ---------------------------------------------------------------------------
# Task 5: gradient descent
# ---------------------------------------------------------------------------


def rows(xs, ys, lr, steps, **kwargs):
    """fit_line's rows as exact (int, float, float, float) tuples."""
    result = lab.fit_line(list(xs), list(ys), lr, steps, **kwargs)
    if not isinstance(result, list):
        fail(f"fit_line should return a list of rows, got {type(result).__name__}")
    if len(result) != steps + 1:
        numbers = [r[0] if isinstance(r, tuple) and r and type(r[0]) is int else None for r in result[: steps + 2]]
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
        values = (as_float(v, f"row {index}'s {name}") for v, name in zip(row[1:], ("loss", "w", "b"), strict=True))
        checked.append((index, *values))
    return checked


def descent(xs, ys, lr, steps, zero_grad=True):
    """The kit's own gradient descent on the mean squared error, in plain float64: rows (step, loss, w, b)."""
    x, y = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
    w = b = grad_w = grad_b = 0.0
    table = []
    while len(table) <= steps:
        residual = w * x + b - y
        table.append((len(table), float((residual**2).mean()), w, b))
        dw, db = float((2 * residual * x).mean()), float((2 * residual).mean())
        grad_w, grad_b = (dw, db) if zero_grad else (grad_w + dw, grad_b + db)
        w, b = w - lr * grad_w, b - lr * grad_b
    return table


DESCENT = (
    "each step computes a fresh loss, the mean of the squared errors over all the points; "
    "record w and b before updating them"
)

# Five noisy points around y = -1.5x + 0.5, drawn once with np.random.default_rng(51).
FIVE_XS = [1.77, -0.77, -0.98, -1.11, 1.14]
FIVE_YS = [-2.49, 1.42, 2.5, 2.06, -1.57]
THREE_XS, THREE_YS = [-1.0, 0.5, 2.0], [-1.25, -0.5, 0.75]


@graded(task="descent", points=3, hint=DESCENT)
def test_hidden_fit_line_other_points_and_rate():
    got = rows(FIVE_XS, FIVE_YS, 0.3, 30)
    right = descent(FIVE_XS, FIVE_YS, 0.3, 30)
    first = [row[1:] for row in right[:3]]
    never_zeroed = descent(FIVE_XS, FIVE_YS, 0.3, 2, zero_grad=False)[2][1:]
    for step, expected in enumerate(right):
        expect_diagnosed(
            got[step][1:],
            expected[1:],
            f"five points, learning rate 0.3, step {step}: (loss, w, b)",
            lambda: diagnoses.first_rows(
                got[:3], first, never_zeroed, 5, lambda zero_grad: rows(FIVE_XS, FIVE_YS, 0.3, 2, zero_grad=zero_grad)
            ),
            DESCENT,
            atol=1e-12,
            rtol=1e-6,
        )


@graded(task="descent", points=3, hint="with zero_grad=False the gradients add up from step to step")
def test_hidden_fit_line_short_runs_and_without_zeroing():
    for steps in (0, 1):
        got = rows(THREE_XS, THREE_YS, 0.05, steps)
        expected = descent(THREE_XS, THREE_YS, 0.05, steps)
        expect_close(
            [row[1:] for row in got],
            [row[1:] for row in expected],
            f"three points, fit_line(..., steps={steps}): (loss, w, b) of every row",
            atol=1e-12,
            rtol=1e-6,
            hint=DESCENT,
        )
    got = rows(THREE_XS, THREE_YS, 0.05, 30, zero_grad=False)
    right = descent(THREE_XS, THREE_YS, 0.05, 30, zero_grad=False)
    zeroed = descent(THREE_XS, THREE_YS, 0.05, 30)
    for step, expected in enumerate(right):
        expect_diagnosed(
            got[step][1:],
            expected[1:],
            f"three points without zeroing, step {step}: (loss, w, b)",
            lambda: diagnoses.without_zeroing([r[1:] for r in got], [r[1:] for r in zeroed]),
            "with zero_grad=False never clear w.grad and b.grad: each update uses the sum of every gradient so far",
            atol=1e-12,
            rtol=1e-6,
        )


# ---------------------------------------------------------------------------
# Task 6: the learning-rate ceiling
# ---------------------------------------------------------------------------


def ceiling(xs):
    """The kit's own 2 / (largest eigenvalue of the MSE loss's Hessian in (w, b))."""
    x = np.asarray(xs, dtype=np.float64)
    hessian = (2 / len(x)) * np.array([[x @ x, x.sum()], [x.sum(), len(x)]])
    return 2 / float(np.linalg.eigvalsh(hessian)[-1])


def ceiling_inputs():
    rng = np.random.default_rng(61)
    drawn = [[float(v) for v in np.round(rng.uniform(-3.0, 5.0, size), 3)] for size in (2, 6, 9)]
    return [*drawn, [-3.0, -1.0, 1.0, 3.0], [5.0, 5.0, 5.0], [0.25, 0.5]]


@graded(task="ceiling", points=2, hint="2 divided by the LARGEST eigenvalue of the Hessian (2/n)[[Σx², Σx], [Σx, n]]")
def test_hidden_max_stable_lr_other_points():
    inputs = ceiling_inputs()
    got = [as_float(lab.max_stable_lr(list(xs)), f"max_stable_lr({xs})") for xs in inputs]
    hint = diagnoses.ceiling(inputs, got) or "the ceiling is 2 / λ, λ the steepest curvature of the loss"
    for xs, one in zip(inputs, got, strict=True):
        expect_close(one, ceiling(xs), f"max_stable_lr({xs})", rtol=1e-9, hint=hint)


@graded(task="ceiling", points=2, hint="below the ceiling descent converges; above it every step overshoots more")
def test_hidden_the_ceiling_separates_other_points():
    xs = [-2.0, -0.5, 1.0, 2.5]
    ys = [3.0 * x - 2.0 for x in xs]
    limit = as_float(lab.max_stable_lr(list(xs)), f"max_stable_lr({xs})")
    below = rows(xs, ys, 0.8 * limit, 30)[-1][1]
    above = rows(xs, ys, 1.2 * limit, 30)[-1][1]
    if not (below < 1e-6 and above > 1e6):
        fail(
            f"y = 3x - 2 at x = {xs}, after 30 steps: at 0.8 x ceiling the loss should be tiny (got {below:.3g}), "
            f"at 1.2 x ceiling huge (got {above:.3g}); your ceiling is {limit:.6g}"
        )

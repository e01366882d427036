"""What a wrong answer in lab lesson1_3 most likely means.

A test that finds a wrong number asks here which bug gives that number. Each function gets what
the test already has (what the code under test gave, what was right) and returns a hint naming
the bug those numbers point to, in the words of grader.testing.bugs, or "" when they point to no
bug in particular: the test then says what it expected and names no bug. The engine's diagnoses
may run a few small computations more on the code under test (probes), to tell apart bugs that
give the same numbers; a probe that raises tells nothing. Every number a bug is recognised by is
computed here, by trusted code, never by the code under test.
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from grader.testing import as_float, fail, probe, read_floats
from grader.testing.remote import sync
from grader.verdicts import WorkerFailure


def near(got, expected, rel: float = 1e-9) -> bool:
    """Equal but for rounding: the same arithmetic, perhaps in another order."""
    got, expected = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    return got.shape == expected.shape and bool(np.allclose(got, expected, rtol=rel, atol=1e-12))


# ---------------------------------------------------------------------------
# Task 1: the Value engine
# ---------------------------------------------------------------------------

TOPOLOGICAL = (
    "backward() must run a node's rule only after every node that uses it has run its own: "
    "build a topological order (each node once, after the nodes it was built from) and walk it in reverse"
)


def lessons_graph(Value, output, got, a: float, b: float, c: float) -> str:
    """Why (df/da, df/db, df/dc) for f = (a*b + c) * k came out as ``got``; ``output`` is f after backward()."""
    e = a * b + c
    if near(got, [a * e, b * e, e]):  # each product's rule multiplied by its own factor
        return "each product's rule used the operand's own value: d(a*b)/da is b, the other operand's value"
    if any(g != 0.0 for g in got):
        return ""
    seeded = probe(lambda: as_float(output.grad, "f.grad"))
    if seeded == 1.0 and probe(lambda: _grads_of_one_product(Value)) == [0.0, 0.0]:  # no order to get wrong
        return (
            "f.grad is 1 after backward(), yet even z = a * b alone passes nothing to a and b: the output's own "
            "rule never ran; walk the whole reversed topological order, the output's rule first"
        )
    if seeded == 1.0:
        return f"f.grad is 1 after backward(), yet nothing reached a, b or c: {TOPOLOGICAL}"
    if seeded == 0.0:
        leaf = probe(lambda: _grad_of_a_lone_leaf(Value))
        if leaf == 0.0:
            return "f.grad is still 0 after backward(): seed the output with d f/d f = 1 before running the rules"
        if leaf == 1.0:  # a node without parents keeps its 1: the output's was reset after it was set
            return (
                "f.grad is 0 after backward(): it was set to 1, then reset with the intermediate nodes; "
                "reset the intermediates first, then set the output's .grad to 1"
            )
    return ""


def _grads_of_one_product(Value) -> list[float]:
    a, b = Value(2.0), Value(3.0)
    (a * b).backward()
    return read_floats([(a, "grad", "a.grad"), (b, "grad", "b.grad")])


def _grad_of_a_lone_leaf(Value) -> float:
    leaf = Value(1.5)
    leaf.backward()
    return as_float(leaf.grad, "a lone Value's .grad after its own backward()")


def _chain(op: str) -> str:
    return (
        f"{op}'s rule leaves out out.grad: it added its local derivative alone, without the 3 from above; "
        "multiply by out.grad (the chain rule)"
    )


def _rules(x: float) -> dict:
    """For each operation: how it is written, how the probe builds 3 * it from Value and x, its right
    derivative, and the wrong ones a student's rule gives (value: hint)."""
    t = math.tanh(x)
    return {
        "add": ("(x + 1)", lambda Value, v: (v + Value(1.0)) * 3.0, 3.0, {1.0: _chain("add")}),
        "exp": (
            "exp(x)",
            lambda Value, v: v.exp() * 3.0,
            3 * math.exp(x),
            {
                math.exp(x): _chain("exp"),
                3 * x: "exp's rule multiplies by x, but the derivative of exp is exp(x), its own output",
            },
        ),
        "pow": (
            "x**2",
            lambda Value, v: v**2 * 3.0,
            3 * 2 * x,
            {
                2 * x: _chain("pow"),
                3 * 2 * x**2: "pow's rule uses k * x**k, but the local derivative of x**k is k * x**(k - 1)",
                3 * x: "pow's rule leaves out the factor k: d(x**k)/dx = k * x**(k - 1)",
                2 * x**2 - 3: "pow's rule computes k * x**k - 1 * out.grad, the parentheses left out: the local "
                "derivative of x**k is k * x**(k - 1), times out.grad",
            },
        ),
        "log": (
            "log(x)",
            lambda Value, v: v.log() * 3.0,
            3 / x,
            {
                1 / x: _chain("log"),
                3 / math.log(x): "log's rule divides by log(x), its output, but the derivative of log is 1/x, "
                "x being its input",
            },
        ),
        "tanh": (
            "tanh(x)",
            lambda Value, v: v.tanh() * 3.0,
            3 * (1 - t * t),
            {
                1 - t * t: _chain("tanh"),
                3 * t: "tanh's rule multiplies by t = tanh(x), but the derivative of tanh is 1 - t*t",
                3 * (1 - t): "tanh's rule multiplies by 1 - t, but the derivative of tanh is 1 - t*t",
                1 - t * t * 3: "tanh's rule computes 1 - t*t * out.grad, the parentheses left out: the local "
                "derivative of tanh is 1 - t*t, times out.grad",
                3 - t * t: "tanh's rule computes out.grad * 1 - t*t, the parentheses left out: the local "
                "derivative of tanh is 1 - t*t, times out.grad",
            },
        ),
    }


def rule_alone(Value, op: str, x: float) -> tuple[str, str] | None:
    """None if ``op``'s backward rule, alone under a factor 3, gives the right derivative at ``x`` (or
    the probe fails); else (what it gave against what is right, a hint naming the bug if recognised)."""
    shown, build, right, wrong = _rules(x)[op]

    def derivative():
        v = Value(x)
        build(Value, v).backward()
        return as_float(v.grad, f"x.grad of 3 * {shown}")

    got = probe(derivative)
    if got is None or near(got, right, rel=1e-6):
        return None
    said = f"d(3 * {shown})/dx at x = {x:g} is {right:.6f}, {op}'s rule alone gives {got:.6f}"
    hint = next((h for value, h in wrong.items() if near(got, value, rel=1e-6)), "")
    return said, hint or f"{op}'s backward rule is wrong on its own: fix it first"


def shared_node(got: float, expected: float) -> str:
    """Why dy/dx of a graph using an intermediate node u twice (u * exp(u), u = 2x; 2u + u*u, u = 3x) came out
    as ``got`` once each operation is right on its own."""
    if near(got, 2 * expected, rel=1e-6):
        return (
            "u's rule ran twice, once per path from y: each node must run its rule exactly once; "
            "keep a visited set while you build the order"
        )
    return f"u is an intermediate node used twice; {TOPOLOGICAL}"


# A plain number on either side of each operator, with the method it reaches.
NUMBERS = [
    ("x + 2.0", "__add__", lambda x: x + 2.0),
    ("x * 2.0", "__mul__", lambda x: x * 2.0),
    ("x - 2.0", "__sub__", lambda x: x - 2.0),
    ("x / 2.0", "__truediv__", lambda x: x / 2.0),
    ("2.0 + x", "__radd__", lambda x: 2.0 + x),
    ("2.0 * x", "__rmul__", lambda x: 2.0 * x),
    ("2.0 - x", "__rsub__", lambda x: 2.0 - x),
    ("2.0 / x", "__rtruediv__", lambda x: 2.0 / x),
]


@contextmanager
def plain_numbers(Value, what: str):
    """Turn an AttributeError or TypeError of the block into a failure naming the operator that does
    not wrap a plain number, when a probe finds one; any other error stays the code's own."""
    sync()  # an earlier operation's error is not this block's
    try:
        yield
        sync()
    except (AttributeError, TypeError) as error:
        for text, method, operation in NUMBERS:
            try:
                as_float(operation(Value(1.5)).data, f"({text}).data")
                sync()
            except (AttributeError, TypeError) as alone:
                also = "it too" if _said(alone) == _said(error) else _said(alone)
                fail(
                    f"{what} raised {_said(error)}; {text} alone raises {also}",
                    f"a plain number reached {method} unwrapped: wrap it in a Value before using its .data",
                )
            except WorkerFailure:
                raise
            except Exception:  # this operator fails some other way: not the one the block tripped on
                continue
        raise


def _said(error: BaseException) -> str:
    """An error as the report words it: its type (behind the wall, the worker's) and its text."""
    return f"{getattr(error, 'labkit_type', type(error).__name__)}: {error}"


class _Misread:
    """The handout's Value API, forward only, with one operator written as students misread it."""

    def __init__(self, data, misread: str):
        self.data, self.misread = float(data), misread

    def _lift(self, x):
        return x if isinstance(x, _Misread) else _Misread(x, self.misread)

    def _new(self, data):
        return _Misread(data, self.misread)

    def __add__(self, other):
        return self._new(self.data + self._lift(other).data)

    def __radd__(self, other):
        return self._lift(other) + self

    def __mul__(self, other):
        return self._new(self.data * self._lift(other).data)

    def __rmul__(self, other):
        return self._lift(other) * self

    def __sub__(self, other):
        other = self._lift(other)
        return self._new(other.data - self.data if self.misread == "__sub__" else self.data - other.data)

    def __rsub__(self, other):
        return self - other if self.misread == "__rsub__" else self._lift(other) - self

    def __truediv__(self, other):
        return self._new(self.data / self._lift(other).data)

    def __rtruediv__(self, other):
        return self / other if self.misread == "__rtruediv__" else self._lift(other) / self

    def __neg__(self):
        return self._new(-self.data)

    def __pow__(self, k):
        return self._new(self.data**k)

    def exp(self):
        return self._new(math.exp(self.data))

    def log(self):
        return self._new(math.log(self.data))

    def tanh(self):
        return self._new(math.tanh(self.data))


MISREAD = {
    "__sub__": "the result has the wrong sign: a - b came out as b - a; __sub__ computes self + (-other)",
    "__rsub__": "2 - x came out as x - 2: a reflected operator gets the number as `other`, "
    "on the left, so 2 - x is other - self",
    "__rtruediv__": "3 / x came out as x / 3: a reflected operator gets the number as `other`, "
    "on the left, so 3 / x is other / self",
}


def forward_value(Value, f, inputs, got: float) -> str:
    """Which misread operator makes ``f`` at ``inputs`` give ``got``, if one does."""
    matches = [m for m in MISREAD if near(got, f(*[_Misread(v, m) for v in inputs]).data)]
    if "__sub__" in matches and len(matches) > 1:  # a misread a - b misreads 2 - x too: is a - b right?
        difference = probe(lambda: as_float((Value(1.5) - Value(0.5)).data, "(1.5 - 0.5).data"))
        matches = ["__sub__"] if difference == -1.0 else [m for m in matches if m != "__sub__"]
    return MISREAD[matches[0]] if len(matches) == 1 else ""


def relu_gradient(at: float, got: float) -> str:
    if at == 0.0 and got == 1.0:
        return "the local derivative of relu at x = 0 is 0: pass the gradient only where x > 0, strictly"
    if at > 0.0 and near(got, at):
        return "your rule multiplies by relu's output; the local derivative of relu is 1 where x > 0 and 0 elsewhere"
    return ""


def leaf_passes(got, second_pass) -> str:
    """Why two backward() passes over the same leaves left ``got`` in their .grad."""
    if near(got, second_pass):
        return (
            "the second backward() reset the leaves' gradients: backward() resets only intermediate nodes; "
            "a leaf's .grad keeps adding up until the training loop clears it"
        )
    return ""


# ---------------------------------------------------------------------------
# Task 2: the numerical check
# ---------------------------------------------------------------------------


def difference_quotient(f, x: float, h: float, got: float) -> str:
    """Which difference quotient of ``f`` at ``x`` gives ``got``."""
    central = (f(x + h) - f(x - h)) / (2 * h)
    if near(got, (f(x + h) - f(x)) / h) or near(got, (f(x) - f(x - h)) / h):
        return "a one-sided difference: the central difference (f(x + h) - f(x - h)) / (2h) is exact to h**2"
    if near(got, 2 * central):
        return "twice the derivative: the central difference divides by 2h, not h"
    if near(got, -central):
        return "the estimate has the wrong sign: subtract f(x - h) from f(x + h), not the other way round"
    if near(got, (f(x + h) - f(x)) / (2 * h)) or near(got, (f(x) - f(x - h)) / (2 * h)):
        return (
            "half a one-sided difference: one list nudged by +h and then by -h is back at x, not at x - h; "
            "the central difference (f(x + h) - f(x - h)) / (2h) needs x + h and x - h"
        )
    if got == 0.0 and central != 0.0:
        return (
            "f gave the same number on both sides: both nudges went into one list, an alias of the other "
            "(up = down = list(args)), or into a copy f never saw; nudge two copies, one by +h and one by -h"
        )
    return ""


def nudged_every_argument(f, args, h: float, estimates) -> str:
    """Whether every estimate is the one that nudges all of ``args`` at once."""
    every = (f(*[a + h for a in args]) - f(*[a - h for a in args])) / (2 * h)
    if all(near(e, every, rel=1e-6) for e in estimates):
        return (
            f"every estimate is {every:.6f}, the change when all the arguments move together: "
            "you nudged every argument; nudge argument i alone"
        )
    return ""


def changed_args(before, after, i: int, h: float) -> str:
    """Why the caller's ``before`` became ``after`` in a call for argument ``i``."""
    if len(after) != len(before) or any(a != b for j, (a, b) in enumerate(zip(after, before, strict=True)) if j != i):
        return ""
    if near(after[i], before[i] + h):
        return (
            "up = args is the caller's list itself, not a copy: nudging it changes the caller's args; "
            "copy with list(args)"
        )
    if near(after[i], before[i] - h):
        return "args[i] was nudged in the caller's list and not put back: nudge copies of the list"
    return ""


# ---------------------------------------------------------------------------
# Task 3: the gradient through a softmax
# ---------------------------------------------------------------------------


def softmax_result(logits, target: int, probs, loss: float, gradient) -> str:
    """Which bug gives these probabilities, loss and logits' gradient."""
    z = np.asarray(logits, dtype=np.float64)
    exps = np.exp(z - z.max())
    right = exps / exps.sum()
    if not near(probs.sum(), 1.0):
        if near(probs, exps / (exps.sum() + exps[0])):
            return (
                f"your probabilities sum to {probs.sum():.4f}, not 1: the total counts exps[0] twice "
                "(it starts at exps[0] and the loop adds every exp)"
            )
        return f"your probabilities sum to {probs.sum():.4f}, not 1: divide each exp by the sum of all of them"
    if not near(probs, right):
        return ""
    if near(loss, math.log(right[target])):
        return "the loss has the wrong sign: the cross-entropy is minus the log of a probability, so it is positive"
    if near(loss, -math.log(right[target]) - z.max()):  # log(sum(exp(z - m))) - z_t, the m left out
        return (
            "the loss is the right one minus the largest logit: written as log-sum-exp, it is "
            "m + log(sum(exp(z - m))) - z_t (t the right class); the shift by m cancels only when it is added back"
        )
    largest = int(np.argmax(right))
    for j, which in ((0, "probs[0]"), (largest, "the largest probability")):
        if j != target and near(loss, -math.log(right[j])):
            return f"the loss is -log of {which}, not of the target's probability, probs[{target}]"
    if near(gradient, -np.eye(len(z))[target]):
        return (
            "the logits' gradient holds only the one-hot's -1: nothing flowed back through the total; "
            "dividing by total.data, a float, leaves the sum outside the graph: divide by the Value itself"
        )
    return ""


# ---------------------------------------------------------------------------
# Task 4: matrix-product gradients
# ---------------------------------------------------------------------------


def matmul_result(X, W, dY, first, second) -> str:
    """Which bug gives ``(first, second)`` for the gradients of Y = X @ W."""
    dX, dW = dY @ W.T, X.T @ dY
    if near(first, dW) and near(second, dX) and dX.shape != dW.shape:
        return "matmul_grads gave (dW, dX): the tuple is (dX, dW), in that order"
    for name, got, right, formula in (("dX", first, dX, "dY W^T"), ("dW", second, dW, "X^T dY")):
        if near(got, right):
            continue
        if near(got, right.T):
            return f"{name} is the transpose of the right one: {name} = {formula}, the factors in that order"
        if near(got * len(X), right):
            return f"{name} is 1/{len(X)} of the right one: an extra factor 1/n (the loss here is a sum, not a mean)"
        return ""
    return ""


# ---------------------------------------------------------------------------
# Task 5: gradient descent
# ---------------------------------------------------------------------------


def row_numbers(steps_seen, steps: int) -> str:
    """Why fit_line gave rows numbered ``steps_seen`` for ``steps`` steps."""
    if steps_seen == list(range(1, steps + 1)):
        return (
            f"your rows are numbered 1 to {steps}: step 0, the loss before any update, is missing "
            "(off by one: range(steps + 1) counts from 0)"
        )
    if steps_seen == list(range(steps)):
        return (
            f"your rows stop at step {steps - 1}: the last evaluation, at step {steps}, is missing "
            "(off by one: range(steps + 1) evaluates steps 0 to steps)"
        )
    return ""


def first_rows(got, right, never_zeroed, n: int, rerun) -> str:
    """Which bug of the training loop gives the rows ``got`` of steps 0 to 2 (each (step, loss, w, b)).

    ``right`` holds the right (loss, w, b) of those steps, ``never_zeroed`` step 2's without zeroing;
    ``rerun(zero_grad)`` runs the same two steps again with zero_grad given (None if that fails)."""
    (_, loss0, w0, b0), (_, loss1, w1, b1), (_, loss2, w2, b2) = got
    if near(loss0, n * right[0][0]):
        return (
            f"row 0's loss is {loss0:g} = {n} x {right[0][0]:g}: the sum of the squared errors, not their mean "
            "(a missing factor 1/n)"
        )
    if (w0, b0) != (0.0, 0.0):
        return ""
    if near([w1, b1], [-right[1][1], -right[1][2]]):
        return "w and b moved up the gradient: the update has the wrong sign; subtract lr times the gradient"
    if near([w1, b1], [right[1][1] / n, right[1][2] / n]):
        return (
            f"w and b moved 1/{n} of the way: the gradient of the mean already holds its 1/n, so the update "
            "is lr times the gradient, without a factor 1/n more"
        )
    if near(w1, right[1][1]) and near(b1, -right[1][2]) and not near(b1, 0.0):
        return (
            "w moved right and b the opposite way: the error is w * x + b - y; written y - w * x + b, its "
            "parentheses lost, b enters it with the wrong sign"
        )
    if near(w1, right[1][1]) and near(b1, w1) and not near(right[1][2], w1):
        return "b moved exactly as far as w: the loop updates b with w's gradient; update b with b.grad"
    if near([w1, b1], right[1][1:]) and near(loss1, loss0 / n + right[1][0]):
        return (
            f"step 1's loss is step 0's / {n} plus the right one: the loss carries over from one step to the "
            "next; start each step's loss afresh at Value(0.0) inside the loop"
        )
    if near([w1, b1, w2, b2], [0.0] * 4):
        moved = probe(lambda: rerun(False))
        if moved is not None and (moved[1][2], moved[1][3]) != (0.0, 0.0):
            return (
                "w and b never move with zero_grad=True, yet they do with zero_grad=False: the gradients are "
                "reset between backward() and the update; reset them before backward()"
            )
        return (
            "w and b are back at 0 in every row: they are created afresh at every step; "
            "create them once, before the loop"
        )
    if near([loss1, w1, b1], right[1]) and near([loss2, w2, b2], never_zeroed):
        zeroed = probe(lambda: rerun(True))
        if zeroed is not None and near([list(row[1:]) for row in zeroed], right):
            return "fit_line without zero_grad behaves as zero_grad=False: its default must be zero_grad=True"
        return (
            "your rows are those of a run whose gradients are never reset: with zero_grad=True set w.grad and "
            "b.grad to 0 before each backward()"
        )
    if near([loss1, w1, b1], right[1]):  # one of the two reset, the other not: that one moves as never_zeroed's
        for name, mine, other in (("b", b2, w2), ("w", w2, b2)):
            index = 2 if name == "b" else 1
            if near(mine, never_zeroed[index]) and near(other, right[2][3 - index]):
                kept = "w" if name == "b" else "b"
                return (
                    f"{name}.grad is never reset, {kept}.grad is: with zero_grad=True set both to 0 before each "
                    "backward()"
                )
    return ""


def without_zeroing(got, zeroed) -> str:
    """Why rows of a run with zero_grad=False equal ``zeroed``, the rows of a run that resets."""
    if near(got, zeroed):
        return (
            "with zero_grad=False your rows equal the zeroed run's: the gradients are reset whatever zero_grad says "
            "(or w and b are no longer leaves: an update written w = w - lr * w.grad makes w a node computed from "
            "others, whose gradient backward() resets; update w.data instead)"
        )
    return ""


# ---------------------------------------------------------------------------
# Task 6: the learning-rate ceiling
# ---------------------------------------------------------------------------


def _hessian(xs, bb=None, ww=None, n=None) -> np.ndarray:
    """(2/n)[[Σx², Σx], [Σx, n]], n = len(xs); ``bb``, ``ww``, ``n``: a wrong b-b entry, w-w entry or n instead."""
    x = np.asarray(xs, dtype=np.float64)
    n = len(x) if n is None else n
    return (2 / n) * np.array([[x @ x if ww is None else ww, x.sum()], [x.sum(), n if bb is None else bb]])


def _largest(h) -> float:
    return float(np.linalg.eigvalsh(h)[-1])


# The ceilings students compute instead of 2 / (largest eigenvalue), with what each means.
CEILINGS = [
    (
        lambda xs: 2 / float(np.trace(_hessian(xs))),
        "2 divided by the trace of the Hessian (the sum of both eigenvalues), not by the largest eigenvalue",
    ),
    (
        lambda xs: 2 / float(np.linalg.eigvalsh(_hessian(xs))[0]),
        "2 divided by the smallest eigenvalue: eigvalsh sorts them ascending, the largest is the last",
    ),
    (
        lambda xs: 2 / float(np.diag(_hessian(xs)).max()),
        "2 divided by the Hessian's largest diagonal entry: Σx off the diagonal couples w and b; "
        "take its largest eigenvalue",
    ),
    (
        lambda xs: 2 / _largest(_hessian(xs) * len(xs) / 2),
        "the ceiling is 2/n times the right one on every input: the matrix (2/n)[[Σx², Σx], [Σx, n]] "
        "lost its factor 2/n",
    ),
    (
        lambda xs: 2 / _largest(_hessian(xs) / 2),
        "the ceiling is twice the right one on every input: the matrix's factor is 2/n, not 1/n "
        "(the 2 comes from differentiating the square)",
    ),
    (
        lambda xs: 1 / _largest(_hessian(xs)),
        "the ceiling is half the right one on every input: 2 / λ, not 1 / λ (a missing factor 2)",
    ),
    (
        lambda xs: 2 / _largest(_hessian(xs, bb=1.0)),
        "the Hessian's b-b entry is (2/n) x n = 2: yours puts 1 where n belongs",
    ),
    (
        lambda xs: 2 / _largest(_hessian(xs, ww=float(np.sum(xs)) ** 2)),
        "the Hessian's w-w entry is (2/n) Σx², the sum of the squares: yours squares the sum, (Σx)²",
    ),
    (
        lambda xs: 2 / _largest(_hessian(xs, n=4)),
        "the Hessian (2/n)[[Σx², Σx], [Σx, n]] takes n = len(xs): yours is 4 whatever the data (the lesson's "
        "four points)",
    ),
]


def ceiling(inputs, got) -> str:
    """Which wrong ceiling gives ``got[j]`` for every ``inputs[j]``."""
    for wrong, hint in CEILINGS:
        if all(near(g, wrong(xs)) for xs, g in zip(inputs, got, strict=True)):
            return hint
    return ""

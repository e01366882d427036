"""Diagnoses: from what a failed check saw, the bug that explains it, in a student's words.

Three kinds of evidence, three functions, each returning a hint ("" when it has nothing to
say, so that the test's own advice is shown instead):

- ``explain_gradients``: wrong gradients. Every classic bug of grader.testing.faults is
  injected in turn into the same computation; a bug that gives exactly the student's
  numbers is named, with the operation it is in. When several fit, the hint names what
  they share, or says that it cannot tell; when none fits, it falls back to the shape of
  the error (a sign, a constant factor, a transpose) and otherwise says it cannot tell.
- ``explain_forward``: a wrong forward value, against the forward bugs.
- ``explain_error``: an exception raised inside the code under test, from the functions it
  passed through (``Tensor.__matmul__.<locals>.backward``) and its message.

A hint names at most two kinds of bug (grader.testing.bugs): more would be a list, not a
diagnosis, and is worded as "cannot tell" instead.
"""

from __future__ import annotations

import numpy as np

from grader.testing import bugs, faults, memo
from grader.testing.faults import Fault, Setting

# Two analytic computations of the same gradients agree far more closely than this; a
# numerical or float32 gradient does not, and is never taken for a bug.
MATCH_RTOL = 1e-6
MATCH_ATOL = 1e-9
CANNOT_TELL = "several common bugs give exactly these numbers, so the kit cannot tell which"
# At most this many runs of the computation per diagnosis (each one is a few hundred microseconds).
MAX_RUNS = 4000
# What a search found is kept for the rest of the process: the outcome of each (computation, fault setting),
# a few hundred bytes each (a lab's failed checks search a few thousand), and each computation's catalogue.
_OUTCOMES = memo.Kept(50_000)
_CATALOGUES = memo.Kept(1_000)

OPS = {
    "+": "`+`",
    "-": "`-`",
    "*": "`*`",
    "/": "`/`",
    "**": "`**`",
    "@": "`@`",
    "neg": "unary `-`",
    "exp": "`exp`",
    "log": "`log`",
    "tanh": "`tanh`",
    "relu": "`relu`",
    "sigmoid": "`sigmoid`",
    "sum": "`sum`",
    "mean": "`mean`",
    "reshape": "`reshape`",
    "transpose": "`transpose`",
}
_BINARY = {"+", "-", "*", "/", "@"}


def _who(fault: Fault) -> str:
    if fault.op not in _BINARY:
        return "its input"
    return {0: "self (the left operand)", 1: "other (the right operand)", None: "self or other"}[fault.operand]


def describe(fault: Fault) -> str:
    """What the student's code does, for one fault: the clause after "exactly what you get when"."""
    op, who, v = OPS.get(fault.op, f"`{fault.op}`"), _who(fault), fault.variant
    if fault.forward:
        return _FORWARD[(fault.op, v)]
    if fault.op == "backward":
        return _GRAPH[v]
    if v == "overwrite":
        return f"{op}'s backward assigns the gradient of {who} with `=` instead of `+=`"
    if v == "sign":
        return f"{op}'s backward gives {who} a gradient of the wrong sign"
    if v == "chain":
        return f"{op}'s backward leaves out `out.grad` for {who} (the chain rule: multiply by the gradient from above)"
    if v == "data_for_grad":
        return f"{op}'s backward uses `out.data` where it needs `out.grad`"
    if v == "own":
        return f"{op}'s backward multiplies the gradient of {who} by its own value instead of the other operand's"
    if v == "guard":
        return (
            f"{op}'s backward skips {who} when the other operand is a constant: its `requires_grad` test checks "
            "the wrong operand"
        )
    if v == "detached":
        return f"{op} builds its result outside the graph (a new object with no parents): no gradient flows back"
    return _SPECIFIC[(fault.op, v)]


_SPECIFIC = {
    ("/", "square_forgotten"): "`/`'s backward gives b the gradient -a/b * out.grad: the local derivative of a/b "
    "with respect to b is -a/b**2",
    ("**", "not_decremented"): "`**`'s backward uses k * x**k: the local derivative of x**k is k * x**(k - 1)",
    ("**", "no_k"): "`**`'s backward leaves out the factor k: d(x**k)/dx = k * x**(k - 1)",
    ("+", "self_grad"): "`+`'s backward gives other self.grad, all that self has gathered so far, instead of "
    "out.grad: each rule passes on the gradient of its own result (the chain rule)",
    ("**", "abs_base"): "`**`'s backward uses abs(x) ** (k - 1): for a negative base x ** (k - 1) keeps its sign, "
    "and so must the gradient, k * x**(k - 1) * out.grad",
    ("**", "precedence"): "`**`'s backward computes k * x**k - 1 * out.grad, the parentheses left out: the local "
    "derivative of x**k is k * x**(k - 1), times out.grad",
    ("exp", "input"): "`exp`'s backward multiplies by x, its input: the local derivative of exp is exp(x), its output",
    (
        "log",
        "output",
    ): "`log`'s backward divides by log(x), its output: the local derivative of log is 1/x, x being its input",
    ("log", "times_input"): "`log`'s backward multiplies by x instead of dividing: the local derivative of log is 1/x",
    ("tanh", "input"): "`tanh`'s backward uses 1 - x**2 with x its input: the local derivative of tanh is 1 - t**2 "
    "with t = tanh(x), its output",
    ("tanh", "output"): "`tanh`'s backward multiplies by t = tanh(x): the local derivative of tanh is 1 - t**2",
    (
        "tanh",
        "one_minus_t",
    ): "`tanh`'s backward multiplies by 1 - t, the square forgotten: the local derivative of tanh is 1 - t**2",
    ("sigmoid", "one_minus_s"): "`sigmoid`'s backward multiplies by 1 - s alone: the local derivative of sigmoid is "
    "s * (1 - s)",
    ("relu", "compares_product"): "`relu`'s backward computes out.grad * x > 0, which compares the product with 0 "
    "(a 0 or a 1): the local derivative of relu is the mask (x > 0), times out.grad: out.grad * (x > 0)",
    ("tanh", "parentheses_grad_first"): "`tanh`'s backward computes out.grad * 1 - t**2, the parentheses left out: "
    "the local derivative of tanh is 1 - t**2, times out.grad: out.grad * (1 - t**2)",
    ("tanh", "parentheses_grad_last"): "`tanh`'s backward computes 1 - t**2 * out.grad, the parentheses left out: "
    "the local derivative of tanh is 1 - t**2, times out.grad: (1 - t**2) * out.grad",
    ("sigmoid", "parentheses_grad_first"): "`sigmoid`'s backward computes out.grad * s * 1 - s, the parentheses left "
    "out: the local derivative of sigmoid is s * (1 - s), times out.grad: out.grad * s * (1 - s)",
    ("*", "output"): "`*`'s backward multiplies by its output a*b: the local derivative of a*b with respect to a is b, "
    "and with respect to b is a",
    ("sigmoid", "input"): "`sigmoid`'s backward uses x * (1 - x) with x its input: the local derivative of sigmoid "
    "is s * (1 - s) with s = sigmoid(x), its output",
    ("sigmoid", "output"): "`sigmoid`'s backward multiplies by s = sigmoid(x) alone: the local derivative of sigmoid "
    "is s * (1 - s)",
    ("relu", "output"): "`relu`'s backward multiplies by its output relu(x): the local derivative of relu is 1 where "
    "x > 0 and 0 elsewhere",
    ("relu", "at_zero"): "`relu`'s backward passes the gradient at x = 0: the local derivative of relu is 0 there "
    "(pass it only where x > 0)",
    ("sum", "no_expand"): "`sum`'s backward broadcasts `out.grad` without putting the summed axes back "
    "(np.expand_dims), so it lands along the wrong axis",
    ("sum", "expand_last"): "`sum`'s backward puts the summed axis back at the end (np.expand_dims(g, -1)) "
    "instead of where it was summed",
    ("mean", "no_expand"): "`mean`'s backward broadcasts `out.grad` without putting the summed axes back "
    "(np.expand_dims), so it lands along the wrong axis",
    ("mean", "no_count"): "`mean`'s backward leaves out the factor 1/N",
    ("@", "no_transpose"): "`@`'s backward leaves out a transpose: for C = A @ B, dA = dC @ B^T and dB = A^T @ dC",
    ("transpose", "dot_T"): "`transpose`'s backward uses .T, which reverses every axis: swap back the same two axes",
}
_GRAPH = {
    "not_reversed": "backward() runs the steps inputs-first: run them in reverse topological order, each node "
    "after every node that uses it",
    "pre_order": "backward() lists a node before visiting its inputs (pre-order), which is not a topological "
    "order: list it after its inputs, then run the list reversed",
    "breadth_first": "backward() walks the graph breadth-first from the output, which is not a topological order: "
    "a node's step ran before every node using it had added into its gradient",
    "no_visited": "backward() runs a shared node's step once per path to it (no visited set): each node must run "
    "exactly once",
    "no_seed": "backward() does not seed the output's gradient with 1 before running the steps",
    "reset_after_seed": "backward() resets the output's gradient to zero after seeding it",
    "seed_after_steps": "backward() seeds the output's gradient with 1 only after running the steps: seed it first",
    "ones_seed": "backward() seeds the output's gradient with ones instead of the `grad` it was given",
    "no_reset": "backward() does not reset intermediate gradients to zero at the start of each call, so a second "
    "call counts the first again",
    "reset_leaves": "backward() resets the leaves' gradients too: only intermediate gradients are reset, a leaf's "
    "gradient accumulates across calls",
    "output_not_reset": "backward() resets every intermediate gradient but the output's, whose seed then adds up "
    "across calls: the output's gradient is reset too (to its seed)",
    "reset_inverted": "backward() resets the leaves' gradients and not the intermediates': the other way round, a "
    "leaf's gradient accumulates across calls and an intermediate's starts from zero on each",
}
_FORWARD = {
    ("rsub", "swapped"): "`2.0 - x` (__rsub__) computes x - 2.0: a reflected operator gets the number as `other`, "
    "so it is other - self",
    ("rtruediv", "swapped"): "`2.0 / x` (__rtruediv__) computes x / 2.0: a reflected operator gets the number as "
    "`other`, so it is other / self",
    ("transpose", "dot_T"): "`transpose` uses .T, which reverses every axis: swap exactly the two axes it is given",
    ("transpose", "last_two"): "`transpose(axis1, axis2)` always swaps the last two axes: swap the two it is given",
    ("transpose", "first_two"): "`transpose()` swaps axes 0 and 1 by default: its defaults are the last two "
    "(axis1=-2, axis2=-1)",
    ("mean", "total_size"): "`mean` divides by the size of the whole tensor: the factor 1/N counts only the entries "
    "it averages",
    ("mean", "last_axis"): "`mean` over several axes divides by the size of one of them: the factor 1/N counts "
    "every averaged axis (multiply their sizes)",
    ("mean", "len_data"): "`mean()` over every axis divides by len(data), the first axis's length: the factor 1/N "
    "counts every entry (data.size)",
    ("**", "abs_base"): "`**` computes abs(x) ** k: an odd power of a negative base keeps its sign, as x ** k does",
    ("tanh", "exp_overflow"): "`tanh` is computed from e**2x (or from sinh and cosh), which overflows far from 0: "
    "inf / inf is nan; np.tanh (math.tanh) never overflows",
    ("tanh", "denominator_sign"): "`tanh` computes (e**x - e**-x) / (e**x - e**-x), which is always 1: the "
    "denominator's sign is +, e**x + e**-x",
    ("mean", "no_count"): "`mean` does not divide by N (the factor 1/N)",
    ("mean", "times_count"): "`mean` multiplies by N instead of dividing by it (the factor 1/N)",
    ("sigmoid", "exp_sign"): "`sigmoid` computes 1 / (1 + e**x): the sign of the exponent is lost, it is "
    "1 / (1 + e**-x)",
    ("sum", "no_keepdims"): "`sum` ignores keepdims=True: the summed axes must stay, with size 1",
    ("mean", "no_keepdims"): "`mean` ignores keepdims=True: the summed axes must stay, with size 1",
    ("sum", "keepdims_default"): "`sum` keeps the summed axes by default: keepdims defaults to False, so sum() "
    "of a matrix is a 0-d tensor",
    ("sum", "axis_default_0"): "`sum()` with no axis sums axis 0 alone: axis=None, its default, makes every axis a "
    "summed axis",
    ("sum", "every_axis"): "`sum` ignores its `axis` and sums every entry: the summed axes are only the ones it is "
    "given (all of them for axis=None)",
}


# -- comparing numbers ----------------------------------------------------------------------
def _same(a, b) -> bool:
    """np.allclose(a, b) with MATCH_RTOL, and MATCH_ATOL scaled by b's largest entry, for finite numbers of one
    shape; written out, as a diagnosis makes thousands of these comparisons of small arrays, where np.allclose's
    own checks cost ten times the arithmetic."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return False
    if not b.size:
        return True
    magnitude = np.abs(b)
    atol = MATCH_ATOL * max(1.0, float(magnitude.max()))
    return bool((np.abs(a - b) <= atol + MATCH_RTOL * magnitude).all())


def _same_or_both_nan(a, b) -> bool:
    """_same, where a nan (or an infinity) in one is matched by the same in the other: a forward value that
    overflowed is evidence of how it was computed (a gradient's nan is not: too many bugs give one)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    finite = np.isfinite(b)
    if not np.array_equal(a[~finite], b[~finite], equal_nan=True):
        return False
    return _same(a[finite], b[finite])


def _all_same(xs, ys) -> bool:
    return len(xs) == len(ys) and all(_same(x, y) for x, y in zip(xs, ys, strict=True))


# -- wording what matched ----------------------------------------------------------------------
def _merge(matches: list[Fault]) -> list[Fault]:
    """One fault per (op, variant): the same bug in either operand's line reads as one."""
    merged = {}
    for fault in matches:
        key = (fault.op, fault.variant, fault.forward)
        merged[key] = fault if key not in merged else Fault(fault.op, fault.variant, fault.kind, None, fault.forward)
    return list(merged.values())


def _clauses(matches: list[Fault]) -> list[str]:
    variants = {(f.op, f.variant) for f in matches}
    clauses = []
    for fault in matches:
        if (fault.op, fault.variant) == ("backward", "reset_after_seed") and ("backward", "no_seed") in variants:
            continue  # said with no_seed, below
        clause = describe(fault)
        if (fault.op, fault.variant) == ("backward", "no_seed") and ("backward", "reset_after_seed") in variants:
            clause = (
                "backward() does not seed the output's gradient with 1 before running the steps, or resets it to "
                "zero after seeding it"
            )
        clauses.append(clause)
    return clauses


def word(matches: list[Fault], what: str = "your gradients are") -> str:
    """The hint for the faults that fit: each named, or, if they are too many, what they share,
    or that the kit cannot tell."""
    matches = _merge(matches)
    clauses = _clauses(matches)
    if len(clauses) <= 3:
        text = f"{what} exactly what you get when " + ", or when ".join(clauses)
        if len(bugs.named_in(text)) <= 2:
            return text
    kinds = sorted({f.kind for f in matches}, key=list(bugs.BUGS).index)
    if len(kinds) <= 2:
        labels = []
        for kind in kinds:
            ops = sorted({OPS.get(f.op, f"`{f.op}`") for f in matches if f.kind == kind and f.op != "backward"})
            labels.append(bugs.BUGS[kind].label + (f" (in {' or '.join(ops)})" if ops else ""))
        text = f"{what} exactly what one of several bugs gives, the kit cannot tell which: {', or '.join(labels)}"
        if len(bugs.named_in(text)) <= 2:
            return text
    return ""


# -- gradients --------------------------------------------------------------------------------
_COMPOSED = Setting(None, (("neg", "mul"), ("sub", "add_neg"), ("div", "mul_pow"), ("mean", "sum_mul")))


def _catalogue(f, inputs, seed, calls, constants, computation):
    """(faults worth trying on ``f``, its correct outcome, its Run); None if the kit cannot run ``f``.
    Kept for the process under ``computation``'s name, as the search's outcomes are (``_outcome``)."""
    key = None if computation is None else (computation, constants)
    if key is not None and key in _CATALOGUES:
        return _CATALOGUES.get(key)
    found = _search_catalogue(f, inputs, seed, calls, constants)
    if key is not None:
        _CATALOGUES.put(key, found)
    return found


def _search_catalogue(f, inputs, seed, calls, constants):
    try:
        correct, state = faults.run(f, inputs, seed=seed, calls=calls)
        _, composed = faults.run(f, inputs, _COMPOSED, seed=seed, calls=calls)
    except Exception:  # a computation this engine does not model: no diagnosis, not an error
        return None
    if correct.value is None:
        return None
    state.ops.update(composed.ops)
    seeded = seed is not None and not np.all(np.asarray(seed) == 1.0)
    found = faults.rule_faults(state, constants=constants) + faults.graph_faults(seeded=seeded, calls=calls)
    return found, correct, state


def explain_gradients(
    f, inputs, got, *, seed=None, output_grad=None, probe_grads=None, calls: int = 1, constants: bool = True, also=()
) -> str:
    """A hint naming the bug that gives exactly the gradients ``got`` (one per input) for ``f``
    at ``inputs``, or what the shape of the error says, or "" when the kit has nothing to say.

    ``output_grad``, the output's own gradient if it could be read, settles between bugs that
    give the inputs the same numbers (an unseeded output, say, from steps run out of order);
    so do ``probe_grads``, the gradients of the intermediates ``f`` returns after its output
    (``f`` may return ``(out, u, s)``), when the test could read them.
    ``calls``: how many times backward() ran. ``constants``: whether the engine has constants
    (Tensor's requires_grad), whose tests can be wrong. ``also``: more of the same engine's
    numbers from the same test, ``(f, inputs, got)`` each (right or wrong), that the bug must
    give too: one number alone fits too many bugs."""
    got = [np.asarray(g, dtype=np.float64) for g in got]
    computation = _computation(f, inputs, seed, calls)
    catalogue = _catalogue(f, inputs, seed, calls, constants, computation)
    if catalogue is None:
        return ""
    candidates, correct, state = catalogue
    if any(g.shape != c.shape for g, c in zip(got, correct.grads, strict=True)):
        return ""
    matches, runs = [], 0
    for fault in candidates:
        for setting in faults.settings(fault, state):
            runs += 1
            if runs > MAX_RUNS:  # a computation too big to search: saying less beats saying it wrong
                return ""
            outcome = _outcome(f, inputs, setting, seed, calls, computation)
            if outcome is None or _all_same(outcome.grads, correct.grads):
                continue  # a bug that changes nothing here explains nothing
            if _all_same(outcome.grads, got) and all(_gives(g, xs, ys, setting, calls) for g, xs, ys in also):
                theirs = [outcome.output_grad] if output_grad is not None else []
                matches.append((fault, theirs + (outcome.probe_grads if probe_grads else [])))
                break
    seen = ([output_grad] if output_grad is not None else []) + list(probe_grads or [])
    if matches and seen:
        agreeing = [fault for fault, theirs in matches if _all_same(theirs, seen)]
        matches = agreeing or [fault for fault, _ in matches]
    else:
        matches = [fault for fault, _ in matches]
    if matches:
        return word(matches) or _cannot_tell(got, correct.grads)
    return _shape_of_error(got, correct.grads)


def _computation(f, inputs, seed, calls):
    """The name the search's results for ``f`` at ``inputs`` are kept under (grader.testing.memo), or None."""
    return memo.name(("diagnosis", f, inputs, seed, calls))


def _outcome(f, inputs, setting, seed, calls, computation) -> faults.Outcome | None:
    """What ``f`` gives under ``setting``; None if the fault makes it fail (then it is not this fault). Kept
    for the process under ``computation`` (unless None): it depends on the kit's computation alone, and the
    next submission that fails the same check searches the same settings."""
    key = None if computation is None else (computation, setting)
    if key is not None and key in _OUTCOMES:
        return _OUTCOMES.get(key)
    try:
        outcome, _ = faults.run(f, inputs, setting, seed=seed, calls=calls)
    except Exception:  # Unsupported, or an error the injected bug causes
        outcome = None
    if outcome is not None and outcome.value is None:
        outcome = None
    if key is not None:
        _OUTCOMES.put(key, outcome)
    return outcome


def _gives(f, inputs, got, setting, calls) -> bool:
    """Whether ``f`` under ``setting`` gives exactly the gradients ``got``."""
    outcome = _outcome(f, inputs, setting, None, calls, _computation(f, inputs, None, calls))
    return outcome is not None and _all_same(outcome.grads, [np.asarray(g, dtype=np.float64) for g in got])


def _cannot_tell(got: list, right: list) -> str:
    zeros = all(np.allclose(g, 0.0) for g in got) and not all(np.allclose(e, 0.0) for e in right)
    return f"no gradient reached the inputs (every entry is 0): {CANNOT_TELL}" if zeros else CANNOT_TELL


def _shape_of_error(got: list, right: list) -> str:
    """What the first wrong input's gradient has in common with the right one, when no bug fits."""
    for g, e in zip(got, right, strict=True):
        if _same(g, e):
            continue
        if not np.all(np.isfinite(g)):
            return "the gradient has inf or nan entries where the right one is finite"
        scale = float(np.max(np.abs(e))) if e.size else 0.0
        if scale > 0 and float(np.max(np.abs(g - e))) <= 1e-3 * scale:
            return (
                "the gradient is close to the right one but not within the check's tolerance: a precision problem "
                "(float32, or a numerical derivative), not a wrong rule"
            )
        if scale > 0 and _same(g, -e):
            return "the gradient is exactly the negative of the right one: a rule it passes through has the wrong sign"
        nonzero = np.abs(e) > 1e-6 * max(scale, 1e-300)
        if nonzero.any() and scale > 0:
            ratios = g[nonzero] / e[nonzero]
            r = float(ratios.flat[0])
            consistent = np.allclose(ratios, r, rtol=1e-6) and np.allclose(g[~nonzero], 0.0, atol=1e-12)
            if consistent and (ratios.size >= 2 or _simple(r)) and not np.isclose(r, 1.0):
                return f"the gradient is exactly {r:.4g} times the right one: a missing or extra factor"
        if g.ndim >= 2 and g.shape[-1] == g.shape[-2] and _same(np.swapaxes(g, -1, -2), e):
            return "the gradient is the transpose of the right one: check which matrix is transposed"
        if scale > 0 and np.allclose(g, 0.0):
            return "no gradient reached this input (every entry is 0), and the kit cannot tell which bug stopped it"
        return ""
    return ""


def _simple(r: float) -> bool:
    """A ratio a lone number could not hit by chance: an integer or the reciprocal of one, up to 10."""
    return any(np.isclose(abs(r), n, rtol=1e-6) or np.isclose(abs(r), 1.0 / n, rtol=1e-6) for n in range(2, 11))


# -- the forward value --------------------------------------------------------------------------
def explain_forward(f, inputs, got) -> str:
    """A hint naming the forward bug that gives exactly the value ``got``, or ""."""
    try:
        right, state = faults.run(f, inputs, backward=False)
    except Exception:
        return ""
    matches = []
    for fault in faults.forward_faults(state):
        try:
            outcome, _ = faults.run(f, inputs, Setting(fault), backward=False)
        except Exception:
            continue
        if outcome.value is None or _same_or_both_nan(outcome.value, right.value):
            continue  # a bug that changes nothing here explains nothing (a value a hair off the right one)
        if _same_or_both_nan(got, outcome.value):
            matches.append(fault)
    return word(matches, "your result is") if matches else ""


def last_operation(f, inputs) -> str:
    """The operation whose result ``f`` returns, as a hint names it ("`sum`"), or ""."""
    try:
        _, state = faults.run(f, inputs, backward=False)
    except Exception:
        return ""
    return OPS.get(state.called[-1], "") if state.called else ""


def plain_operands(f, inputs) -> set[str]:
    """The operations ``f`` gives a plain number or array as an operand (and `reshape` one tuple)."""
    try:
        _, state = faults.run(f, inputs, backward=False)
    except Exception:
        return set()
    return set(state.plain)


# -- an exception from the code under test --------------------------------------------------
_METHODS = {
    "__add__": "+",
    "__radd__": "+",
    "__sub__": "-",
    "__rsub__": "-",
    "__mul__": "*",
    "__rmul__": "*",
    "__truediv__": "/",
    "__rtruediv__": "/",
    "__neg__": "neg",
    "__pow__": "**",
    "__matmul__": "@",
    "__rmatmul__": "@",
    **{name: name for name in ("exp", "log", "tanh", "relu", "sigmoid", "sum", "mean", "reshape", "transpose")},
}
_SHAPE_WORDS = ("broadcast", "shape", "dimension", "mismatch")
# The rules whose local derivative has no division: a ZeroDivisionError in one is a rule written with one.
_DIVIDES_BY_NOTHING = {"+", "-", "*", "**", "neg", "exp", "tanh", "relu", "sigmoid"}
_REFLECTED = {"__radd__": "`2.0 + x`", "__rsub__": "`2.0 - x`", "__rmul__": "`2.0 * x`", "__rtruediv__": "`2.0 / x`"}
_REFLECTED_SIGN = {"__radd__": "+", "__rsub__": "-", "__rmul__": "*", "__rtruediv__": "/"}


def explain_error(type_name: str, message: str, functions: tuple[str, ...], plain: set[str] = frozenset()) -> str:
    """A hint for an exception the code under test raised; ``functions``: the qualified names of its
    functions the exception passed through, innermost first (``Tensor.__matmul__.<locals>.backward``);
    ``plain``: the operations the computation gave a plain number or array (see plain_operands). ""
    when the kit has nothing to say.

    It is read where it was raised; when that is a helper of the code's own (a function that adds
    into a gradient, say), in the backward rule that called it, if one did."""
    functions = tuple(functions) or ("",)
    if type_name == "RecursionError":
        cycle = _operators_calling_each_other(functions)
        if cycle:
            return cycle
    hint = _explain_error_in(type_name, message, functions, 0, plain)
    if hint or _known(functions[0]):
        return hint
    known = next((i for i in range(1, len(functions)) if _known(functions[i])), None)
    if known is None or not _is_rule(functions, known):
        return ""
    return _explain_error_in(type_name, message, functions, known, plain)


_COMPREHENSIONS = ("<genexpr>", "<listcomp>", "<setcomp>", "<dictcomp>")


def _parts(function: str) -> list[str]:
    """The qualified name's parts, a comprehension read as the function it is written in."""
    parts = function.split(".")
    while len(parts) > 2 and parts[-1] in _COMPREHENSIONS and parts[-2] == "<locals>":
        parts = parts[:-2]
    return parts


def _is_rule(functions: tuple[str, ...], i: int) -> bool:
    """Whether ``functions[i]`` is a backward rule: a function (or a lambda) defined inside an operation,
    called by something else than that operation (backward()'s loop); one the operation calls itself is
    a helper of its forward computation."""
    parts = _parts(functions[i])
    if "<locals>" not in parts or parts[-1] in _METHODS:
        return False
    caller = next((_parts(f) for f in functions[i + 1 :] if _parts(f) != parts), None)
    return caller != parts[:-2]


def _known(function: str) -> bool:
    """A function the diagnosis can read: an operation, a rule or a lambda in one, or _unbroadcast."""
    parts = _parts(function)
    return "<locals>" in parts or parts[-1] == "_unbroadcast" or any(p in _METHODS for p in parts)


def _operators_calling_each_other(functions: tuple[str, ...]) -> str:
    """The words for a recursion through two operations or more (-x as 0 - x while 0 - x is -x + 0), where
    the functions an error passed through are operations, forward passes alone, none of them a rule or a sort;
    "" otherwise (one operation calling itself is the reflected-operator case, read where it was raised)."""
    names = [_parts(f) for f in functions if f]
    while names and names[0][-1] not in _METHODS:  # where the limit struck: a constructor, a helper they call
        names.pop(0)
    if len(names) < 2 or any(len(p) != 2 or p[-1] not in _METHODS for p in names):
        return ""
    seen = list(dict.fromkeys(p[-1] for p in names))
    if len(seen) < 2:
        return ""
    said = " and ".join(f"`{m}`" for m in seen)
    return (
        f"{said} call each other, a recursion without end: one of them must build its result from the data (a "
        "node of its own), not through the other"
    )


def _explain_error_in(type_name: str, message: str, functions: tuple[str, ...], i: int, plain: set[str]) -> str:
    parts = _parts(functions[i])
    in_backward = _is_rule(functions, i)
    method = next((p for p in parts if p in _METHODS), "")
    op = _METHODS.get(method, "")
    shape_error = any(w in message for w in _SHAPE_WORDS)
    if type_name == "RecursionError" and method in _REFLECTED:
        return (
            f"{_REFLECTED[method]} ({method}) calls itself: when `other` is a number, "
            f"`other {_REFLECTED_SIGN[method]} self` comes straight back to the reflected operator; wrap it first"
        )
    if type_name == "RecursionError":
        return (
            "recursion deeper than Python allows: a graph thousands of nodes deep needs a topological sort "
            "with an explicit stack, not a recursive function"
        )
    if parts[-2:] == ["Tensor", "backward"] and shape_error:  # backward() itself, not a rule it ran
        return (
            "backward() itself raised about a shape: the seed it makes for a single-element output has the output's "
            "own shape (np.ones_like(self.data), () for a 0-d loss), and so does every gradient it starts"
        )
    if "'NoneType'" in message and ("has no attribute" in message or "unsupported operand" in message):
        return "an operation returned None instead of its result: does each one end with `return out`?"
    if parts[-1] == "_unbroadcast" or (in_backward and op in ("+", "-", "*", "/") and shape_error):
        where = f"{OPS[op]}'s backward" if op else "_unbroadcast"
        return (
            f"{where} raised a shape error: a broadcast operand's gradient must be summed back to that operand's "
            "shape (unbroadcast: first the extra leading axes, then the stretched size-1 ones)"
        )
    if in_backward and op == "@":
        if "core dimension" in message:
            return (
                "`@`'s backward multiplied matrices whose shapes do not fit: a missing or misplaced transpose "
                "(for C = A @ B, dA = dC @ B^T and dB = A^T @ dC; swap the last two axes, .T reverses them all)"
            )
        if shape_error:
            return (
                "`@`'s backward raised a shape error: a weight shared across a batch gets its gradient summed over "
                "the batch axes (unbroadcast)"
            )
    if in_backward and type_name == "ZeroDivisionError" and op in _DIVIDES_BY_NOTHING:
        return (
            f"{OPS[op]}'s backward divided by zero: the local derivative of {OPS[op]} divides by no input (written "
            "as out.data / x, it fails where x = 0, where the derivative itself is fine)"
        )
    if in_backward and op in ("sum", "mean"):
        return (
            f"{OPS[op]}'s backward raised: put the summed axes back (np.expand_dims(out.grad, axes), unless "
            "keepdims kept them) before broadcasting to the input's shape"
        )
    if in_backward and op == "reshape":
        return "`reshape`'s backward must reshape the gradient back to the input's shape"
    if in_backward and op == "transpose":
        return (
            "`transpose`'s backward must swap back the same two axes (np.swapaxes(g, axis1, axis2)); "
            ".T reverses them all"
        )
    if not in_backward and op == "reshape" and "reshape" in plain and "tuple" in message:
        return (
            "`reshape` was given one tuple, as in reshape((4, 3)): it must also accept one tuple, "
            "not only reshape(4, 3)"
        )
    if not in_backward and op in _BINARY | {"**"} and op in plain:
        wrap = "Value(other)" if "Value" in parts else "Tensor._lift"  # the handout's way, engine by engine
        return (
            f"{OPS[op]} raised when one operand is a plain number or an array: wrap it as a constant "
            f"({wrap}) instead of refusing it"
        )
    return ""


def function_op(function: str) -> str:
    """The operation a qualified name belongs to, as a hint names it, or ""."""
    method = next((p for p in function.split(".") if p in _METHODS), "")
    return OPS.get(_METHODS.get(method, ""), "")

"""Fault models: an analytic reverse-mode engine of the handout's API that can run a
computation with one classic bug injected, so that a diagnosis can ask "which bug gives
exactly the student's numbers?".

It never grades anything: expected gradients stay numerical (spec.py, numeric.py). This
engine only runs after a check has failed, on the check's own tiny inputs, and its
answers are compared with what the student's engine computed (grader.testing.diagnosis).

One ``Node`` class serves both engines of a lab: a Value is a 0-d array here. A bug is a
``Fault``: where it is (an operation, or ``backward`` for the graph walk), what it does
(its ``variant``), which operand's rule it is in, and the kind of bug it models (a key of
grader.testing.bugs.BUGS). How a student composes the derived operations (``a - b`` as
its own rule or as ``a + (-b)``, ``2.0 * x`` as ``x * 2.0`` or the other way round) and
which way their depth-first search takes a node's parents change what a bug does to the
numbers, so a fault is tried under each ``Setting`` that could matter.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Fault:
    op: str  # the operation whose code holds the bug ("*", "exp", "sum", ...), or "backward"
    variant: str  # what the bug does, e.g. "overwrite", "sign", "output", "not_reversed"
    kind: str  # the kind of bug (grader.testing.bugs.BUGS)
    operand: int | None = None  # for a backward rule: which operand's line (0: self, 1: other)
    forward: bool = False  # the bug changes the forward value (found from the result, not the gradients)


# -- the rule faults every operation's backward can have, and the ones particular to one ------
# (variant, kind); every operand of every operation may have these.
COMMON_RULE_FAULTS = (
    ("overwrite", "overwrite"),  # `=` instead of `+=`
    ("sign", "sign"),  # the contribution negated
    ("chain", "chain_rule"),  # out.grad left out
    ("data_for_grad", "data_for_grad"),  # out.data used where out.grad belongs
)
# op -> ((variant, operand, kind), ...): the local derivatives students get wrong, op by op.
SPECIFIC_RULE_FAULTS = {
    "*": (
        ("own", 0, "other_operand"),
        ("own", 1, "other_operand"),
        ("output", 0, "derivative"),
        ("output", 1, "derivative"),
        ("guard", 0, "guard"),
        ("guard", 1, "guard"),
    ),
    # other.grad += self.grad, the line above it copied: what self has gathered, not out.grad
    "+": (("guard", 0, "guard"), ("guard", 1, "guard"), ("self_grad", 1, "chain_rule")),
    "-": (("guard", 0, "guard"), ("guard", 1, "guard")),
    "/": (("square_forgotten", 1, "derivative"),),
    "**": (
        ("not_decremented", 0, "derivative"),
        ("no_k", 0, "factor"),
        ("precedence", 0, "derivative"),
        ("abs_base", 0, "sign"),  # abs(x) ** (k - 1), written to avoid nan for a negative base
    ),
    "exp": (("input", 0, "derivative"),),
    "log": (("output", 0, "derivative"), ("times_input", 0, "derivative")),
    "tanh": (
        ("input", 0, "derivative"),
        ("output", 0, "derivative"),
        ("one_minus_t", 0, "derivative"),
        ("parentheses_grad_first", 0, "derivative"),
        ("parentheses_grad_last", 0, "derivative"),
    ),
    "sigmoid": (
        ("input", 0, "derivative"),
        ("output", 0, "derivative"),
        ("one_minus_s", 0, "derivative"),
        ("parentheses_grad_first", 0, "derivative"),
    ),
    "relu": (("output", 0, "derivative"), ("at_zero", 0, "derivative"), ("compares_product", 0, "derivative")),
    "sum": (("no_expand", 0, "axis"), ("expand_last", 0, "axis")),
    "mean": (("no_count", 0, "factor"), ("no_expand", 0, "axis")),
    "@": (("no_transpose", 0, "transpose"), ("no_transpose", 1, "transpose")),
    "transpose": (("dot_T", 0, "transpose"),),
}
# Bugs of the forward computation: (op, variant, kind).
FORWARD_FAULTS = (
    ("rsub", "swapped", "reflected"),
    ("rtruediv", "swapped", "reflected"),
    ("transpose", "dot_T", "transpose"),
    ("transpose", "last_two", "transpose"),
    ("transpose", "first_two", "transpose"),
    ("mean", "total_size", "factor"),
    ("mean", "last_axis", "factor"),
    ("mean", "len_data", "factor"),  # mean() as sum() / len(data): the first axis's length
    ("mean", "no_count", "factor"),
    ("mean", "times_count", "factor"),
    ("sigmoid", "exp_sign", "sign"),
    ("tanh", "exp_overflow", "stability"),  # (e**2x - 1) / (e**2x + 1), or sinh / cosh: nan far from 0
    ("tanh", "denominator_sign", "sign"),  # (e**x - e**-x) / (e**x - e**-x)
    ("**", "abs_base", "sign"),  # abs(x) ** k
    ("sum", "no_keepdims", "axis"),
    ("mean", "no_keepdims", "axis"),
    ("sum", "every_axis", "axis"),
    ("sum", "keepdims_default", "axis"),  # def sum(self, axis=None, keepdims=True)
    ("sum", "axis_default_0", "axis"),  # def sum(self, axis=0, ...)
)
# Bugs of backward() itself: (variant, kind, needs). needs: "" always, "seed" only with an
# explicit non-trivial seed, "calls" only when backward() ran more than once.
GRAPH_FAULTS = (
    ("not_reversed", "order", ""),
    ("pre_order", "order", ""),
    ("breadth_first", "order", ""),
    ("no_visited", "visited", ""),
    ("no_seed", "seed", ""),
    ("reset_after_seed", "seed", ""),
    ("seed_after_steps", "seed", ""),
    ("ones_seed", "seed", "seed"),
    ("no_reset", "reset", "calls"),
    ("reset_leaves", "reset", "calls"),
    ("reset_inverted", "reset", "calls"),  # `if not node._parents`: the leaves reset, the intermediates never
    ("output_not_reset", "reset", "calls"),  # `if node._parents and node is not self`: the output keeps counting
)

# How each derived operation may be written, the first being this engine's default.
COMPOSITIONS = {
    "neg": ("prim", "mul"),  # its own rule, or x * -1
    "sub": ("prim", "add_neg"),  # its own rule, or a + (-b)
    "div": ("prim", "mul_pow"),  # its own rule, or a * b**-1
    "radd": ("other_first", "self_first"),  # 2 + x as Tensor(2) + x, or x + 2
    "rmul": ("other_first", "self_first"),
    "mean": ("prim", "sum_mul", "sum_div"),  # its own rule, sum * (1/N), or sum / N
}
# The primitive operations each way of writing a derived one goes through.
_USES = {
    ("neg", "mul"): {"*"},
    ("sub", "add_neg"): {"+", "neg"},
    ("div", "mul_pow"): {"*", "**"},
    ("mean", "sum_mul"): {"sum", "*"},
    ("mean", "sum_div"): {"sum", "/"},
}
_DERIVED_OP = {"neg": "neg", "sub": "-", "div": "/", "radd": "+", "rmul": "*", "mean": "mean"}
_DERIVED_OF = {"neg": "neg", "/": "div"}  # the primitives of a composition that are themselves derived

MAX_NODES = 20_000  # a walk without a visited set grows with the number of paths: give up beyond this


@dataclass(frozen=True)
class Setting:
    """One way of running a computation: the fault, the compositions, the search's direction."""

    fault: Fault | None = None
    compose: tuple = ()  # ((derived op, how), ...)
    parents_reversed: bool = False

    def how(self, derived: str) -> str:
        return dict(self.compose).get(derived, COMPOSITIONS[derived][0])


class Unsupported(Exception):
    """The fault cannot be injected into this computation (shapes do not allow it, ...)."""


def _unbroadcast(grad, shape):
    """``grad`` summed down to ``shape``; Unsupported if a faulty rule made that impossible."""
    grad = np.asarray(grad, dtype=np.float64)
    if grad.shape == shape:
        return grad
    if grad.ndim < len(shape):
        raise Unsupported("a gradient with fewer axes than its operand")
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    if grad.shape != shape:
        raise Unsupported("a gradient that does not reduce to its operand's shape")
    return grad


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    return tuple(int(a) % ndim for a in axis)


class Run:
    """The state of one computation under one Setting: which operations it used."""

    def __init__(self, setting: Setting):
        self.setting = setting
        self.fault = setting.fault
        self.ops: dict[str, int] = {}  # primitive op -> number of operands
        self.derived: set[str] = set()  # derived operations used (keys of COMPOSITIONS)
        self.reflected: set[str] = set()  # reflected operators used ("rsub", ...)
        self.plain: set[str] = set()  # ops given a plain number or array as an operand
        self.called: list[str] = []  # the public operations the computation called, in order

    def forward_fault(self, op: str, variant: str) -> bool:
        f = self.fault
        return f is not None and f.forward and f.op == op and f.variant == variant

    def lift(self, x, op):
        if isinstance(x, Node):
            return x
        self.plain.add(op)
        return Node(x, self, constant=True)

    # -- primitives: forward value, the rule, the op-specific wrong rules -------------------
    def primitive(self, op, inputs, data, local):
        """A node computed by ``op`` from ``inputs``; ``local(g, node, variant)`` gives every
        operand's contribution (before unbroadcasting) under the given variant of the rule."""
        self.ops[op] = len(inputs)
        f = self.fault
        if f is not None and not f.forward and f.op == op and f.variant == "detached":
            return Node(data, self)
        return Node(data, self, parents=tuple(inputs), op=op, local=local)

    def add(self, a, b):
        return self.primitive("+", [a, b], a.data + b.data, lambda g, n, v: [g, g])

    def sub(self, a, b):
        if self.setting.how("sub") == "add_neg":
            return self.add(a, self.neg(b))
        return self.primitive("-", [a, b], a.data - b.data, lambda g, n, v: [g, -g])

    def mul(self, a, b):
        def local(g, n, v):
            if v == "own":
                return [g * a.data, g * b.data]
            if v == "output":
                return [g * n.data, g * n.data]
            return [g * b.data, g * a.data]

        return self.primitive("*", [a, b], a.data * b.data, local)

    def div(self, a, b):
        if self.setting.how("div") == "mul_pow":
            return self.mul(a, self.pow(b, -1))

        def local(g, n, v):
            if v == "square_forgotten":
                return [g / b.data, -g * a.data / b.data]
            return [g / b.data, -g * a.data / b.data**2]

        return self.primitive("/", [a, b], a.data / b.data, local)

    def neg(self, a):
        if self.setting.how("neg") == "mul":
            return self.mul(a, Node(-1.0, self, constant=True))
        return self.primitive("neg", [a], -a.data, lambda g, n, v: [-g])

    def pow(self, a, k):
        def local(g, n, v):
            x = a.data
            if v == "not_decremented":
                return [k * x**k * g]
            if v == "no_k":
                return [x ** (k - 1) * g]
            if v == "precedence":  # k * x ** k - 1 * out.grad: the parentheses around k - 1 left out
                return [k * x**k - 1 * g]
            if v == "abs_base":
                return [k * np.abs(x) ** (k - 1) * g]
            return [k * x ** (k - 1) * g]

        base = np.abs(a.data) if self.forward_fault("**", "abs_base") else a.data
        return self.primitive("**", [a], base**k, local)

    def unary(self, op, a, data, derivative, wrong, slips=None):
        """An elementwise function: ``derivative(x, y)`` its local derivative, ``wrong`` the
        wrong ones students write, by variant; ``slips`` the rules whose parentheses were left out,
        by variant: what each passes on, from (out.grad, x, y)."""

        def local(g, n, v):
            if slips and v in slips:
                return [slips[v](g, a.data, n.data)]
            return [g * (wrong[v](a.data, n.data) if v in wrong else derivative)]

        return self.primitive(op, [a], data, local)

    def matmul(self, a, b):
        if a.data.ndim < 2 or b.data.ndim < 2:
            raise ValueError("@ needs operands with at least 2 axes")

        def local(g, n, v):
            swap_b, swap_a = np.swapaxes(b.data, -1, -2), np.swapaxes(a.data, -1, -2)
            if v == "no_transpose":
                swap_b, swap_a = b.data, a.data
            return [np.matmul(g, swap_b), np.matmul(swap_a, g)]

        return self.primitive("@", [a, b], np.matmul(a.data, b.data), local)

    def sum(self, a, axis, keepdims):
        if self.forward_fault("sum", "axis_default_0") and axis is None:
            axis = 0
        axes = _axes(None if self.forward_fault("sum", "every_axis") else axis, a.data.ndim)
        if self.forward_fault("sum", "no_keepdims"):
            keepdims = False
        if self.forward_fault("sum", "keepdims_default") and not keepdims:  # not given: the defaults look alike
            keepdims = True

        def local(g, n, v):
            if v == "no_expand":
                expanded = g
            elif v == "expand_last":
                expanded = np.expand_dims(g, -1) if not keepdims else g
            else:
                expanded = g if keepdims else np.expand_dims(g, axes)
            try:
                return [np.broadcast_to(expanded, a.data.shape)]
            except ValueError as exc:
                raise Unsupported(str(exc)) from None

        return self.primitive("sum", [a], a.data.sum(axis=axes, keepdims=keepdims), local)

    def mean(self, a, axis, keepdims):
        self.derived.add("mean")
        axes = _axes(axis, a.data.ndim)
        count = int(np.prod([a.data.shape[i] for i in axes])) if axes else 1
        if self.forward_fault("mean", "total_size"):
            count = a.data.size
        elif self.forward_fault("mean", "last_axis"):
            count = a.data.shape[axes[-1]] if axes else 1
        elif self.forward_fault("mean", "len_data") and axis is None and a.data.ndim:
            count = a.data.shape[0]
        elif self.forward_fault("mean", "no_count"):
            count = 1
        elif self.forward_fault("mean", "times_count"):
            count = 1.0 / count
        if self.forward_fault("mean", "no_keepdims"):
            keepdims = False
        how = self.setting.how("mean")
        if how == "sum_mul":
            return self.mul(self.sum(a, axes, keepdims), Node(1.0 / count, self, constant=True))
        if how == "sum_div":
            return self.div(self.sum(a, axes, keepdims), Node(float(count), self, constant=True))

        def local(g, n, v):
            expanded = g if keepdims or v == "no_expand" else np.expand_dims(g, axes)
            try:
                spread = np.broadcast_to(expanded, a.data.shape)
            except ValueError as exc:
                raise Unsupported(str(exc)) from None
            return [spread if v == "no_count" else spread / count]

        return self.primitive("mean", [a], a.data.sum(axis=axes, keepdims=keepdims) / count, local)

    def reshape(self, a, shape):
        return self.primitive("reshape", [a], a.data.reshape(shape), lambda g, n, v: [g.reshape(a.data.shape)])

    def transpose(self, a, axis1, axis2):
        if self.forward_fault("transpose", "dot_T"):
            return self.primitive("transpose", [a], a.data.T, lambda g, n, v: [g.T])
        if self.forward_fault("transpose", "last_two"):
            axis1, axis2 = -2, -1
        if self.forward_fault("transpose", "first_two"):
            axis1, axis2 = 0, 1

        def local(g, n, v):
            return [g.T if v == "dot_T" else np.swapaxes(g, axis1, axis2)]

        return self.primitive("transpose", [a], np.swapaxes(a.data, axis1, axis2), local)

    # -- backward(), with the graph faults ----------------------------------------------------
    def parents(self, node):
        return node.parents[::-1] if self.setting.parents_reversed else node.parents

    def order(self, out) -> list:
        """The nodes in the order their backward steps run (the output's first, when correct)."""
        variant = self.fault.variant if self.fault is not None and self.fault.op == "backward" else ""
        if variant == "breadth_first":
            order, seen, queue = [], {id(out)}, [out]
            while queue:
                node = queue.pop(0)
                order.append(node)
                for p in self.parents(node):
                    if id(p) not in seen:
                        seen.add(id(p))
                        queue.append(p)
            return order
        post, pre, seen = [], [], set()
        stack = [(out, False)]
        while stack:  # a depth-first search, as a recursive one would take the parents
            node, expanded = stack.pop()
            if expanded:
                post.append(node)
                continue
            if variant != "no_visited":
                if id(node) in seen:
                    continue
                seen.add(id(node))
            pre.append(node)
            if len(pre) > MAX_NODES:
                raise Unsupported("too many paths")
            stack.append((node, True))
            stack.extend((p, False) for p in reversed(self.parents(node)))
        if variant == "not_reversed":
            return post
        if variant == "pre_order":
            return pre[::-1]
        return post[::-1]

    def backward(self, out, seed):
        variant = self.fault.variant if self.fault is not None and self.fault.op == "backward" else ""
        order = self.order(out)
        unique = list({id(n): n for n in order}.values())
        if variant != "no_reset":
            for node in unique:
                if (variant == "reset_inverted" and node.parents) or (variant == "output_not_reset" and node is out):
                    continue
                if node.parents or variant in ("reset_leaves", "reset_inverted"):
                    node.grad = np.zeros(node.data.shape)
        if variant == "ones_seed":
            seed = np.ones(out.data.shape)
        if variant not in ("no_seed", "seed_after_steps"):
            out.grad = out.grad + seed
        if variant == "reset_after_seed":
            for node in unique:
                if node.parents:
                    node.grad = np.zeros(node.data.shape)
        for node in order:
            self.step(node)
        if variant == "seed_after_steps":
            out.grad = out.grad + seed

    def step(self, node):
        if not node.parents:
            return
        f = self.fault
        faulty = f is not None and not f.forward and f.op == node.op
        variant = f.variant if faulty else ""
        g = node.grad
        contributions = node.local(g, node, "")
        for i, parent in enumerate(node.parents):
            c, assign = contributions[i], False
            if faulty and f.operand in (None, i):
                if variant == "overwrite":
                    assign = True
                elif variant == "sign":
                    c = -c
                elif variant == "chain":
                    c = node.local(np.ones_like(g), node, "")[i]
                elif variant == "data_for_grad":
                    c = node.local(node.data, node, "")[i]
                elif variant == "guard":  # the operand's line is guarded by the other operand's test
                    if node.parents[1 - i].constant:
                        continue
                elif variant == "self_grad":  # self's line ran first: self.grad holds this contribution too
                    c = node.parents[0].grad
                else:
                    c = node.local(g, node, variant)[i]
            c = _unbroadcast(c, parent.data.shape)
            parent.grad = c.copy() if assign else parent.grad + c


def _public(name):
    """Record that the computation called the operation ``name`` (the last one called is the one
    whose result it returned)."""

    def wrap(method):
        @functools.wraps(method)
        def call(self, *args, **kwargs):
            self.run.called.append(name)
            return method(self, *args, **kwargs)

        return call

    return wrap


class Node:
    """The handout's Value and Tensor API, on float64 arrays, with an analytic backward()."""

    __array_ufunc__ = None  # so that ndarray + Node reaches __radd__, as for a Tensor

    def __init__(self, data, run: Run, parents=(), op="", local=None, constant=False):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros(self.data.shape)
        self.run = run
        self.parents = parents
        self.op = op
        self.local = local
        self.constant = constant

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @_public("+")
    def __add__(self, other):
        return self.run.add(self, self.run.lift(other, "+"))

    @_public("+")
    def __radd__(self, other):
        run = self.run
        run.derived.add("radd")
        other = run.lift(other, "+")
        return run.add(other, self) if run.setting.how("radd") == "other_first" else run.add(self, other)

    @_public("-")
    def __sub__(self, other):
        self.run.derived.add("sub")
        return self.run.sub(self, self.run.lift(other, "-"))

    @_public("-")
    def __rsub__(self, other):
        run = self.run
        run.derived.add("sub")
        run.reflected.add("rsub")
        other = run.lift(other, "-")
        return run.sub(self, other) if run.forward_fault("rsub", "swapped") else run.sub(other, self)

    @_public("*")
    def __mul__(self, other):
        return self.run.mul(self, self.run.lift(other, "*"))

    @_public("*")
    def __rmul__(self, other):
        run = self.run
        run.derived.add("rmul")
        other = run.lift(other, "*")
        return run.mul(other, self) if run.setting.how("rmul") == "other_first" else run.mul(self, other)

    @_public("/")
    def __truediv__(self, other):
        self.run.derived.add("div")
        return self.run.div(self, self.run.lift(other, "/"))

    @_public("/")
    def __rtruediv__(self, other):
        run = self.run
        run.derived.add("div")
        run.reflected.add("rtruediv")
        other = run.lift(other, "/")
        return run.div(self, other) if run.forward_fault("rtruediv", "swapped") else run.div(other, self)

    @_public("neg")
    def __neg__(self):
        self.run.derived.add("neg")
        return self.run.neg(self)

    @_public("**")
    def __pow__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError("only constant exponents")
        return self.run.pow(self, k)

    @_public("@")
    def __matmul__(self, other):
        return self.run.matmul(self, self.run.lift(other, "@"))

    @_public("@")
    def __rmatmul__(self, other):
        return self.run.matmul(self.run.lift(other, "@"), self)

    @_public("exp")
    def exp(self):
        y = np.exp(self.data)
        return self.run.unary("exp", self, y, np.exp(self.data), {"input": lambda x, y: x})

    @_public("log")
    def log(self):
        x = self.data
        return self.run.unary(
            "log", self, np.log(x), 1.0 / x, {"output": lambda x, y: 1.0 / y, "times_input": lambda x, y: x}
        )

    @_public("tanh")
    def tanh(self):
        x = self.data
        if self.run.forward_fault("tanh", "exp_overflow"):  # e**2x is inf beyond x = 355: inf / inf
            y = (np.exp(2.0 * x) - 1.0) / (np.exp(2.0 * x) + 1.0)
        elif self.run.forward_fault("tanh", "denominator_sign"):  # always 1
            y = (np.exp(x) - np.exp(-x)) / (np.exp(x) - np.exp(-x))
        else:
            y = np.tanh(x)
        wrong = {"input": lambda x, y: 1.0 - x * x, "output": lambda x, y: y, "one_minus_t": lambda x, y: 1.0 - y}
        slips = {  # grad * 1.0 - t * t, and 1.0 - t * t * out.grad
            "parentheses_grad_first": lambda g, x, y: g * 1.0 - y * y,
            "parentheses_grad_last": lambda g, x, y: 1.0 - y * y * g,
        }
        return self.run.unary("tanh", self, y, 1.0 - y * y, wrong, slips)

    @_public("relu")
    def relu(self):
        x = self.data
        y = np.where(x > 0, x, 0.0)
        wrong = {"output": lambda x, y: y, "at_zero": lambda x, y: (x >= 0).astype(np.float64)}
        slips = {"compares_product": lambda g, x, y: (g * x > 0).astype(np.float64)}  # grad * x > 0
        return self.run.unary("relu", self, y, (x > 0).astype(np.float64), wrong, slips)

    @_public("sigmoid")
    def sigmoid(self):
        sign = 1.0 if self.run.forward_fault("sigmoid", "exp_sign") else -1.0
        y = 1.0 / (1.0 + np.exp(sign * self.data))
        wrong = {"input": lambda x, y: x * (1.0 - x), "output": lambda x, y: y, "one_minus_s": lambda x, y: 1.0 - y}
        slips = {"parentheses_grad_first": lambda g, x, y: g * y * 1.0 - y}  # grad * s * 1.0 - s
        return self.run.unary("sigmoid", self, y, y * (1.0 - y), wrong, slips)

    @_public("sum")
    def sum(self, axis=None, keepdims=False):
        return self.run.sum(self, axis, keepdims)

    @_public("mean")
    def mean(self, axis=None, keepdims=False):
        return self.run.mean(self, axis, keepdims)

    @_public("reshape")
    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            self.run.plain.add("reshape")  # one tuple: the form some engines refuse
            shape = tuple(shape[0])
        return self.run.reshape(self, shape)

    @_public("transpose")
    def transpose(self, axis1=-2, axis2=-1):
        return self.run.transpose(self, axis1, axis2)

    def backward(self, grad=None):
        seed = np.ones(self.data.shape) if grad is None else np.array(grad, dtype=np.float64)
        self.run.backward(self, seed)


# -- running a computation ------------------------------------------------------------------


@dataclass
class Outcome:
    """What a computation gave under one Setting."""

    value: np.ndarray | None  # the forward value (None: the computation returned None)
    grads: list = field(default_factory=list)  # each input's gradient, after every call
    output_grad: np.ndarray | None = None
    probe_grads: list = field(default_factory=list)  # the gradients of the intermediates f returned


def run(f, inputs, setting: Setting = Setting(), *, seed=None, calls: int = 1, backward: bool = True) -> tuple:
    """(Outcome, Run): ``f`` on fresh leaves under ``setting``; raises what the computation raises.
    ``f`` returns its output, or a tuple of its output and intermediates whose gradients to report."""
    state = Run(setting)
    leaves = [Node(np.array(x, dtype=np.float64), state) for x in inputs]
    with np.errstate(all="ignore"):
        out, probes = f(*leaves), ()
        if isinstance(out, tuple):
            out, *probes = out
        if out is None:
            return Outcome(None), state
        if not isinstance(out, Node):
            raise Unsupported("the computation did not return a tensor")
        if backward:
            seed_array = np.ones(out.data.shape) if seed is None else np.array(seed, dtype=np.float64)
            for _ in range(calls):
                state.backward(out, seed_array)
    return Outcome(out.data, [leaf.grad for leaf in leaves], out.grad, [p.grad for p in probes]), state


def rule_faults(state: Run, *, constants: bool = True) -> list[Fault]:
    """Every backward-rule fault of the operations ``state`` saw, and each one built outside the
    graph; ``constants``: whether the engine marks constants (requires_grad), whose guards can be wrong."""
    faults = []
    for op, arity in state.ops.items():
        for operand in range(arity):
            faults += [Fault(op, variant, kind, operand) for variant, kind in COMMON_RULE_FAULTS]
        specific = SPECIFIC_RULE_FAULTS.get(op, ())
        faults += [Fault(op, v, kind, i) for v, i, kind in specific if constants or v != "guard"]
        faults.append(Fault(op, "detached", "detached"))
    return faults


def graph_faults(*, seeded: bool, calls: int) -> list[Fault]:
    needs = {"", *(["seed"] if seeded else []), *(["calls"] if calls > 1 else [])}
    return [Fault("backward", variant, kind) for variant, kind, need in GRAPH_FAULTS if need in needs]


def forward_faults(state: Run) -> list[Fault]:
    seen = set(state.ops) | state.reflected | state.derived
    return [Fault(op, variant, kind, forward=True) for op, variant, kind in FORWARD_FAULTS if op in seen]


def settings(fault: Fault, state: Run) -> list[Setting]:
    """The settings under which ``fault`` could give different numbers: the compositions of the
    derived operations that ``state`` used and that could route through the faulty operation,
    and both directions of the search where the order of the steps matters."""
    derived = _reachable(state.derived)
    relevant = sorted(d for d in derived if fault.op == "backward" or _could_use(d, fault.op))
    choices = [[(d, how) for how in COMPOSITIONS[d]] for d in relevant]
    order_matters = fault.op == "backward" or fault.variant == "overwrite"
    directions = (False, True) if order_matters else (False,)
    return [
        Setting(fault, tuple(combo), reversed_)
        for combo in itertools.product(*choices)
        for reversed_ in directions
        if _consistent(fault, dict(combo))
    ]


def _reachable(derived: set) -> set:
    """The derived operations a computation may reach: those it calls, and those their compositions
    call (``a - b`` as ``a + (-b)`` reaches unary minus, ``mean`` as ``sum / N`` reaches ``/``)."""
    reached, todo = set(), list(derived)
    while todo:
        d = todo.pop()
        if d in reached:
            continue
        reached.add(d)
        for (name, _), uses in _USES.items():
            if name == d:
                todo += [_DERIVED_OF[u] for u in uses if u in _DERIVED_OF]
    return reached


def _could_use(derived: str, op: str) -> bool:
    """Whether some way of writing ``derived`` runs the primitive ``op``'s rule."""
    if _DERIVED_OP[derived] == op:
        return True
    return any(
        op in uses or any(u in _DERIVED_OF and _could_use(_DERIVED_OF[u], op) for u in uses)
        for (d, _), uses in _USES.items()
        if d == derived
    )


def _consistent(fault: Fault, compose: dict) -> bool:
    """A bug in a derived operation's own rule needs that operation to have a rule of its own."""
    own = {"-": "sub", "/": "div", "neg": "neg", "mean": "mean"}.get(fault.op)
    return own is None or compose.get(own, COMPOSITIONS[own][0]) == "prim"

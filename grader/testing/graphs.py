"""Random computation graphs for the labs' engines, drawn by Hypothesis.

A graph is a list of operations over a few leaves; any node may be an operand of several later
ones (a shared subexpression, a leaf used in several places). It is written once as a function of
the engine API, so the kit's checker (grader.testing.gradients) runs it on the code under test and
on the trusted oracle of spec.py, and it renders as the expression a student can type.

Each operation takes the previous one's result, and a binary operation's other operand is any
earlier node: a leaf or a subexpression used again. Each operation is drawn only where the oracle
says it is well behaved on this graph's values:
log and division on numbers away from 0, relu away from its kink, exp on moderate numbers.
Hypothesis shrinks a failing graph towards fewer operations, so the message shows a small one.
"""

from __future__ import annotations

import gc
import signal
import threading
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from random import Random

import hypothesis
import numpy as np
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky, NoSuchExample

from grader import verdicts
from grader.testing import drawn_graphs
from grader.testing.checks import fail, show
from grader.testing.gradients import check_scalar_gradients, check_tensor_gradients, passes_every_check
from grader.testing.spec import SpecScalar, SpecTensor

LEAF_NAMES = "abcd"
# Far enough from relu's kink and log's pole that central differences stay exact to the checker's tolerance.
AWAY_FROM_ZERO = 0.2
EXP_LIMIT = 3.0
# Reproducible: the search starts from a fixed seed, so a run is the same in-process and behind the
# wall, and from one run to the next. Not derandomize=True: it seeds from the test's source, which the
# grading process may load from a copy Hypothesis cannot read, and falls back to the test's name, a
# different seed in each mode. And the strategies draw only small integers (small_integers).
GRAPH_SEED = 22
# Graphs shrinking may try after the first failure: Hypothesis's shrinker costs about 20 ms a graph
# here (a tensor graph drawn again), and would try hundreds.
SHRINK_BUDGET = 20
CODE_BASE = 64  # one operation's choices (Picker) are two digits in this base: 4096, more than any has
GRAPH_SETTINGS = settings(
    derandomize=False,
    database=None,
    deadline=None,
    max_examples=20,
    # No explain phase: after shrinking it tries hundreds of variations to say which parts of the
    # graph matter, seconds of a test's time limit for a sentence the message does not show.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)

# Scalar graphs cost little: more of them find a bug that needs a rarer pattern (f(u) * u for each f).
SCALAR_GRAPH_SETTINGS = settings(GRAPH_SETTINGS, max_examples=40)


@dataclass
class Graph:
    """Leaves (their values) and operations: ``(text, apply)`` where ``text`` formats the operands'
    names and ``apply`` maps the operand objects to the result; node i >= len(leaves) is operation i - len(leaves)."""

    leaves: list
    operations: list = field(default_factory=list)  # (template, operand indices, apply)
    values: list = field(default_factory=list)  # the oracle's value of every node, leaves first
    draws: list = field(default_factory=list)  # what its builder drew, in order: enough to build it again

    def __call__(self, *inputs):
        nodes = list(inputs)
        for _, operands, apply in self.operations:
            nodes.append(apply(*[nodes[i] for i in operands]))
        return nodes[-1]

    @property
    def size(self) -> int:
        return len(self.operations)

    def complexity(self) -> tuple:
        """What makes a graph harder to read: its operations, then its leaves and their numbers."""
        numbers = sum(np.size(leaf) for leaf in self.leaves)
        return (self.size, len(self.leaves), numbers, sum(float(np.abs(leaf).sum()) for leaf in self.leaves))

    def expression(self) -> str:
        """The graph as Python a student can type: a node used more than once gets a name of its own."""
        uses = [0] * (len(self.leaves) + len(self.operations))
        for _, operands, _ in self.operations:
            for i in operands:
                uses[i] += 1
        names = list(LEAF_NAMES[: len(self.leaves)])
        lines = []
        for k, (template, operands, _) in enumerate(self.operations):
            text = template.format(*[names[i] for i in operands])
            last = k == len(self.operations) - 1
            if last or uses[len(self.leaves) + k] > 1:
                name = "y" if last else f"u{len(lines) + 1}"
                lines.append(f"{name} = {_bare(text)}")
                text = name
            names.append(text)
        if not self.operations:
            lines.append(f"y = {names[-1]}")
        given = ", ".join(f"{names[i]} = {_value_text(v)}" for i, v in enumerate(self.leaves))
        return "; ".join(lines) + f" with {given}"


def _bare(text: str) -> str:
    return text[1:-1] if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]) else text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _value_text(v) -> str:
    if isinstance(v, float):
        return show(v)
    shape = "x".join(str(n) for n in v.shape)
    return f"{show(v)} (shape {shape})"


# ---------------------------------------------------------------------------
# Operations, each with the condition on its operands' oracle values under which it is drawn
# ---------------------------------------------------------------------------


def _away(x) -> bool:
    return bool(np.all(np.abs(np.asarray(x, dtype=np.float64)) > AWAY_FROM_ZERO))


UNARY = {
    "exp": ("{}.exp()", lambda x: x.exp(), lambda v: bool(np.all(np.asarray(v) < EXP_LIMIT))),
    "log": ("{}.log()", lambda x: x.log(), lambda v: bool(np.all(np.asarray(v) > AWAY_FROM_ZERO))),
    "tanh": ("{}.tanh()", lambda x: x.tanh(), lambda v: True),
    "relu": ("{}.relu()", lambda x: x.relu(), _away),
    "sigmoid": ("{}.sigmoid()", lambda x: x.sigmoid(), lambda v: True),
    "square": ("({} ** 2)", lambda x: x**2, lambda v: bool(np.all(np.abs(np.asarray(v)) < 10))),
    "neg": ("(-{})", lambda x: -x, lambda v: True),
}
BINARY = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: x / y,
}
# A number on the left reaches the reflected operators (__radd__, __rsub__, __rmul__, __rtruediv__).
NUMBER_LEFT = {
    "+": lambda x: 2.0 + x,
    "-": lambda x: 1.0 - x,
    "*": lambda x: 3.0 * x,
    "/": lambda x: 1.0 / x,
}


def small_integers(low: int, high: int):
    """An integer in [low, high], a range of fewer than 100 numbers, shrinking towards ``low``.

    Hypothesis draws some integers from the constants it finds in the local modules loaded: a
    student's module, or the kit's (loaded in-process, not behind the wall), would change which
    graphs are drawn. It never takes integers between -99 and 99 from them (it favours small
    integers anyway), so a narrow range draws from the seed alone. Booleans alone would do too,
    at three times the cost of the search."""
    if not (-100 < low <= high < 100):
        raise ValueError(f"small_integers({low}, {high}): outside -99..99 Hypothesis may draw a module's constants")
    return st.integers(low, high)


# What a graph's builder draws, as plain tuples: ("integers", low, high), ("integer_lists", low, high,
# min_size, max_size), ("boolean_lists", size), ("codes", max_operations). Drawn, each is one of
# Hypothesis's strategies (_strategy); replayed, each is a value recorded when it was drawn
# (GraphFamily.replay), checked against what the builder asks for (_fits).
def _strategy(spec: tuple):
    kind = spec[0]
    if kind == "integers":
        return small_integers(spec[1], spec[2])
    if kind == "integer_lists":
        _, low, high, min_size, max_size = spec
        return st.lists(small_integers(low, high), min_size=min_size, max_size=max_size)
    if kind == "boolean_lists":
        return st.lists(st.booleans(), min_size=spec[1], max_size=spec[1])
    if kind == "codes":
        return operation_codes(spec[1])
    raise ValueError(f"no strategy for {spec!r}")


def _fits(spec: tuple, value) -> bool:
    """Whether ``value`` is one that ``_strategy(spec)`` can draw."""
    kind = spec[0]
    if kind == "integers":
        return type(value) is int and spec[1] <= value <= spec[2]
    if type(value) is not list:
        return False
    if kind == "integer_lists":
        _, low, high, min_size, max_size = spec
        return min_size <= len(value) <= max_size and all(type(v) is int and low <= v <= high for v in value)
    if kind == "boolean_lists":
        return len(value) == spec[1] and all(type(v) is bool for v in value)
    if kind == "codes":
        return 1 <= len(value) <= spec[1] and all(type(v) is int and 0 <= v < CODE_BASE**2 for v in value)
    return False


def _leaf_values(draw, shape):
    """Numbers away from 0 with both signs: a drawn integer picks them, so they shrink towards simple ones."""
    count = int(np.prod(shape)) if shape else 1
    magnitudes = draw(("integer_lists", 1, 8, count, count))
    signs = draw(("boolean_lists", count))
    values = np.array([m / 4 * (-1 if s else 1) for m, s in zip(magnitudes, signs, strict=True)], dtype=np.float64)
    return values.reshape(shape) if shape else float(values[0])


def _other_operand(pick, graph: Graph) -> int:
    """A binary operation's second operand: any node, or (as often) what the previous operation
    consumed, the pattern ``f(u) * u`` in which ``u`` is a node used twice."""
    if graph.operations and pick((False, True)):
        return graph.operations[-1][1][0]
    return pick(range(len(graph.values)))


def operation_codes(max_operations: int):
    """One wide integer per operation (two small ones), decoded by Picker: shrinking drops
    operations and lowers codes towards 0, the simplest operation."""
    code = st.tuples(small_integers(0, CODE_BASE - 1), small_integers(0, CODE_BASE - 1))
    return st.lists(code.map(lambda pair: pair[0] * CODE_BASE + pair[1]), min_size=1, max_size=max_operations)


class Picker:
    """The choices of one operation, decoded from its code as digits in mixed radix."""

    def __init__(self, code: int):
        # Hypothesis draws small integers often: a multiplicative hash spreads them over every choice,
        # and 0, where shrinking ends, stays the simplest operation.
        self.code = (code * 0x9E3779B97F4A7C15) % 2**64

    def pick(self, options):
        options = list(options)
        self.code, index = divmod(self.code, len(options))
        return options[index]


def _maybe_with_its_input(pick, graph: Graph, x: int, spec) -> None:
    """Half the time, combine a function's result with its own input, ``f(u) * u``: the input is then
    used twice, and a rule that assigns its input's gradient (``=`` for ``+=``) loses a contribution."""
    if pick((False, True)):
        _add_binary(graph, pick(sorted(BINARY)), len(graph.values) - 1, x, spec)


def _add(graph: Graph, template: str, operands: list, apply, spec_value):
    graph.operations.append((template, tuple(operands), apply))
    graph.values.append(spec_value)


def _add_binary(graph: Graph, op: str, x: int, y: int, spec) -> None:
    """``x op y`` (``*`` for a division by a number too near 0), its value from the oracle class ``spec``."""
    if op == "/" and not _away(graph.values[y]):
        op = "*"
    value = BINARY[op](spec(graph.values[x]), spec(graph.values[y])).data
    _add(graph, f"({{}} {op} {{}})", [x, y], BINARY[op], value)


def _add_function(pick, graph: Graph, x: int, functions, spec) -> None:
    """One of ``functions`` well behaved on ``x``'s value, then perhaps its result combined with ``x``."""
    usable = [name for name in functions if UNARY[name][2](graph.values[x])]
    template, apply, _ = UNARY[pick(usable)]
    _add(graph, template, [x], apply, apply(spec(graph.values[x])).data)
    _maybe_with_its_input(pick, graph, x, spec)


def build_scalar_graph(draw, max_operations: int, functions: tuple) -> Graph:
    """A graph for the Value engine: two or three leaves, up to ``max_operations`` operations."""
    count = draw(("integers", 1, 3))
    graph = Graph(leaves=[_leaf_values(draw, ()) for _ in range(count)])
    graph.values = list(graph.leaves)
    for code in draw(("codes", max_operations)):
        pick = Picker(code).pick
        kind = pick(["binary", "unary", "number"])
        x = len(graph.values) - 1 if graph.operations else 0  # a chain: every operation reaches the output
        vx = graph.values[x]
        if kind == "binary":
            op = pick(sorted(BINARY))
            _add_binary(graph, op, x, _other_operand(pick, graph), SpecScalar)
        elif kind == "unary":
            _add_function(pick, graph, x, functions, SpecScalar)
        else:
            op = pick(sorted(NUMBER_LEFT))
            if op == "/" and not _away(vx):
                op = "*"
            number = {"+": "2.0", "-": "1.0", "*": "3.0", "/": "1.0"}[op]
            _add(graph, f"({number} {op} {{}})", [x], NUMBER_LEFT[op], NUMBER_LEFT[op](SpecScalar(vx)).data)
    return graph


def build_tensor_graph(draw, max_operations: int, functions: tuple) -> Graph:
    """A graph for the Tensor engine: leaves of shapes (m, n), (n,), (m, 1) or (1, n) (square or not),
    operations that broadcast, reduce (sum, mean, an axis or all, keepdims or not), reshape,
    transpose and multiply matrices."""
    m, n = draw(("integers", 1, 3)), draw(("integers", 2, 3))
    choices = [(m, n), (n,), (m, 1), (1, n), (n, m)]
    shapes = [choices[i] for i in draw(("integer_lists", 0, len(choices) - 1, 1, 3))]
    graph = Graph(leaves=[_leaf_values(draw, shape) for shape in shapes])
    graph.values = list(graph.leaves)
    for code in draw(("codes", max_operations)):
        pick = Picker(code).pick
        nodes = range(len(graph.values))
        kind = pick(["binary", "unary", "reduce", "reshape", "transpose", "matmul"])
        x = len(graph.values) - 1 if graph.operations else 0  # a chain: every operation reaches the output
        vx = np.asarray(graph.values[x])
        if kind == "binary":
            y = _other_operand(pick, graph)
            vy = np.asarray(graph.values[y])
            try:
                np.broadcast_shapes(vx.shape, vy.shape)
            except ValueError:
                y = x  # x with itself: a node used twice
            _add_binary(graph, pick(sorted(BINARY)), x, y, SpecTensor)
        elif kind == "unary":
            _add_function(pick, graph, x, functions, SpecTensor)
        elif kind == "reduce" and vx.ndim >= 1:
            how = pick(["sum", "mean"])
            axis = pick([None, *range(vx.ndim), -1])
            keepdims = pick((False, True))
            args = ("" if axis is None else f"axis={axis}") + (", keepdims=True" if keepdims else "")
            args = args.removeprefix(", ")

            def reduce(t, how=how, axis=axis, keepdims=keepdims):
                return getattr(t, how)(axis=axis, keepdims=keepdims)

            _add(graph, f"{{}}.{how}({args})", [x], reduce, reduce(SpecTensor(vx)).data)
        elif kind == "reshape" and vx.ndim >= 1:
            shape = pick([(vx.size,), (1, vx.size), tuple(reversed(vx.shape))])

            def reshape(t, shape=shape):
                return t.reshape(shape)

            _add(graph, f"{{}}.reshape({shape})", [x], reshape, vx.reshape(shape))
        elif kind == "transpose" and vx.ndim >= 2:
            _add(graph, "{}.transpose()", [x], lambda t: t.transpose(), np.swapaxes(vx, -2, -1))
        elif kind == "matmul" and vx.ndim == 2:
            partners = [
                i for i in nodes if np.ndim(graph.values[i]) == 2 and np.shape(graph.values[i])[0] == vx.shape[1]
            ]
            y = pick(partners) if partners else None
            if y is None:  # x @ x.transpose(): x used twice, once through a transpose
                _add(graph, "({} @ {}.transpose())", [x, x], lambda a, b: a @ b.transpose(), vx @ vx.T)
            else:
                _add(graph, "({} @ {})", [x, y], lambda a, b: a @ b, vx @ np.asarray(graph.values[y]))
    if not graph.operations:  # every drawn kind was unusable on these shapes
        _add(graph, "({} * {})", [0, 0], BINARY["*"], np.asarray(graph.values[0]) ** 2)
    return graph


FUNCTIONS = ("exp", "log", "tanh", "relu", "square", "neg")


@dataclass(frozen=True)
class GraphFamily:
    """The random graphs one builder makes from its arguments: drawn by Hypothesis (``strategy``), or
    replayed from the values recorded when they were drawn (``replay``), which needs no search."""

    name: str
    build: object  # build_scalar_graph or build_tensor_graph
    max_operations: int = 5
    functions: tuple = FUNCTIONS

    def __repr__(self) -> str:  # as a strategy's: scalar_graphs(), tensor_graphs(max_operations=3)
        args = [f"max_operations={self.max_operations}"] if self.max_operations != 5 else []
        args += [f"functions={self.functions!r}"] if self.functions != FUNCTIONS else []
        return f"{self.name}({', '.join(args)})"

    def strategy(self):
        return _drawn(self.build, self.max_operations, self.functions)

    def replay(self, draws: list) -> Graph | None:
        """The graph these recorded values make, or None if they are not what the builder draws."""
        values = iter(draws)

        def take(spec):
            value = next(values, _STALE)
            if value is _STALE or not _fits(spec, value):
                raise _Stale
            return value

        try:
            graph = self.build(take, self.max_operations, self.functions)
        except _Stale:
            return None
        if next(values, _STALE) is not _STALE:
            return None
        graph.draws = list(draws)
        return graph


class _Stale(Exception):
    """Recorded values that the builder does not draw: recorded by another version of the kit."""


_STALE = object()


@st.composite
def _drawn(draw, build, max_operations: int, functions: tuple) -> Graph:
    drawn = []

    def take(spec):
        value = draw(_strategy(spec))
        drawn.append(value)
        return value

    graph = build(take, max_operations, functions)
    graph.draws = drawn
    return graph


def scalar_graphs(max_operations: int = 5, functions: tuple = FUNCTIONS) -> GraphFamily:
    """Graphs for the Value engine (build_scalar_graph)."""
    return GraphFamily("scalar_graphs", build_scalar_graph, max_operations, tuple(functions))


def tensor_graphs(max_operations: int = 5, functions: tuple = FUNCTIONS) -> GraphFamily:
    """Graphs for the Tensor engine (build_tensor_graph)."""
    return GraphFamily("tensor_graphs", build_tensor_graph, max_operations, tuple(functions))


# The families and settings the labs' tests use, whose searched graphs ship in drawn_graphs.json.
SHIPPED = ((scalar_graphs(), SCALAR_GRAPH_SETTINGS), (tensor_graphs(), GRAPH_SETTINGS))


def output_seed(graph: Graph) -> np.ndarray | None:
    """The gradient passed to backward(): entries that differ, so a wrong axis or a missing sum shows."""
    shape = np.shape(graph.values[-1])
    if int(np.prod(shape)) == 1 and shape == ():
        return None
    return np.cos(np.arange(int(np.prod(shape)), dtype=np.float64) + 1.0).reshape(shape)


def check_graph(engine, graph: Graph, *, hint: str = "", explain: bool = True) -> None:
    """Check ``graph``'s forward value and gradients on ``engine`` (a Value or a Tensor class);
    a failure's message starts with the graph, as an expression (``explain``: as for the checker)."""
    what = f"random graph `{graph.expression()}`"
    if isinstance(graph.leaves[0], float):
        check_scalar_gradients(engine, graph, graph.leaves, what, hint=hint, explain=explain)
    else:
        check_tensor_gradients(engine, graph, graph.leaves, what, hint=hint, seed=output_seed(graph), explain=explain)


UNRELIABLE = (
    "your engine gives different answers for the same computation, by what ran before or after it: does it keep "
    "state between graphs, or change a value it computed later (backward() writing into .data, or into the "
    ".grad of another graph)?"
)
TOGETHER_NOT_ALONE = (
    "random graphs failed when they were all computed and then read, and each passed when computed and read alone"
)


class _ShrinkingBudgetSpent(BaseException):
    """Raised through Hypothesis (which lets a BaseException pass) to end shrinking early."""


class _SimplestFails(BaseException):
    """Raised through Hypothesis when the first graph the search draws fails. That graph is the simplest
    it draws (tests/test_random_graphs.py): shrinking starts there and ends there, after a few more graphs
    and most of the test's time. An unfinished engine fails it: most of a student's runs."""


def check_random_graphs(engine, graphs, graph_settings: settings, *, hint: str) -> None:
    """Check ``engine`` on the graphs the ``graphs`` strategy draws from the fixed seed; fail with the
    smallest failing graph found, checked again with the full diagnosis.

    The search draws the same graphs for every engine until one fails, so those graphs are drawn
    once per process (searched_graphs) and checked all at once: drawing them was most of the test's
    time for an engine that passes, and checking them in turn two round trips a graph behind the
    wall. Only an engine that fails one is searched, from the start, as Hypothesis would have from
    the first graph.

    The search asks only whether a graph fails: any exception the code under test raises counts, so
    the search takes the same path in-process and behind the wall, where an exception's type and
    origin may differ, and stays cheap (no diagnosis for the graphs shrinking tries). Shrinking
    stops after SHRINK_BUDGET more graphs: the smallest failing graph so far is shown (a count, not
    a time, so the same in every mode). A failure of the grading itself (a time limit, the worker
    lost) ends the search at once."""
    if _passes_every_searched_graph(engine, graphs, graph_settings):
        return
    fatal: list[BaseException] = []
    failing: list[Graph] = []  # the smallest failing graph so far
    tried_since_failure = 0
    tried = 0

    def fails(graph: Graph) -> bool:
        nonlocal tried_since_failure, tried
        if fatal:
            raise fatal[0]
        tried += 1
        if failing:
            if tried_since_failure >= SHRINK_BUDGET:
                raise _ShrinkingBudgetSpent
            tried_since_failure += 1
        try:
            with _time_limit_open():
                check_graph(engine, graph, explain=False)
        except (verdicts.SubmissionError, verdicts.WorkerFailure) as exc:
            fatal.append(exc)
            raise
        except Exception:
            if not failing or graph.complexity() < failing[0].complexity():
                failing[:] = [graph]
            if tried == 1:
                raise _SimplestFails from None
            return True
        except BaseException as exc:  # the in-process time limit (pytest-timeout), an interrupt
            fatal.append(exc)
            raise
        return False

    try:
        smallest = _search(graphs, graph_settings, fails)
    except _SimplestFails:
        smallest = failing[0]
    except NoSuchExample:  # the graphs failed together and pass one by one: state, or values changed later
        fail(TOGETHER_NOT_ALONE, UNRELIABLE)
    except _ShrinkingBudgetSpent:
        smallest = failing[0]
    except BaseException as exc:
        if fatal:
            raise fatal[0] from None
        if isinstance(exc, Flaky):  # a graph failed once, then passed when tried again
            fail("a random graph failed once and passed when tried again", UNRELIABLE)
        raise
    check_graph(engine, smallest, hint=hint)
    fail(f"random graph `{smallest.expression()}` failed during the search and passed when checked again", UNRELIABLE)


# The handlers _time_limit_held replaced, innermost last, each with whether its signal came meanwhile.
_HELD: list[tuple[object, list[int]]] = []


@contextmanager
def _time_limit_held():
    """The in-process time limit (pytest-timeout's SIGALRM) held while Hypothesis draws graphs, and
    delivered when the block ends: fired inside Hypothesis's own machinery it became a Flaky error (an
    "error" verdict, where the other mode says "timeout"), or was lost in its gc callback. The code
    under test runs in the block under _time_limit_open, where the limit fires as anywhere else.
    (Blocking the signal would not do: another thread, numpy's BLAS, takes it for the process.)"""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    _HELD.append((previous, fired))
    try:
        yield
    finally:
        _HELD.pop()
        signal.signal(signal.SIGALRM, previous)
        if fired:
            signal.raise_signal(signal.SIGALRM)  # to the handler it was meant for, now


@contextmanager
def _time_limit_open():
    """Inside _time_limit_held: the code under test's time, when a limit that came meanwhile fires."""
    if not _HELD or threading.current_thread() is not threading.main_thread():
        yield
        return
    holding = signal.signal(signal.SIGALRM, _HELD[0][0])  # the outermost hold's: the limit's own handler
    try:
        if any(fired for _, fired in _HELD):
            for _, fired in _HELD:
                fired.clear()
            signal.raise_signal(signal.SIGALRM)
        yield
    finally:
        signal.signal(signal.SIGALRM, holding)


def _passes_every_searched_graph(engine, graphs, graph_settings: settings) -> bool:
    """Whether ``engine`` passes every graph the search draws when none fails, all checked at once
    (passes_every_check: behind the wall one round trip, not two a graph). The checker hands the
    engine copies of the leaves: code under test run in-process that writes into its inputs cannot
    change these graphs for the next submission graded here. An error of the grading itself (a time
    limit, the worker lost) is raised, as the search would."""
    searched = _searched_once(graphs, graph_settings)
    cases = [(graph, graph.leaves, output_seed(graph)) for graph in searched]
    return passes_every_check(engine, cases, scalar=bool(searched) and isinstance(searched[0].leaves[0], float))


_SEARCHED: dict[object, list[Graph]] = {}


def _searched_once(graphs, graph_settings: settings) -> list[Graph]:
    """searched_graphs, once per process for each family or strategy and settings: the kit's families
    replayed from what was drawn for them (drawn_graphs), if it was this Hypothesis that drew them, else
    drawn. A strategy made by a function (a composite) is told apart by that function and its arguments
    (its repr); any other is drawn each time."""
    if isinstance(graphs, GraphFamily):
        key = family_key(graphs, graph_settings)
    elif getattr(graphs, "function", None) is not None:
        key = (graphs.function, repr(graphs), repr(graph_settings))  # the function itself: its id could be reused
    else:
        return searched_graphs(graphs, graph_settings)
    if key not in _SEARCHED:
        replayed = _replayed(graphs, graph_settings) if isinstance(graphs, GraphFamily) else None
        if replayed is not None:
            _SEARCHED[key] = replayed
        else:
            with _time_limit_held():  # a limit that fires meanwhile stops the test once the graphs are kept
                _SEARCHED[key] = searched_graphs(graphs, graph_settings)
    return _SEARCHED[key]


def family_key(family: GraphFamily, graph_settings: settings) -> str:
    """What names a family's searched graphs in drawn_graphs.json: what decides which graphs the search draws."""
    return f"{family!r} {graph_settings!r} seed={GRAPH_SEED}"


def _replayed(family: GraphFamily, graph_settings: settings) -> list[Graph] | None:
    recorded = drawn_graphs.recorded(family_key(family, graph_settings), hypothesis.__version__)
    if recorded is None:
        return None
    replayed = [family.replay(draws) for draws in recorded]
    return None if any(graph is None for graph in replayed) else replayed


def drawn_graphs_now() -> str:
    """drawn_graphs.json as it should be: what this Hypothesis draws for each family the labs use."""
    drawn = {family_key(f, s): [graph.draws for graph in searched_graphs(f, s)] for f, s in SHIPPED}
    return drawn_graphs.document(drawn, hypothesis.__version__)


def searched_graphs(graphs, graph_settings: settings) -> list[Graph]:
    """The graphs check_random_graphs checks a correct engine on, in order."""
    seen = []
    with suppress(NoSuchExample):
        _search(graphs, graph_settings, lambda graph: seen.append(graph) or False)
    return seen


def _search(graphs, graph_settings: settings, fails) -> Graph:
    """The smallest graph ``fails`` holds for, from the fixed seed; NoSuchExample if none. The one place
    Hypothesis runs: the time limit is held here (_time_limit_held).

    It leaves gc.callbacks as it found them: Hypothesis adds one for good, to time collections (for
    its deadlines, which the graphs' settings turn off), and a signal handled during a collection runs
    in it, where the time limit's exception is printed and dropped ("Exception ignored in ...
    gc_callback"): a test that ran past its limit in-process would pass, or wait for the watchdog."""
    callbacks = list(gc.callbacks)
    try:
        with _time_limit_held():
            strategy = graphs.strategy() if isinstance(graphs, GraphFamily) else graphs
            return find(strategy, fails, settings=graph_settings, random=Random(GRAPH_SEED))
    finally:
        gc.callbacks[:] = callbacks

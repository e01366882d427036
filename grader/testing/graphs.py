"""Random computation graphs for the labs' engines: what a graph is, how one is built from what is drawn
for it, and the check of an engine on them (Hypothesis draws them and searches: grader.testing.graph_search).

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

import importlib.metadata
import random
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from grader import verdicts
from grader.testing import drawn_graphs, time_limit
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
# different seed in each mode. And the strategies draw only small integers (graph_search.small_integers).
GRAPH_SEED = 22
# Graphs shrinking may try after the first failure: Hypothesis's shrinker costs about 20 ms a graph
# here (a tensor graph drawn again), and would try hundreds.
SHRINK_BUDGET = 20
CODE_BASE = 64  # one operation's choices (Picker) are two digits in this base: 4096, more than any has


@dataclass(frozen=True)
class SearchSettings:
    """How many graphs the search draws (graph_search.hypothesis_settings makes Hypothesis's settings of it)."""

    max_examples: int


GRAPH_SETTINGS = SearchSettings(max_examples=20)
# Scalar graphs cost little: more of them find a bug that needs a rarer pattern (f(u) * u for each f).
SCALAR_GRAPH_SETTINGS = SearchSettings(max_examples=40)


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


# What a graph's builder draws, as plain tuples: ("integers", low, high), ("integer_lists", low, high,
# min_size, max_size), ("boolean_lists", size), ("codes", max_operations). Drawn, each is one of
# Hypothesis's strategies (graph_search.strategy_for); replayed, each is a value recorded when it was
# drawn (GraphFamily.replay), checked against what the builder asks for (_fits).
def _fits(spec: tuple, value) -> bool:
    """Whether ``value`` is one that ``graph_search.strategy_for(spec)`` can draw."""
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
        """Hypothesis's strategy for these graphs."""
        from grader.testing import graph_search

        return graph_search.strategy(self)

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


class ShrinkingBudgetSpent(BaseException):
    """Raised through Hypothesis (which lets a BaseException pass) to end shrinking early."""


class SimplestFails(BaseException):
    """Raised when the first graph the search draws fails (through Hypothesis, or before it runs). That graph
    is the simplest it draws (tests/test_random_graphs.py): shrinking starts there and ends there, after a
    few more graphs and most of the test's time. An unfinished engine fails it: most of a student's runs."""


class GraphTrial:
    """Whether graphs fail on ``engine``, as the search asks it: any exception from the code under test
    counts, with no diagnosis, so the search takes the same path in-process and behind the wall, where an
    exception's type and origin may differ. It keeps the smallest failing graph; raises SimplestFails when
    the first graph tried fails, ShrinkingBudgetSpent SHRINK_BUDGET graphs after the first failure (a count,
    not a time, so the same in every mode), and an error of the grading itself (a time limit, the worker
    lost) at once, and again at every later graph (``fatal``)."""

    def __init__(self, engine):
        self.engine = engine
        self.fatal: list[BaseException] = []
        self.smallest: Graph | None = None
        self.tried = 0
        self.tried_since_failure = 0
        self.passed_alone: Graph | None = None  # the first graph, checked before the search and passed

    def fails(self, graph: Graph) -> bool:
        if self.fatal:
            raise self.fatal[0]
        self.tried += 1
        if self.tried == 1 and self.passed_alone is not None and graph.expression() == self.passed_alone.expression():
            return False  # its answer is known: the engine is not called once more than the search would call it
        if self.smallest is not None:
            if self.tried_since_failure >= SHRINK_BUDGET:
                raise ShrinkingBudgetSpent
            self.tried_since_failure += 1
        try:
            with time_limit.lifted():
                check_graph(self.engine, graph, explain=False)
        except (verdicts.SubmissionError, verdicts.WorkerFailure) as exc:
            self.fatal.append(exc)
            raise
        except Exception:
            if self.smallest is None or graph.complexity() < self.smallest.complexity():
                self.smallest = graph
            if self.tried == 1:
                raise SimplestFails from None
            return True
        except BaseException as exc:  # the in-process time limit (pytest-timeout), an interrupt
            self.fatal.append(exc)
            raise
        return False


def check_random_graphs(engine, graphs, graph_settings: SearchSettings, *, hint: str) -> None:
    """Check ``engine`` on the graphs the ``graphs`` family (or Hypothesis strategy) draws from the fixed
    seed; fail with the smallest failing graph found, checked again with the full diagnosis.

    The search draws the same graphs for every engine until one fails, so those graphs are drawn once
    per process, or built from the draws shipped for them (_searched_once), and checked all at once:
    drawing them was most of the test's time for an engine that passes, and checking them in turn two
    round trips a graph behind the wall. An engine that fails one is tried on the first alone: if it
    fails that, it is shown it (the search would end there: SimplestFails); else it is searched with
    Hypothesis from the first graph (graph_search.smallest_failing), as Hypothesis would have, and
    shrinking stops SHRINK_BUDGET graphs after the first failure."""
    searched = _searched_once(graphs, graph_settings)
    if _passes_every(engine, searched):
        return
    trial = GraphTrial(engine)
    try:
        with _seeded_as_in_the_search():
            trial.fails(searched[0])  # the first graph tried: SimplestFails if it fails
        trial.tried, trial.passed_alone = 0, searched[0]  # the search starts from it again
        with time_limit.held():  # a limit that fires while Hypothesis is imported waits for the import to end
            from grader.testing import graph_search  # Hypothesis: only for an engine that fails a later graph
        smallest = graph_search.smallest_failing(graphs, graph_settings, trial)
    except SimplestFails:
        smallest = trial.smallest
    check_graph(engine, smallest, hint=hint)
    fail(f"random graph `{smallest.expression()}` failed during the search and passed when checked again", UNRELIABLE)


@contextmanager
def _seeded_as_in_the_search():
    """Python's and numpy's global random generators seeded as Hypothesis seeds them for each graph it tries
    (0), and put back after: an engine that draws random numbers answers the first graph as in the search."""
    state, numpy_state = random.getstate(), np.random.get_state()
    random.seed(0)
    np.random.seed(0)
    try:
        yield
    finally:
        random.setstate(state)
        np.random.set_state(numpy_state)


def _passes_every(engine, searched: list[Graph]) -> bool:
    """Whether ``engine`` passes every graph of ``searched``, all checked at once (passes_every_check: behind
    the wall one round trip, not two a graph). The checker hands the engine copies of the leaves: code under
    test run in-process that writes into its inputs cannot change these graphs for the next submission graded
    here. An error of the grading itself (a time limit, the worker lost) is raised, as the search would."""
    cases = [(graph, graph.leaves, output_seed(graph)) for graph in searched]
    return passes_every_check(engine, cases, scalar=bool(searched) and isinstance(searched[0].leaves[0], float))


_SEARCHED: dict[object, list[Graph]] = {}


def _searched_once(graphs, graph_settings: SearchSettings) -> list[Graph]:
    """The graphs the search draws when none fails, once per process for each family or strategy and
    settings: the kit's families built from the draws shipped for them (drawn_graphs), if this Hypothesis
    drew them, else drawn. A strategy made by a function (a composite) is told apart by that function and
    its arguments (its repr); any other is drawn each time."""
    if isinstance(graphs, GraphFamily):
        key = (graphs, graph_settings)  # its builder itself: another of the same name draws its own
        if key not in _SEARCHED:
            replayed = _replayed(graphs, graph_settings)
            if replayed is not None:
                _SEARCHED[key] = replayed
    elif getattr(graphs, "function", None) is not None:
        key = (graphs.function, repr(graphs), repr(graph_settings))  # the function itself: its id could be reused
    else:
        key = None
    if key in _SEARCHED:
        return _SEARCHED[key]
    with time_limit.held():  # a limit that fires meanwhile stops the test once the graphs are kept
        from grader.testing import graph_search  # Hypothesis: graphs that did not ship as drawn

        drawn = graph_search.searched_graphs(graphs, graph_settings)
        if key is not None:
            _SEARCHED[key] = drawn
    return drawn


def family_key(family: GraphFamily, graph_settings: SearchSettings) -> str:
    """What names a family's searched graphs in drawn_graphs.json: what decides which graphs the search draws
    (with graph_search's code, which `grader graphs --check` compares the file with)."""
    build = f"{family.build.__module__}.{family.build.__qualname__}"
    return f"{family!r} {graph_settings!r} seed={GRAPH_SEED} by {build}"


def _replayed(family: GraphFamily, graph_settings: SearchSettings) -> list[Graph] | None:
    try:
        version = importlib.metadata.version("hypothesis")
    except importlib.metadata.PackageNotFoundError:
        return None
    recorded = drawn_graphs.recorded(family_key(family, graph_settings), version)
    if recorded is None:
        return None
    replayed = [family.replay(draws) for draws in recorded]
    return None if not replayed or any(graph is None for graph in replayed) else replayed

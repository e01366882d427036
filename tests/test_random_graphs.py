"""The labs' random-graph tests (grader.testing.graphs, Hypothesis from a fixed seed): the reference passes;
a bug only a shared subexpression exposes fails them with the smallest graph as its message, the
same in-process and behind the wall, and the same from one run to the next."""

import os
import random
import re
import signal
import subprocess
import sys
from random import Random

import hypothesis
import numpy as np
import pytest
from hypothesis import find
from hypothesis import strategies as st

from grader import labs
from grader.grading import grade as grading
from grader.implementation import Implementation
from grader.testing import drawn_graphs, graph_search, graphs
from reference.ch06 import Tensor, Value
from tests.grading import failing
from tests.grading import grade as cached_grade
from tests.mutation import Mutant, apply, reference_source

RANDOM_GRAPH_TESTS = {
    "ch06": ["test_value_random_graphs", "test_tensor_random_graphs"],
    "lesson1_3": ["test_engine_random_graphs"],
}
# `=` where a rule must add (`+=`): right for a node used once, wrong for one used twice.
SHARED_ONLY = {
    "ch06": Mutant(
        "tanh_overwrites", "tanh's rule replaces its input's gradient", "Value.tanh", "self.grad +=", "self.grad ="
    ),
    "lesson1_3": Mutant("tanh_overwrites", "same", "Value.tanh", "self.grad +=", "self.grad ="),
}
TENSOR_SHARED_ONLY = Mutant(
    "mul_overwrites",
    "the product rule replaces the right factor's gradient",
    "Tensor.__mul__",
    "other._receive(_unbroadcast(grad * self.data, other.shape))",
    "other.grad = _unbroadcast(grad * self.data, other.shape)",
)
MAX_OPERATIONS = 4  # what the shrunk graph may hold: a student reads it at a glance
OPERATION = re.compile(r"\s[-+*/@]\s|\.\w+\(|\*\*|^-|\(-")


def operations(expression: str) -> int:
    """How many operations the rendered graph holds (its statements, before ` with ` and the inputs)."""
    statements = expression.split(" with ")[0].split("; ")
    return sum(len(OPERATION.findall(s.split(" = ", 1)[1])) for s in statements)


def graph_of(message: str) -> str:
    found = re.search(r"random graph `([^`]*)`", message)
    assert found, message
    return found.group(1)


def grade_mutant(tmp_path, lab_id, mutant, isolation):
    path = tmp_path / lab_id / "starter.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(apply(reference_source(lab_id), mutant), encoding="utf-8")
    lab = labs.get(lab_id).visible_only()
    return grading.grade(lab, Implementation("submission", path), isolation=isolation, timeout=300)


def random_graph_failures(document) -> dict[str, str]:
    return {test_id: test["message"] for test_id, test in failing(document).items() if "random_graphs" in test_id}


@pytest.mark.parametrize("lab_id", sorted(RANDOM_GRAPH_TESTS))
def test_the_reference_passes_every_random_graph(lab_id):
    document = cached_grade(lab_id, "ref")
    ids = [t["id"] for t in document["tests"]]
    for name in RANDOM_GRAPH_TESTS[lab_id]:
        assert name in ids
    assert not random_graph_failures(document)


@pytest.mark.parametrize(
    ("lab_id", "mutant", "test_name"),
    [
        ("ch06", SHARED_ONLY["ch06"], "test_value_random_graphs"),
        ("ch06", TENSOR_SHARED_ONLY, "test_tensor_random_graphs"),
        ("lesson1_3", SHARED_ONLY["lesson1_3"], "test_engine_random_graphs"),
    ],
    ids=["ch06-value", "ch06-tensor", "lesson1_3"],
)
def test_a_shared_node_bug_shows_the_same_small_graph_in_both_modes_and_runs(tmp_path, lab_id, mutant, test_name):
    runs = [
        grade_mutant(tmp_path / "a", lab_id, mutant, "in-process"),
        grade_mutant(tmp_path / "b", lab_id, mutant, "in-process"),
        grade_mutant(tmp_path / "c", lab_id, mutant, "worker"),
    ]
    messages = [random_graph_failures(run).get(test_name) for run in runs]
    assert all(messages), f"{test_name} passed {mutant.name} in some mode: {messages}"
    # The search only asks whether each graph fails: the same graphs, the same smallest one, in every run and mode.
    assert messages[0] == messages[1] == messages[2], messages
    for message in messages:
        expression = graph_of(message)
        assert 1 <= operations(expression) <= MAX_OPERATIONS, expression
        assert "expected" in message and "got" in message, message


def test_the_rendered_expression_is_the_computation():
    """Each graph the search checks, evaluated from its rendering with the oracle, gives the graph's own value."""
    seen = [
        *graph_search.searched_graphs(graphs.tensor_graphs(), graphs.GRAPH_SETTINGS),
        *graph_search.searched_graphs(graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS),
    ]
    assert len(seen) == graphs.GRAPH_SETTINGS.max_examples + graphs.SCALAR_GRAPH_SETTINGS.max_examples
    for graph in seen:
        statements, _, given_text = graph.expression().partition(" with ")
        engine = Tensor if isinstance(graph.leaves[0], np.ndarray) else Value
        namespace = {name: engine(value) for name, value in zip("abcd", graph.leaves, strict=False)}
        for statement in statements.split("; "):
            exec(statement, namespace)  # noqa: S102 (text the kit itself rendered)
        expected = graph(*[engine(v) for v in graph.leaves]).data
        np.testing.assert_allclose(namespace["y"].data, expected)
        assert given_text.startswith("a = ")


def test_the_search_covers_what_it_claims():
    """Shared nodes, both engines' shapes square and not, and every kind of tensor operation appear."""
    tensor_text = " ".join(
        g.expression() for g in graph_search.searched_graphs(graphs.tensor_graphs(), graphs.GRAPH_SETTINGS)
    )
    for fragment in [
        " @ ",
        ".sum(",
        ".mean(",
        "keepdims=True",
        ".reshape(",
        ".transpose()",
        "u1 = ",
        "shape 2x2",
        "shape 2x3",
    ]:
        assert fragment in tensor_text, fragment
    scalar_text = " ".join(
        g.expression() for g in graph_search.searched_graphs(graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS)
    )
    for fragment in [".exp()", ".log()", ".tanh()", ".relu()", "** 2", "2.0 + ", "1.0 / ", "3.0 * ", "1.0 - ", "u1 = "]:
        assert fragment in scalar_text, fragment


DRAW_GRAPHS = """
import sys
from grader.testing import graph_search, graphs
if len(sys.argv) > 1:
    __import__(sys.argv[1])
print([g.expression() for g in graph_search.searched_graphs(graphs.tensor_graphs(), graphs.GRAPH_SETTINGS)])
print([g.expression() for g in graph_search.searched_graphs(graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS)])
"""


def test_the_graphs_drawn_do_not_depend_on_the_modules_loaded(tmp_path):
    """Hypothesis draws some integers from constants it finds in the local modules loaded: a student's
    module (or the kit's, in-process but not behind the wall) would change the graphs. The graphs'
    strategies draw only integers in ranges it never takes from constants."""
    module = tmp_path / "student_constants.py"
    module.write_text(f"NUMBERS = {list(range(-120, 5000, 3))}\n", encoding="utf-8")
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(labs.KIT_ROOT), str(tmp_path)])}

    def drawn(*module_name):
        command = [sys.executable, "-c", DRAW_GRAPHS, *module_name]
        done = subprocess.run(command, env=environment, cwd=tmp_path, capture_output=True, text=True, check=True)
        return done.stdout

    assert drawn() == drawn("student_constants")


class _WrongOnlyAtFirst(Value):
    """An engine with state between graphs: the first Value it makes holds a wrong number, the rest are right."""

    made = 0

    def __init__(self, data, *args, **kwargs):
        type(self).made += 1
        super().__init__(data + 1.0 if type(self).made == 1 else data, *args, **kwargs)


def test_an_engine_wrong_once_then_right_fails_as_unreliable():
    """The graphs a correct engine sees are checked first; a failure there is searched from the first
    graph again, and an engine that then passes every graph is unreliable, not correct."""
    with pytest.raises(AssertionError, match="each passed when computed and read alone"):
        graphs.check_random_graphs(_WrongOnlyAtFirst, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
    assert _WrongOnlyAtFirst.made > graphs.SCALAR_GRAPH_SETTINGS.max_examples  # the search ran after the failure


def test_an_engine_whose_backward_changes_a_computed_value_loses_the_point_and_is_told_so(monkeypatch):
    """Right values and gradients, but backward() then writes into the result's .data (an in-place update
    of what a rule read from it). Checked one by one, each result was read before its backward(); all
    computed, then read, the bug shows, and the message names it."""
    backward = Value.backward

    def overwrites_the_result(self, *args):
        backward(self, *args)
        self.data = 0.0

    monkeypatch.setattr(Value, "backward", overwrites_the_result)
    with pytest.raises(AssertionError, match="each passed when computed and read alone") as failure:
        graphs.check_random_graphs(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
    assert "backward() writing into .data" in failure.value.hint


def _refuse(*args, **kwargs):
    raise RuntimeError("no operations in this engine")


class _NoOperations(Value):
    """An engine that keeps its leaves and refuses every operation: right only on a graph of one leaf."""


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__pow__", "__neg__", "exp", "log", "tanh", "relu"):  # fmt: skip
    setattr(_NoOperations, _name, _refuse)


def test_graphs_drawn_once_are_kept_apart_by_the_strategy_that_drew_them():
    """Another lab's strategy of the same name and repr draws its own graphs, not the ones kept for this one."""

    @st.composite
    def scalar_graphs(draw):  # the kit's name: the same repr, "scalar_graphs()"
        leaf = draw(st.just(0.5))
        return graphs.Graph(leaves=[leaf], values=[leaf])  # y = a

    assert repr(scalar_graphs()) == repr(graphs.scalar_graphs())
    with pytest.raises(RuntimeError, match="no operations"):
        graphs.check_random_graphs(_NoOperations, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
    graphs.check_random_graphs(_NoOperations, scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")


def test_a_correct_engine_runs_every_graph_before_its_one_read(monkeypatch):
    """A passing engine's graphs are all run, forward and backward, before their values are read back,
    together: behind the wall the whole check is one round trip, not two a graph."""
    from grader.testing import gradients

    events = []
    backward, read_each = Value.backward, gradients.read_each
    monkeypatch.setattr(Value, "backward", lambda self, *a: events.append("backward") or backward(self, *a))
    monkeypatch.setattr(gradients, "read_each", lambda pairs: events.append("read") or read_each(pairs))
    graphs.check_random_graphs(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
    assert events == ["backward"] * len(
        graph_search.searched_graphs(graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS)
    ) + ["read"]


class _Unfinished(Value):
    """An engine not written yet: the starter's stubs raise NotImplementedError."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("Value.__init__")


@pytest.mark.parametrize("kind", ["scalar", "tensor"])
def test_the_first_graph_drawn_is_the_one_shrinking_ends_on(kind):
    """The search draws its simplest graph first: when every graph fails, a full search (Hypothesis's
    shrinking, no budget) ends on that same graph, so an engine that fails it is shown it at once."""
    strategy, settings = {
        "scalar": (graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS),
        "tensor": (graphs.tensor_graphs(), graphs.GRAPH_SETTINGS),
    }[kind]
    first = graph_search.searched_graphs(strategy, settings)[0]
    shrunk = find(
        strategy.strategy(),
        lambda graph: True,
        settings=graph_search.hypothesis_settings(settings),
        random=Random(graphs.GRAPH_SEED),
    )
    assert shrunk.expression() == first.expression()


def test_an_engine_failing_the_first_graph_is_shown_it_without_a_search(monkeypatch):
    """Searched no further: the graph that failed, then its full diagnosis (the test's message)."""
    checked = []
    check_graph = graphs.check_graph
    monkeypatch.setattr(graphs, "check_graph", lambda *a, **k: checked.append(a[1]) or check_graph(*a, **k))
    with pytest.raises(NotImplementedError, match="Value.__init__"):
        graphs.check_random_graphs(_Unfinished, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
    first = graph_search.searched_graphs(graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS)[0]
    assert checked == [first, first]


def _afresh(draws: list[int] | None = None, first=None):
    """The kit's scalar graphs, as a strategy of its own: drawn afresh, not the graphs kept for the kit's.
    Each draw is counted in ``draws``; ``first`` is called as the first graph is drawn."""

    @st.composite
    def drawn(draw):
        if draws is not None:
            if not draws and first is not None:
                first()
            draws.append(1)
        return draw(graphs.scalar_graphs().strategy())

    return drawn()


def test_a_time_limit_that_fires_while_the_graphs_are_drawn_stops_the_test_once_they_are_drawn():
    """pytest-timeout's in-process limit is SIGALRM, whose handler raises in whatever runs. Fired inside
    Hypothesis's drawing it became a Flaky error (an "error" verdict where behind the wall the test timed
    out) or was lost in Hypothesis's gc callback; it is held until the graphs are drawn, then fires.

    The alarm is set by the first draw, so it fires inside Hypothesis's drawing whatever the machine's
    load (timing a whole run and firing at a share of it missed on a loaded machine); each delay lands
    somewhere else in Hypothesis's machinery."""
    unlimited: list[int] = []
    graphs.check_random_graphs(Value, _afresh(draws=unlimited), graphs.SCALAR_GRAPH_SETTINGS, hint="")

    def limit(signum, frame):
        pytest.fail("Timeout >0.01s")  # what pytest-timeout's signal method raises

    previous = signal.signal(signal.SIGALRM, limit)
    try:
        for delay in (0.0002, 0.001, 0.005, 0.02):
            draws: list[int] = []
            with pytest.raises(pytest.fail.Exception, match="Timeout"):
                strategy = _afresh(draws=draws, first=lambda delay=delay: signal.setitimer(signal.ITIMER_REAL, delay))
                graphs.check_random_graphs(Value, strategy, graphs.SCALAR_GRAPH_SETTINGS, hint="")
            assert len(draws) == len(unlimited), f"the limit stopped the drawing after {len(draws)} graphs"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


COUNT_GC_CALLBACKS = """
import gc
from grader.testing import graph_search, graphs
before = len(gc.callbacks)
graph_search.searched_graphs(graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS)
print(before, len(gc.callbacks))
"""


def test_the_search_leaves_no_gc_callback_behind():
    """Hypothesis adds a gc callback for good the first time it draws in a process (to time collections,
    for deadlines the graphs' settings turn off); a signal handled during a collection ran in it, and the
    time limit's exception was printed and dropped: a test past its limit in-process went on. A fresh
    process, as every grading run and every restart after a hang has."""
    environment = {**os.environ, "PYTHONPATH": str(labs.KIT_ROOT)}
    command = [sys.executable, "-c", COUNT_GC_CALLBACKS]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    before, after = done.stdout.split()
    assert after == before, f"gc callbacks: {before} before the search, {after} after"


def test_the_shipped_graphs_are_the_ones_hypothesis_draws():
    """drawn_graphs.json holds what each family's builder drew for the graphs a correct engine is checked
    on, with the pinned Hypothesis: `grader graphs` writes it again after a change to the graphs."""
    shipped = drawn_graphs.PATH.read_text(encoding="utf-8")
    assert shipped == graph_search.drawn_graphs_now(), "drawn_graphs.json is out of date: run `grader graphs`"
    assert f'"hypothesis": "{hypothesis.__version__}"' in shipped


@pytest.mark.parametrize("family, settings", graphs.SHIPPED, ids=repr)
def test_a_replayed_graph_is_the_graph_drawn(family, settings):
    """Built again from what its builder drew, each graph has the same leaves, operations (as the expression
    renders them), oracle values and output seed as the one Hypothesis drew, and computes the same on an engine."""
    for drawn in graph_search.searched_graphs(family, settings):
        replayed = family.replay(drawn.draws)
        assert replayed.expression() == drawn.expression()
        assert len(replayed.values) == len(drawn.values)
        for a, b in zip(replayed.values, drawn.values, strict=True):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(graphs.output_seed(replayed), graphs.output_seed(drawn))
        engine = Tensor if isinstance(drawn.leaves[0], np.ndarray) else Value
        np.testing.assert_array_equal(
            replayed(*[engine(v) for v in replayed.leaves]).data, drawn(*[engine(v) for v in drawn.leaves]).data
        )


@pytest.mark.parametrize(
    "draws",
    [
        [],
        [1, [1], [False]],
        [1, [1], [False], [0], 5],
        [4, [1], [False], [0]],
        [1, [9], [False], [0]],
        [1, [1], [0], [0]],
    ],
    ids=["none", "too_few", "too_many", "out_of_range", "leaf_out_of_range", "not_a_boolean"],
)
def test_values_the_builder_does_not_draw_make_no_graph(draws):
    """A file of another version of the kit: its values do not fit what the builder asks for, and the graphs
    are drawn instead."""
    assert graphs.scalar_graphs().replay(draws) is None
    assert graphs.scalar_graphs().replay([1, [1], [False], [0]]) is not None  # the same, fitting


def test_another_hypothesis_draws_the_graphs_itself():
    """Another version of Hypothesis may draw other graphs, and it is the one that searches a failing
    engine's smallest graph: the shipped graphs are for the version that drew them."""
    key = graphs.family_key(*graphs.SHIPPED[0])
    assert drawn_graphs.recorded(key, hypothesis.__version__)
    assert drawn_graphs.recorded(key, "6.0.0") is None


CHECK_WITHOUT_HYPOTHESIS = """
import sys
from grader.testing import graphs
from reference.ch06 import Tensor, Value

class Unfinished(Value):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("Value.__init__")

graphs.check_random_graphs(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
graphs.check_random_graphs(Tensor, graphs.tensor_graphs(), graphs.GRAPH_SETTINGS, hint="")
print("reference", "hypothesis" in sys.modules)
try:
    graphs.check_random_graphs(Unfinished, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
except NotImplementedError as exc:
    print("unfinished", "hypothesis" in sys.modules, exc)
"""


def test_a_correct_engine_and_an_unfinished_one_are_checked_without_hypothesis():
    """In a fresh process, as every `grader run` is: the reference passes both families' graphs, built from
    drawn_graphs.json, and an unfinished engine fails the first one and is shown it, and Hypothesis is not
    even imported (drawing the graphs and importing it took half a second of every run)."""
    environment = {**os.environ, "PYTHONPATH": str(labs.KIT_ROOT)}
    command = [sys.executable, "-c", CHECK_WITHOUT_HYPOTHESIS]
    done = subprocess.run(command, env=environment, cwd=labs.KIT_ROOT, capture_output=True, text=True)
    assert done.stdout.splitlines() == ["reference False", "unfinished False Value.__init__"], done.stderr[-2000:]


def test_grader_graphs_writes_the_file_again_and_check_says_when_it_is_out_of_date(tmp_path, monkeypatch):
    """`grader graphs --check` exits 0 on a current file and 1, naming the fix, on a stale one, which
    `grader graphs` then writes as it should be."""
    from click.testing import CliRunner

    from grader.cli.run import make_graphs

    shipped = tmp_path / "grader" / "testing" / "drawn_graphs.json"
    shipped.parent.mkdir(parents=True)
    shipped.write_text(drawn_graphs.PATH.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(drawn_graphs, "PATH", shipped)
    monkeypatch.setattr(labs, "KIT_ROOT", tmp_path)
    runner = CliRunner()
    assert runner.invoke(make_graphs, ["--check"]).exit_code == 0
    shipped.write_text(shipped.read_text(encoding="utf-8").replace('"hypothesis": "', '"hypothesis": "0'))
    stale = runner.invoke(make_graphs, ["--check"])
    assert stale.exit_code == 1 and "grader/testing/drawn_graphs.json is not what Hypothesis draws now" in stale.output
    assert "run `grader graphs`" in stale.output
    assert runner.invoke(make_graphs, []).exit_code == 0
    assert runner.invoke(make_graphs, ["--check"]).exit_code == 0


REDRAWN_UNDER_ANOTHER_HYPOTHESIS = """
import sys
from pathlib import Path
from grader.testing import drawn_graphs, graphs
from reference.ch06 import Value

stale = Path(sys.argv[1])
stale.write_text(drawn_graphs.PATH.read_text().replace('"hypothesis": "', '"hypothesis": "0.'))
drawn_graphs.PATH = stale
graphs.check_random_graphs(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
print("checked", "hypothesis" in sys.modules)
"""


def test_under_another_hypothesis_the_graphs_are_drawn_again(tmp_path):
    """The shipped draws are for the Hypothesis that made them: under another (Python 3.10 gets an older
    one), the search's own graphs are drawn, and a correct engine still passes them."""
    environment = {**os.environ, "PYTHONPATH": str(labs.KIT_ROOT)}
    command = [sys.executable, "-c", REDRAWN_UNDER_ANOTHER_HYPOTHESIS, str(tmp_path / "drawn_graphs.json")]
    done = subprocess.run(command, env=environment, cwd=labs.KIT_ROOT, capture_output=True, text=True)
    assert done.stdout.splitlines() == ["checked True"], done.stderr[-2000:]


def test_the_shipped_graphs_hold_in_ci_too():
    """Hypothesis loads its "ci" profile where CI is set (a fork's Actions run, the kit's .ci/run): the
    graphs' settings are made on the default profile, so CI draws what the file holds."""
    environment = {**os.environ, "PYTHONPATH": str(labs.KIT_ROOT), "CI": "true", "GITHUB_ACTIONS": "true"}
    script = "from grader.testing import drawn_graphs, graph_search\n"
    script += "print(graph_search.drawn_graphs_now() == drawn_graphs.PATH.read_text(encoding='utf-8'))"
    done = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True)
    assert done.stdout.strip() == "True", done.stderr[-2000:]


def _scalar_graph_negated(draw, max_operations, functions):
    graph = graphs.build_scalar_graph(draw, max_operations, functions)
    graph.operations.append(("(-{})", (len(graph.values) - 1,), lambda x: -x))
    graph.values.append(-graph.values[-1])
    return graph


def test_a_family_of_the_same_name_with_another_builder_draws_its_own_graphs():
    """A family is its builder, not its name: another lab's ``scalar_graphs`` built otherwise gets neither
    the kit's shipped graphs nor the ones this process kept for the kit's family."""
    theirs = graphs.GraphFamily("scalar_graphs", _scalar_graph_negated)
    assert repr(theirs) == repr(graphs.scalar_graphs())
    assert graphs.family_key(theirs, graphs.SCALAR_GRAPH_SETTINGS) != graphs.family_key(
        graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS
    )
    graphs.check_random_graphs(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")

    class Unnegated(Value):  # right on every graph but one that ends in a negation
        def __neg__(self):
            return self

    with pytest.raises(AssertionError, match=r"y = -"):
        graphs.check_random_graphs(Unnegated, theirs, graphs.SCALAR_GRAPH_SETTINGS, hint="")


HYPOTHESIS_IMPORTED_UNDER_A_LIMIT = """
import math, signal, sys
import numpy as np
import pytest
from grader.testing import graphs
from reference.ch06 import Tensor, Value

def log(self):  # a student's log: right on the first graph, which has none, wrong on a later one
    out = Value(math.log(self.data), (self,), "log")
    def backward():
        self.grad += out.grad / (self.data + 1)
    out._backward = backward
    return out

def tanh(self):  # a student's tanh: 1 - t where 1 - t * t is due
    t = np.tanh(self.data)
    out = Tensor(t, (self,), "tanh")
    out._backward = lambda grad: self._receive(grad * (1.0 - t))
    return out

def limit(signum, frame):
    pytest.fail("Timeout (>10.0s) from pytest-timeout.")  # what pytest-timeout's signal method raises

Value.log, Tensor.tanh = log, tanh
signal.signal(signal.SIGALRM, limit)
backward, calls = Value.backward, []

def timed(self, *args):  # the limit comes due after the all-at-once check and the first graph alone
    calls.append(1)
    backward(self, *args)
    if len(calls) == graphs.SCALAR_GRAPH_SETTINGS.max_examples + 1:
        signal.setitimer(signal.ITIMER_REAL, float(sys.argv[1]))

Value.backward = timed
for engine, family, settings in [(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS),
                                 (Tensor, graphs.tensor_graphs(), graphs.GRAPH_SETTINGS)]:
    try:
        graphs.check_random_graphs(engine, family, settings, hint="")
        print("passed")
    except BaseException as exc:
        print(type(exc).__name__, str(exc).split(":")[0])
    signal.setitimer(signal.ITIMER_REAL, 0)
"""


@pytest.mark.parametrize("delay", [0.02, 0.06, 0.1])
def test_a_limit_that_fires_while_hypothesis_is_imported_waits_for_the_import(delay):
    """Hypothesis is imported in the test that first searches, under its time limit: the limit that comes due
    during the import is held until it ends. Fired inside it, it left Hypothesis half imported, and the next
    test that searched failed with an AttributeError of Hypothesis's instead of its own failure."""
    environment = {**os.environ, "PYTHONPATH": str(labs.KIT_ROOT)}
    command = [sys.executable, "-c", HYPOTHESIS_IMPORTED_UNDER_A_LIMIT, str(delay)]
    done = subprocess.run(command, env=environment, cwd=labs.KIT_ROOT, capture_output=True, text=True)
    first, second = done.stdout.splitlines()
    assert first in ("Failed Timeout (>10.0s) from pytest-timeout.", "LabCheckFailure random graph `y = a"), first
    assert second.startswith("LabCheckFailure random graph `"), (second, done.stderr[-2000:])


def test_an_engine_drawing_random_numbers_gets_the_same_message_whatever_the_random_state(monkeypatch):
    """Hypothesis seeds the global random generators for each graph it tries; the first graph, tried alone
    before the search, is tried with them seeded the same way, so what ran before does not change the verdict.
    The engine draws from Python's global generator, and half of its gradients are wrong."""
    backward = Value.backward

    def randomly_wrong(self, *args):
        backward(self, *args)
        if random.random() < 0.5:
            _a_leaf_of(self).grad += 1.0

    monkeypatch.setattr(Value, "backward", randomly_wrong)
    messages = set()
    for seed in range(6):
        random.seed(seed)
        with pytest.raises(AssertionError) as failure:
            graphs.check_random_graphs(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
        messages.add(str(failure.value))
    assert len(messages) == 1, messages


def test_the_first_graph_tried_alone_is_not_tried_again_by_the_search(monkeypatch):
    """An engine wrong only in the all-at-once check is tried on the first graph alone, then searched: the
    search takes the first graph's answer from that try, so the engine is called as often as a search alone
    would call it (once per graph, twice in all), and its answers depend on no extra call."""
    backward, calls = Value.backward, []

    def wrong_the_first_time(self, *args):
        calls.append(1)
        backward(self, *args)
        if len(calls) == 1:
            _a_leaf_of(self).grad += 1.0

    monkeypatch.setattr(Value, "backward", wrong_the_first_time)
    with pytest.raises(AssertionError, match="each passed when computed and read alone"):
        graphs.check_random_graphs(Value, graphs.scalar_graphs(), graphs.SCALAR_GRAPH_SETTINGS, hint="")
    assert len(calls) == 2 * graphs.SCALAR_GRAPH_SETTINGS.max_examples


def _a_leaf_of(value: Value) -> Value:
    while value._parents:
        value = value._parents[0]
    return value

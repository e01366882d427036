"""Hypothesis's part of the random graphs: the strategies that draw them, and the search for the smallest
graph an engine fails.

grader.testing.graphs imports this module only when it needs Hypothesis (0.15 s of a process's start):
to draw graphs that did not ship as drawn (grader.testing.drawn_graphs), or to search for an engine's
smallest failing graph once it has failed one that is not the first. A correct engine, and an unfinished
one, is graded without it.
"""

from __future__ import annotations

import gc
from contextlib import suppress
from random import Random

import hypothesis
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky, NoSuchExample

from grader.testing import drawn_graphs, time_limit
from grader.testing.checks import fail
from grader.testing.graphs import (
    CODE_BASE,
    GRAPH_SEED,
    SHIPPED,
    TOGETHER_NOT_ALONE,
    UNRELIABLE,
    Graph,
    GraphFamily,
    GraphTrial,
    SearchSettings,
    ShrinkingBudgetSpent,
    SimplestFails,
    family_key,
)


def hypothesis_settings(search: SearchSettings) -> settings:
    """Hypothesis's settings for a search of ``search.max_examples`` graphs."""
    # On the default profile, not the one loaded (Hypothesis loads its "ci" profile where CI is set): the same
    # settings, and the same graphs, on a student's machine, in a fork's CI and in the kit's.
    return settings(
        settings.get_profile("default"),
        derandomize=False,  # the fixed seed instead (graphs.GRAPH_SEED)
        database=None,
        deadline=None,
        max_examples=search.max_examples,
        # No explain phase: after shrinking it tries hundreds of variations to say which parts of the
        # graph matter, seconds of a test's time limit for a sentence the message does not show.
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )


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


def operation_codes(max_operations: int):
    """One wide integer per operation (two small ones), decoded by graphs.Picker: shrinking drops
    operations and lowers codes towards 0, the simplest operation."""
    code = st.tuples(small_integers(0, CODE_BASE - 1), small_integers(0, CODE_BASE - 1))
    return st.lists(code.map(lambda pair: pair[0] * CODE_BASE + pair[1]), min_size=1, max_size=max_operations)


def strategy_for(spec: tuple):
    """The strategy that draws what a builder asks for (the specs graphs._fits checks a replayed value against)."""
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


@st.composite
def _drawn(draw, build, max_operations: int, functions: tuple) -> Graph:
    drawn = []

    def take(spec):
        value = draw(strategy_for(spec))
        drawn.append(value)
        return value

    graph = build(take, max_operations, functions)
    graph.draws = drawn
    return graph


def strategy(graphs):
    """A Hypothesis strategy for ``graphs``: a family's, or a strategy as it is."""
    if isinstance(graphs, GraphFamily):
        return _drawn(graphs.build, graphs.max_operations, graphs.functions)
    return graphs


def searched_graphs(graphs, search: SearchSettings) -> list[Graph]:
    """The graphs the search draws when none fails, in order: those a correct engine is checked on."""
    seen = []
    with suppress(NoSuchExample):
        _search(graphs, search, lambda graph: seen.append(graph) or False)
    return seen


def smallest_failing(graphs, search: SearchSettings, trial: GraphTrial) -> Graph:
    """The smallest graph the search finds that ``trial`` fails, from the first graph; the checks fail
    with UNRELIABLE when it finds none, or a graph that failed once then passed."""
    try:
        return _search(graphs, search, trial.fails)
    except (SimplestFails, ShrinkingBudgetSpent):
        return trial.smallest
    except NoSuchExample:  # the graphs failed together and pass one by one: state, or values changed later
        fail(TOGETHER_NOT_ALONE, UNRELIABLE)
    except BaseException as exc:
        if trial.fatal:
            raise trial.fatal[0] from None
        if isinstance(exc, Flaky):  # a graph failed once, then passed when tried again
            fail("a random graph failed once and passed when tried again", UNRELIABLE)
        raise


def _search(graphs, search: SearchSettings, fails) -> Graph:
    """The smallest graph ``fails`` holds for, from the fixed seed; NoSuchExample if none. The one place
    Hypothesis runs, with the time limit held (grader.testing.time_limit).

    It leaves gc.callbacks as it found them: Hypothesis adds one for good, to time collections (for
    its deadlines, which the graphs' settings turn off), and a signal handled during a collection runs
    in it, where the time limit's exception is printed and dropped ("Exception ignored in ...
    gc_callback"): a test that ran past its limit in-process would pass, or wait for the watchdog."""
    callbacks = list(gc.callbacks)
    try:
        with time_limit.held():
            return find(strategy(graphs), fails, settings=hypothesis_settings(search), random=Random(GRAPH_SEED))
    finally:
        gc.callbacks[:] = callbacks


def drawn_graphs_now() -> str:
    """drawn_graphs.json as it should be: what this Hypothesis draws for each family the labs use."""
    drawn = {family_key(f, s): [graph.draws for graph in searched_graphs(f, s)] for f, s in SHIPPED}
    return drawn_graphs.document(drawn, hypothesis.__version__)

"""The tests' memo of the class files' pure functions (tests/pure_memo.py): what it memoizes is pure, and
the memo computes each input once and hands back what the function gives."""

import pytest

from grader.batch import plots, similarity
from grader.labs import KIT_ROOT
from tests import pure_memo
from tests.mutation import apply, catalogue, reference_source

HISTOGRAM = [{"band": f"{10 * i}-{10 * i + 10}%", "count": i % 4} for i in range(10)] + [{"band": "100%", "count": 2}]
TASKS = [("value", 10.0, [10.0, 5.0, 0.0]), ("tensor", 20.0, [20.0, 20.0, 7.5])]
TESTS = [{"pass_rate": 0.5, "discrimination": 0.4}, {"pass_rate": 1.0, "discrimination": None}]
PLOT_INPUTS = {
    "score_histogram": (HISTOGRAM,),
    "task_distributions": (TASKS,),
    "item_analysis": (TESTS,),
    "rounds": (["week1", "this round"], {"mean": [50.0, None], "median": [40.0, 60.0]}),
}


def _original(module, name):
    return pure_memo.originals.get((module, name), getattr(module, name))


def test_make_test_loads_the_memo():
    makefile = (KIT_ROOT / "Makefile").read_text()
    assert "-p tests.pure_memo" in makefile
    assert set(PLOT_INPUTS) == set(pure_memo.PLOTS)


@pytest.mark.skipif(not plots.available(), reason="matplotlib is not installed")
@pytest.mark.parametrize("name", pure_memo.PLOTS)
def test_each_plot_drawn_again_is_the_same_bytes(name):
    """The purity the memo relies on: the same numbers, the same SVG."""
    draw = _original(plots, name)
    assert draw(*PLOT_INPUTS[name]) == draw(*PLOT_INPUTS[name])


def test_fingerprints_made_again_in_a_process_are_equal():
    pytest.importorskip("copydetect")
    reference = reference_source("ch06")
    texts = [reference, apply(reference, catalogue("ch06")[0])]
    make = _original(similarity, "fingerprint_texts")
    first, again = make(texts, reference), make(texts, reference)
    for one, other in zip(first, again, strict=True):
        for field in ("hashes", "places", "distinct", "offsets"):
            assert (getattr(one, field) == getattr(other, field)).all(), field
        assert (one.coverage, one.has_code) == (other.coverage, other.has_code)


def test_a_plot_is_drawn_once_per_input_and_each_input_gets_its_own():
    drawn = []
    memo = pure_memo.memo_plot(lambda *data: drawn.append(data) or f"<svg>{data!r}</svg>")
    assert memo([1, 2]) == memo([1, 2]) == "<svg>([1, 2],)</svg>"
    assert memo([1, 3]) == "<svg>([1, 3],)</svg>"
    assert drawn == [([1, 2],), ([1, 3],)]


def test_a_fingerprint_is_made_once_per_text_and_starter_and_cannot_be_changed():
    np = pytest.importorskip("numpy")
    asked = []

    def make(texts, starter):
        asked.append((list(texts), starter))
        return [
            similarity.Fingerprint(
                hashes=np.array([len(t)]), places=np.array([0]), distinct=np.array([len(t)]),
                coverage=len(t), has_code=True, offsets=np.array([0]),
            )
            for t in texts
        ]  # fmt: skip

    memo = pure_memo.memo_fingerprints(make)
    first = memo(["a", "bb", "a"], "s")
    again = memo(["bb", "ccc"], "s")
    other_starter = memo(["a"], "t")
    assert asked == [(["a", "bb"], "s"), (["ccc"], "s"), (["a"], "t")]
    assert first[0] is first[2] and first[1] is again[0] and other_starter[0] is not first[0]
    with pytest.raises(ValueError, match="read-only"):
        first[0].hashes[0] = 7

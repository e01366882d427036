"""The class report's plots, drawn with matplotlib as inline SVG (grader.batch.class_report puts them in the page).

Static SVG needs no JavaScript (plotly's offline HTML does), so the report can forbid every script
(grader.report.page). matplotlib comes with copydetect, the instructor's extra; it is imported only when
a plot is drawn, with the Agg backend (no display). Each plot is a pure function of numbers and of the
lab's own names (task and test ids): no text a student controls is drawn. Text stays text in the SVG
(svg.fonttype none): the page's fonts draw it, and no glyph definitions repeat from one plot to the next.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from inspect import signature

WIDTH, HEIGHT = 7.0, 3.0  # inches, at 72 points each in the SVG
BAR_COLOUR = "#4c72b0"
_BEFORE_SVG = re.compile(r"\A.*?(?=<svg)", re.S)  # the XML declaration and DOCTYPE: not in an HTML page


def available() -> bool:
    """Whether matplotlib is installed (the instructor's extra): without it the report has tables and no plots."""
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    return pyplot


def to_svg(figure, name: str) -> str:
    """``figure`` as an inline <svg> element, its ids salted with ``name`` so that plots in one page never share
    one; the same figure gives the same bytes (no date in the metadata)."""
    import matplotlib

    pyplot = _pyplot()
    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    pyplot.close(figure)
    return _BEFORE_SVG.sub("", out.getvalue(), count=1)


def score_histogram(histogram: Sequence[dict]) -> str:
    """summary.json's histogram (bands of 10 percent, 100% its own): students per band."""
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(WIDTH, HEIGHT))
    bands = [band["band"] for band in histogram]
    axes.bar(range(len(bands)), [band["count"] for band in histogram], color=BAR_COLOUR)
    axes.set_xticks(range(len(bands)), bands, rotation=45, ha="right")
    axes.set_xlabel("score (percent of the maximum)")
    axes.set_ylabel("students")
    axes.yaxis.get_major_locator().set_params(integer=True)
    return to_svg(figure, "score-histogram")


def task_distributions(tasks: Sequence[tuple[str, float, Sequence[float]]]) -> str:
    """Per task (its id, its maximum points, the points each student earned in it): a strip of every student's
    points over a box of their quartiles, one row per task, on a scale of the task's percent."""
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(WIDTH, 0.6 + 0.45 * max(len(tasks), 1)))
    rows = list(reversed(tasks))  # the first task on top
    fractions = [[100 * p / worth if worth else 100.0 for p in earned] for _, worth, earned in rows]
    positions = list(range(1, len(rows) + 1))
    if any(fractions):
        # matplotlib 3.10 says orientation=, and 3.13 no longer takes vert= (the kit takes 3.7 and up)
        sideways = {"orientation": "horizontal"} if "orientation" in signature(axes.boxplot).parameters else {}
        axes.boxplot(fractions, positions=positions, widths=0.6, showfliers=False, **(sideways or {"vert": False}))
    for position, values in zip(positions, fractions, strict=True):
        jitter = [position + 0.25 * (((i * 7919) % 13) / 13 - 0.5) for i in range(len(values))]
        axes.scatter(values, jitter, s=10, alpha=0.5, color=BAR_COLOUR)
    axes.set_yticks(positions, [f"{task} ({worth:g} pts)" for task, worth, _ in rows])
    axes.set_xlim(-5, 105)
    axes.set_xlabel("points earned in the task (percent of its points), one dot per student")
    return to_svg(figure, "task-distributions")


def item_analysis(tests: Sequence[dict]) -> str:
    """summary.json's tests: each one's pass rate against its discrimination index (the tests without one, on the
    line at 0, hollow: every student alike, or a test some pass whose students all have the same rest of the score)."""
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(WIDTH, HEIGHT + 0.5))
    with_index = [t for t in tests if t["discrimination"] is not None]
    without = [t for t in tests if t["discrimination"] is None]
    axes.scatter([100 * t["pass_rate"] for t in with_index], [t["discrimination"] for t in with_index],
                 color=BAR_COLOUR, s=18, label="separates students")  # fmt: skip
    axes.scatter([100 * t["pass_rate"] for t in without], [0] * len(without), facecolors="none",
                 edgecolors="grey", s=18, label="no index (every student alike, or the rest of the score)")  # fmt: skip
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.set_xlim(-5, 105)
    axes.set_ylim(-1.05, 1.05)
    axes.set_xlabel("pass rate (percent of the files that reach the test)")
    axes.set_ylabel("discrimination index")
    axes.legend(loc="lower left", fontsize="small")
    return to_svg(figure, "test-items")


def rounds(labels: Sequence[str], lines: dict[str, Sequence[float | None]]) -> str:
    """The class over grading rounds (oldest first): each line (e.g. the mean and the median score, in percent)
    one point per round; a round with no value for a line (no student counted) leaves a gap."""
    pyplot = _pyplot()
    figure, axes = pyplot.subplots(figsize=(WIDTH, HEIGHT))
    positions = list(range(len(labels)))
    for name, values in lines.items():
        axes.plot(positions, [float("nan") if v is None else v for v in values], marker="o", label=name)
    axes.set_xticks(
        positions, labels, rotation=30 if len(labels) > 4 else 0, ha="right" if len(labels) > 4 else "center"
    )
    axes.set_ylim(-5, 105)
    axes.set_xlabel("round (oldest first)")
    axes.set_ylabel("score (percent of the maximum)")
    axes.legend(loc="lower right", fontsize="small")
    return to_svg(figure, "rounds")

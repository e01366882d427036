"""The terminal table: the canonical report rendered for a person reading a terminal.

It is what `grader run` prints, in the order it prints it: the heading (before any test
runs), one line per task (each as soon as its tests end: grader.report.live), then, once
the run is over, the ending: the tests that lost points grouped by reason, the total, the
flags and one "next:" line, the first thing to fix. ``render`` is all of it, from a
finished report. Passed tests are not listed: their task's line counts them.

What the code under test chose (its file's name, its messages, the flags' quotes) is shown
with its control characters escaped: an escape sequence must not hide or rewrite the table.
"""

from __future__ import annotations

import textwrap

import click

from grader import verdicts
from grader.report import graded_tests
from grader.report.text import for_terminal, one_line_for_terminal

OUTCOME_STYLE = {
    "passed": ("passed", "green"),
    "failed": ("FAILED", "red"),
    "error": ("ERROR", "red"),
    "timeout": ("TIMEOUT", "magenta"),
    "crashed": ("CRASHED", "magenta"),
    "not_run": ("not run", "yellow"),
}
WIDTH = 100
GROUP_ROWS = 3  # tests that lost points for one reason: up to this many get a row each, more share one


def _points(x) -> str:
    return f"{x:g}"


def _styler(color: bool):
    def style(text, fg=None, bold=False):
        return click.style(text, fg=fg, bold=bold) if color else text

    return style


def heading(lab: str, lab_title: str, impl_name: str, mode: str, *, color: bool) -> list[str]:
    """The lab and the code under test, known before any test runs."""
    style = _styler(color)
    return [
        style(f"{lab}: {lab_title}", bold=True),
        f"code under test: {one_line_for_terminal(impl_name)} ({mode})",
        "",
    ]


def task_line(task: dict, *, color: bool) -> str:
    """A task's line (a report's entry in "tasks"): its title, how many tests passed, its score."""
    style = _styler(color)
    full = task["passed"] == task["tests"]
    passed = f"{task['passed']} of {task['tests']} passed"
    right = f"{passed:>16}  {_points(task['score']) + '/' + _points(task['max_score']):>9}"  # columns line up
    if "hidden" in task:  # the instructor's run: of those, the hidden tests, a column of its own to the left
        right = f"{'hidden ' + str(task['hidden']['passed']) + ' of ' + str(task['hidden']['tests']):>16}  {right}"
    title = task["title"][: WIDTH - len(right) - 1]
    padding = " " * (WIDTH - len(title) - len(right.lstrip()))
    return style(title, bold=True) + padding + style(right.lstrip(), fg="green" if full else "red")


def _tasks_run(report: dict) -> list[dict]:
    """The report's tasks that had tests in this run, in the table's order."""
    run = {t["task"] for t in graded_tests(report)}
    return [task for task in report["tasks"] if task["id"] in run]


def _said(test: dict) -> tuple[str, str, str]:
    return (test["outcome"], test["message"], test["hint"])


def _one_reason(lost: list[dict], tests: list[dict]) -> bool:
    """Every test errored in the same words: the file, not a test, is at fault (it does not import, ...)."""
    return (
        len(tests) > 1
        and len(lost) == len(tests)
        and len({_said(t) for t in lost}) == 1
        and lost[0]["outcome"] == "error"
    )


def _wrapped(test: dict, style) -> list[str]:
    lines = []
    for label, text in (("", for_terminal(test["message"])), ("hint: ", for_terminal(test["hint"]))):
        if text:
            wrapped = textwrap.wrap(label + text, WIDTH - 6, initial_indent="      ", subsequent_indent="        ")
            lines.extend(style(w, fg="cyan") if label else w for w in wrapped)
    return lines


def _groups(lost: list[dict]) -> list[list[dict]]:
    """The tests that lost points, grouped by their verdict's words, in the order each first appears."""
    groups: dict[tuple, list[dict]] = {}
    for test in lost:
        groups.setdefault(_said(test), []).append(test)
    return list(groups.values())


def _rows(group: list[dict]) -> list[tuple[str, float, float, str]]:
    """(label, points, max points, outcome) for each row a group of tests gets."""
    if len(group) <= GROUP_ROWS:
        return [(t["id"], t["points"], t["max_points"], t["outcome"]) for t in group]
    label = f"{group[0]['id']} + {len(group) - 1} more"
    return [(label, sum(t["points"] for t in group), sum(t["max_points"] for t in group), group[0]["outcome"])]


def _lost_points(report: dict, style) -> list[str]:
    """Per task, the tests that lost points, each reason said once under the rows it explains."""
    tests = graded_tests(report)
    lost = [t for t in tests if t["outcome"] != "passed"]
    if not lost:
        return []
    if _one_reason(lost, tests):
        word, fg = OUTCOME_STYLE[lost[0]["outcome"]]
        return ["", style(f"{word} in every test, for one reason:", fg=fg, bold=True), *_wrapped(lost[0], style)]
    blocks = []  # (the task's title, its groups' rows)
    for task in _tasks_run(report):
        groups = _groups([t for t in lost if t["task"] == task["id"]])
        if groups:
            blocks.append((task["title"], [(g, _rows(g)) for g in groups]))
    width = min(64, max((len(label) for _, groups in blocks for _, rows in groups for label, *_ in rows), default=10))
    lines, previous = [], None
    for title, groups in blocks:
        lines += ["", style(title, bold=True)]
        for group, rows in groups:
            for label, pts, max_pts, outcome in rows:
                word, fg = OUTCOME_STYLE[outcome]
                score = f"{_points(pts)}/{_points(max_pts)}"
                lines.append(f"  {label:<{width}}  {score:>7}  {style(word, fg=fg)}")
            said = (group[0]["message"], group[0]["hint"])
            if said == previous:  # a starter fails task after task for one reason: say it once
                lines.append("      (same message as above)")
            else:
                lines.extend(_wrapped(group[0], style))
            previous = said
    return lines


def _total(report: dict, style) -> str:
    tests = graded_tests(report)
    counts = {outcome: sum(t["outcome"] == outcome for t in tests) for outcome in OUTCOME_STYLE}
    summary = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items() if n)
    all_passed = counts["passed"] == len(tests)
    if report.get("partial") is None:
        text = f"Total: {_points(report['score'])}/{_points(report['max_score'])}  ({summary})"
    else:
        task = next(t for t in report["tasks"] if t["id"] == report["partial"]["task"])
        score = f"{_points(task['score'])}/{_points(task['max_score'])}"
        text = f"Total for {task['title']} only: {score}  ({summary}); the other tasks were not run"
    return style(text, fg="green" if all_passed else "red", bold=True)


def _another_lab(flag) -> str | None:
    """The lab a flag of the scan's says the file belongs to, if it says so."""
    if isinstance(flag, dict) and flag.get("code") == "another-lab":
        return verdicts.lab_it_looks_like(str(flag.get("message", "")))
    return None


def next_step(report: dict) -> str:
    """The one thing to do next: the first task not at full marks, its first test that lost points, and
    that test's hint (its message, if it has none: a stub says what to write)."""
    tests = graded_tests(report)
    lost = [t for t in tests if t["outcome"] != "passed"]
    if not lost:
        if report.get("partial") is not None:
            title = next(t["title"] for t in report["tasks"] if t["id"] == report["partial"]["task"])
            return f"next: every test of {title} passed; grade the whole lab to see the other tasks"
        return "next: nothing: every test passed"
    other = next(filter(None, map(_another_lab, report.get("flags", []))), None)
    if other is not None:  # its tests fail because it is another lab's work, not because of a bug to find
        own = for_terminal(report.get("lab", ""))
        return f"next: this file looks like lab {other}'s: grade it as that lab (--lab {other}), or hand in lab {own}'s"
    if _one_reason(lost, tests):
        return f"next: {for_terminal(lost[0]['hint'] or lost[0]['message'])}"
    first = next(t for task in _tasks_run(report) for t in lost if t["task"] == task["id"])
    title = next(task["title"] for task in report["tasks"] if task["id"] == first["task"])
    said = first["hint"] or first["message"]
    stub = f"{verdicts.NOT_IMPLEMENTED}: {title} - "  # a starter's stub names its task: say the task once
    if said.startswith(stub):
        return f"next: {title}: {for_terminal(said[len(stub) :])}"
    return f"next: {title}, {first['id']}: {for_terminal(said)}"


def ending(report: dict, *, color: bool) -> list[str]:
    """What follows the task lines once the run is over: what lost points, the total, the flags, what next."""
    style = _styler(color)
    lines = [*_lost_points(report, style), "", _total(report, style)]
    lines += [
        style(f"flag: {for_terminal(flag.get('message', flag))}", fg="yellow") for flag in report.get("flags", [])
    ]
    return [*lines, style(next_step(report), bold=True)]


def render(report: dict, *, color: bool) -> str:
    """The whole of what `grader run` prints for ``report`` (but the lines of a test still running)."""
    impl = report["implementation"]
    lines = heading(report["lab"], report["lab_title"], impl["name"], report["isolation"]["mode"], color=color)
    lines += [task_line(task, color=color) for task in _tasks_run(report)]
    return "\n".join(lines + ending(report, color=color))

"""The terminal table: the canonical report rendered for a person reading a terminal."""

from __future__ import annotations

import textwrap

import click

from grader.report.text import for_terminal

OUTCOME_STYLE = {
    "passed": ("passed", "green"),
    "failed": ("FAILED", "red"),
    "error": ("ERROR", "red"),
    "timeout": ("TIMEOUT", "magenta"),
    "crashed": ("CRASHED", "magenta"),
    "not_run": ("not run", "yellow"),
}
WIDTH = 100


def _points(x) -> str:
    return f"{x:g}"


def render(report: dict, *, color: bool, show_passed: bool = True) -> str:
    """The report as lines of text: a header, one block per task, a row per test, a total.

    What the code under test chose (its file's name, its messages, the flags' quotes) is shown
    with its control characters escaped: an escape sequence must not hide or rewrite the table."""

    def style(text, fg=None, bold=False):
        return click.style(text, fg=fg, bold=bold) if color else text

    impl = report["implementation"]
    lines = [
        style(f"{report['lab']}: {report['lab_title']}", bold=True),
        f"code under test: {for_terminal(impl['name'])} ({report['isolation']['mode']})",
        "",
    ]
    name_width = min(64, max((len(t["id"]) for t in report["tests"]), default=10))
    previous = None
    for task in report["tasks"]:
        header = f"{task['title']}"
        score = f"{_points(task['score'])}/{_points(task['max_score'])}"
        lines.append(style(f"{header:<{WIDTH - len(score) - 1}} {score}", bold=True))
        for test in (t for t in report["tests"] if t["task"] == task["id"]):
            if test["outcome"] == "passed" and not show_passed:
                continue
            word, fg = OUTCOME_STYLE[test["outcome"]]
            pts = f"{_points(test['points'])}/{_points(test['max_points'])}"
            lines.append(f"  {test['id']:<{name_width}}  {pts:>7}  {style(word, fg=fg)}")
            if test["outcome"] != "passed":
                said = (test["message"], test["hint"])
                if said == previous:  # a starter fails many tests for one reason: say it once
                    lines.append("      (same message as above)")
                    continue
                previous = said
                for label, text in (("", for_terminal(test["message"])), ("hint: ", for_terminal(test["hint"]))):
                    if text:
                        wrapped = textwrap.wrap(
                            label + text, WIDTH - 6, initial_indent="      ", subsequent_indent="        "
                        )
                        lines.extend(style(w, fg="cyan") if label else w for w in wrapped)
        lines.append("")
    counts = report["counts"]
    summary = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items() if n)
    total = f"Total: {_points(report['score'])}/{_points(report['max_score'])}  ({summary})"
    lines.append(style(total, fg="green" if report["all_passed"] else "red", bold=True))
    for flag in report.get("flags", []):
        lines.append(style(f"flag: {for_terminal(flag.get('message', flag))}", fg="yellow"))
    return "\n".join(lines)

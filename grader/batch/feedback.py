"""Each student's feedback file: what a solo `grader run` of their file prints in their own copy of the kit.

A graded student's ``feedback/<key>.md`` is the terminal table (grader.report.table.render, without
colour) of their report as their copy of the kit would grade it: the lab's hidden tests left out, the
tasks, scores and counts those leave. How much of the hidden tests it then says is the batch's
``--hidden-feedback`` (HIDDEN_FEEDBACK):

- ``count`` (the default): how many there are and their points, never their names or messages, in the
  words the Gradescope output uses (grader.report.exports.counted);
- ``scores``: also the points earned on them, and the whole grade, still unnamed;
- ``full``: the whole report's table, hidden tests listed like the visible ones (after the due date).

A student not graded (missing, invalid, ...) gets a short file: why, and what to hand in.
``as_html`` carries the same text in a page (``feedback/<key>.html``) for an LMS or a mail that shows HTML:
escaped, in a <pre>, under the kit's Content-Security-Policy (grader.report.page).
Everything a student controls (their id, their messages, flags and file name) is escaped: Markdown
outside the table, control characters inside it, and the table's fence is longer than any run of
backticks in it. Pure functions: the same report gives the same bytes.
"""

from __future__ import annotations

import re

from grader.batch import shards
from grader.grading.runner import TestResult
from grader.labs import Task
from grader.report import outcome_counts, table, task_summary
from grader.report.exports import counted, tier_of
from grader.report.page import html_page
from grader.report.text import code_span, html_text, markdown, points, visible

HIDDEN_FEEDBACK = ("count", "scores", "full")
DEFAULT_HIDDEN_FEEDBACK = "count"
# Statuses that say nothing of the student's file: the kit failed, or their shard was not merged.
NOT_THEIR_FILE = ("error", shards.SHARD_MISSING, shards.SHARD_UNFINISHED)


def student_view(report: dict) -> dict:
    """``report`` as the student's own copy of the kit would have written it: without the hidden tests,
    each task's and the lab's score, counts and outcome over the visible tests alone."""
    tests = [t for t in report["tests"] if tier_of(t) == "visible"]
    results = [TestResult(**t) for t in tests]  # a report's test has a TestResult's fields, by name
    tasks = [
        task_summary(Task(task["id"], task["title"]), [r for r in results if r.task == task["id"]])
        for task in report["tasks"]
    ]
    counts = outcome_counts(results)
    return {
        **report,
        "tests": tests,
        "tasks": tasks,
        "counts": counts,
        "all_passed": counts["passed"] == len(tests),
        "score": points(sum(t["points"] for t in tests)),
        "max_score": points(sum(t["max_points"] for t in tests)),
    }


def fenced(text: str) -> list[str]:
    """``text`` as a Markdown code block nothing in it can close: a fence longer than any run of backticks."""
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return [f"{fence}text", text, fence]


def _title(lab: str, lab_title: str, student: str, collected: dict | None = None) -> list[str]:
    whose = f"Feedback for {markdown(student)}."
    if collected and collected.get("version") == "late":  # graded apart from the submission it may replace
        commit, late_by = markdown(str(collected.get("commit") or "")[:12]), markdown(str(collected.get("late_by")))
        whose = f"Feedback for {markdown(student)}'s late work: commit {commit}, {late_by} late."
    return [f"# {markdown(lab)}: {markdown(lab_title)}", "", whose, ""]


def _hidden_words(report: dict, hidden: list[dict], rule: str) -> list[str]:
    """What the feedback says of the hidden tests under ``rule`` (the table says nothing of them but with full)."""
    if not hidden or rule == "full":
        return []
    said = f"Your grade also counts {counted(hidden, 'hidden')}, which this feedback does not show."
    if rule == "scores":
        earned, worth = points(sum(t["points"] for t in hidden)), points(sum(t["max_points"] for t in hidden))
        said += (
            f" You earned {earned} of their {worth} points: your grade is "
            f"{points(report['score'])}/{points(report['max_score'])}."
        )
    return [said, ""]


def graded(
    report: dict, student: str, *, hidden_feedback: str = DEFAULT_HIDDEN_FEEDBACK, collected: dict | None = None
) -> str:
    """A graded student's feedback in Markdown: their table as a solo run prints it, and the hidden tests'
    count (and with ``scores`` their points); with ``full``, the whole report's table."""
    if hidden_feedback not in HIDDEN_FEEDBACK:
        raise ValueError(f"--hidden-feedback must be one of {', '.join(HIDDEN_FEEDBACK)}, not {hidden_feedback!r}")
    shown = report if hidden_feedback == "full" else student_view(report)
    hidden = [t for t in report["tests"] if tier_of(t) != "visible"]
    run = "`grader run`" if hidden_feedback == "full" else "`grader run` in your own copy of the kit"
    lines = _title(report["lab"], report["lab_title"], student, collected)
    lines += [f"What {run} prints for your file:", ""]
    # for_terminal (inside render) writes the controls as escapes; visible() the lone surrogates too.
    lines += [*fenced(visible(table.render(shown, color=False))), ""]
    lines += _hidden_words(report, hidden, hidden_feedback)
    return "\n".join(lines)


# A fork's statuses whose reason is for the instructor alone: why its history looks rewritten (a suspicion,
# not a verdict, until they decide), and git's own error, which names the instructor's paths and hosts.
REASON_KEPT_FROM_STUDENT = {
    "suspect": "Your fork's history is waiting for your instructor's review: it is not graded yet.",
    "unreachable": "Your fork could not be fetched at the deadline: check that your instructor can read it; "
    "they have git's message.",
}


def not_graded(record: dict, lab_title: str) -> str:
    """The feedback of a student the batch did not grade: their status and its reason, and what to do."""
    lab, status, collected = record["lab"], record["status"], record.get("collected")
    lines = _title(lab, lab_title, record["student"], collected)
    starter = code_span(f"labs/{lab}/starter.py")
    check = f"Check it first in your copy of the kit: {code_span(f'.venv/bin/grader run --lab {lab}')}."
    if status in REASON_KEPT_FROM_STUDENT:
        return "\n".join([*lines, f"Not graded ({markdown(status)}).", "", REASON_KEPT_FROM_STUDENT[status], ""])
    if status == "late":  # nothing on time; the late work has its own record and feedback, when it was graded
        lines += [
            "Nothing was committed to your fork before the deadline. Your late work is graded apart: its feedback is "
            f"{code_span(str(record['key']) + '~late.md')}, and the course's late policy says what it counts for.",
            "",
        ]
        return "\n".join(lines)
    reason = f": {markdown(record['reason'])}" if record.get("reason") else ""
    lines += [f"Not graded ({markdown(status)}){reason}", ""]
    if status in NOT_THEIR_FILE:
        lines.append("This is not about your file: your instructor will grade it again.")
    elif collected:  # a fork: the file is the one in the commit collected
        lines.append(
            f"What is graded: {starter} as committed to your fork, with your code in it, neither empty nor only "
            f"comments, at most 1 MiB, in UTF-8. {check}"
        )
    else:
        lines.append(
            f"What to hand in: one Python file, your copy of {starter} with your code "
            "in it: a `.py` text file (not a notebook: export it as a .py), neither empty nor only comments, at "
            f"most 1 MiB. {check}"
        )
    return "\n".join([*lines, ""])


def for_record(
    record: dict, report: dict | None, lab_title: str, *, hidden_feedback: str = DEFAULT_HIDDEN_FEEDBACK
) -> str:
    """The feedback file of the student of ``record`` (``report``: theirs if they were graded)."""
    if record["status"] == "graded" and report is not None:
        return graded(report, record["student"], hidden_feedback=hidden_feedback, collected=record.get("collected"))
    return not_graded(record, lab_title)


def as_html(text: str, record: dict) -> str:
    """The feedback file ``text`` (Markdown, as ``for_record`` makes it) as a page: the same text, escaped, in a
    <pre> (the table is plain text, aligned as a terminal shows it)."""
    title = f"{record['lab']}: feedback for {record['student']}"
    return html_page(title, f'<pre id="feedback">{html_text(text)}</pre>')

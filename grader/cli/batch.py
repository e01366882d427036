"""``grader batch`` and ``grader merge``: the instructor's way in (see grader.batch)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from grader import batch
from grader.batch import feedback, shards, similarity
from grader.cli.options import UsageProblem, lab_named, with_limits
from grader.grading import runner
from grader.report.text import one_line_for_terminal


class _Refused(UsageProblem):
    """The shard folders are not one whole class: exit 1, like a check that failed (exit 2 stays for usage)."""

    exit_code = 1


class _Progress:
    """A progress bar on a terminal (done/total, rate, time left); one line per student elsewhere (CI logs)."""

    def __init__(self):
        self.bar = None
        self.done = 0
        self.started = time.monotonic()
        self.interactive = sys.stderr.isatty()

    def start(self, total: int) -> None:
        self.total = total
        if self.interactive:
            self.bar = click.progressbar(
                length=total, label="grading", show_pos=True, show_eta=True, file=sys.stderr, item_show_func=self._rate
            )
            self.bar.__enter__()

    def _rate(self, _item) -> str:
        elapsed = time.monotonic() - self.started
        return f"{self.done / elapsed:.2f}/s" if elapsed > 0 and self.done else ""

    def update(self, entry: batch.inputs.Entry, record: dict) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1, entry)
        else:
            score = f"{record['score']:g}/{record['max_score']:g}" if record["status"] == "graded" else record["status"]
            late = " (late work)" if entry.version == "late" else ""
            click.echo(f"[{self.done}/{self.total}] {one_line_for_terminal(entry.student)}{late}: {score}", err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def _final_screen(result: batch.BatchResult, out: Path, elapsed: float, regraded: tuple[str, ...] = ()) -> str:
    summary = result.summary
    dist = summary["distribution"]
    statuses = ", ".join(f"{n} {s}" for s, n in summary["statuses"].items()) or "no students"
    part = summary.get("shards")
    shard = f" (shard {part['present'][0]}/{part['count']})" if part else ""
    if regraded:
        who = ", ".join(one_line_for_terminal(s) for s in sorted(set(regraded)))
        first = f"regraded {who} in {elapsed:.1f} s; the class: {summary['students']} students ({statuses})"
    else:
        first = (
            f"{result.students} students ({statuses}) in {elapsed:.1f} s; "
            f"graded now {result.graded_now}, up to date {result.skipped}"
        )
    lines = [f"{summary['lab']}{shard}: {first}"]
    if dist["count"]:
        lines.append(
            f"scores: mean {dist['mean_percent']:g}%, median {dist['median_percent']:g}%, "
            f"min {dist['min_percent']:g}%, max {dist['max_percent']:g}%"
        )
    tests = {t["id"]: t for t in summary["tests"]}
    hardest = [tests[t] for t in summary["separating"][:5]]
    if hardest:
        lines.append(
            "most failed of the tests that separate students: "
            + ", ".join(f"{t['id']} ({t['pass_rate']:.0%} pass)" for t in hardest)
        )
    same = summary["identical"]
    groups = len(same["same_file"]) + len(same["same_code"])
    if groups:
        lines.append(f"identical submissions: {groups} group{'s' * (groups != 1)} (see the summary)")
    if summary["flagged"]:
        flagged = ", ".join(one_line_for_terminal(r["student"]) for r in summary["flagged"])
        lines.append(f"flagged for review: {flagged}")
    lines.append(
        f"gradebook: {out / 'grades.csv'}   summary: {out / 'summary.md'}   reports: {out / 'reports'}/   "
        f"feedback: {out / 'feedback'}/   report: {out / 'report.html'}"
    )
    return "\n".join(lines)


HIDDEN_FEEDBACK_OPTION = click.option(
    "--hidden-feedback",
    type=click.Choice(feedback.HIDDEN_FEEDBACK),
    default=feedback.DEFAULT_HIDDEN_FEEDBACK,
    show_default=True,
    help="What each student's OUT/feedback/<student>.md says of the hidden tests: count (how many, their points), "
    "scores (also the points earned), full (listed like the visible ones: after the due date).",
)

SIMILARITY_OPTION = click.option(
    "--similarity-threshold",
    "similarity_threshold",
    default=str(similarity.DEFAULT_THRESHOLD),
    show_default=True,
    metavar="FLOAT|off",
    help="List the pairs of students whose code is this alike (0 to 1: the share of one file found in the other), "
    "in similarity.json and summary.md; off: compare nobody.",
)


@click.command("batch")
@click.argument("submissions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--lab", "lab_name", required=True, help="Lab id, e.g. ch06.")
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Output folder."
)
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Parallel graders [default: the CPU count].")
@click.option("--resume", is_flag=True, help="Continue a batch in --out: grade only what is missing or changed.")
@click.option(
    "--forget-missing",
    is_flag=True,
    help="With --resume: drop from the gradebook the students --out graded that these inputs no longer hold "
    "(without it such a resume is refused, changing nothing).",
)
@click.option("--shard", default=None, metavar="I/N", help="Grade only the I-th of N deterministic shards (1-based).")
@click.option("--limit", "limits", multiple=True, metavar="NAME=VALUE", help="Override one of the lab's [limits].")
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="STUDENT",
    help="Regrade this student (repeat the option for more) in the batch --out already holds, from the same "
    "inputs, whatever their record says; everyone else is left as graded. The class files are written again.",
)
@HIDDEN_FEEDBACK_OPTION
@SIMILARITY_OPTION
def batch_command(
    submissions,
    lab_name,
    out_dir,
    jobs,
    resume,
    forget_missing,
    shard,
    limits,
    only,
    hidden_feedback,
    similarity_threshold,
):
    """Grade a whole class behind the wall: folders of .py files or of forks, or .zip files of either.

    Writes OUT/grades.csv, OUT/reports/<student>.json, OUT/feedback/<student>.md (and .html), OUT/summary.json,
    OUT/summary.md, OUT/similarity.json and OUT/report.html (the class report: `grader report OUT` writes it again).
    Exit status 0 when every student was recorded (whatever their scores), 2 on a usage or
    infrastructure error, 130 when interrupted (continue with --resume).
    """
    lab = with_limits(lab_named(lab_name), limits)
    threshold = _threshold(similarity_threshold)
    try:
        chosen = batch.Shard.parse(shard) if shard else None
    except ValueError as exc:
        raise UsageProblem(str(exc) if "shard" in str(exc) else f"--shard takes I/N, got {shard!r}") from None
    try:
        runner.require_sandbox("worker")  # before any student: a machine without a sandbox grades nobody
    except runner.GradingError as exc:
        raise UsageProblem(str(exc)) from None
    progress = _Progress()
    started = time.monotonic()
    try:
        result = batch.run_batch(
            lab, list(submissions), out_dir, jobs=jobs, resume=resume, shard=chosen, hidden_feedback=hidden_feedback,
            on_start=progress.start, on_done=progress.update, similarity_threshold=threshold, only=only,
            forget_missing=forget_missing,
        )  # fmt: skip
    except (batch.InputError, batch.OutputError, batch.RegradeError) as exc:
        raise UsageProblem(str(exc)) from None
    except KeyboardInterrupt:
        progress.close()  # before the message, so the bar does not overwrite it
        click.echo(
            f"\ninterrupted: the students graded so far are saved in {out_dir}; continue with --resume", err=True
        )
        sys.exit(130)
    finally:
        progress.close()
    click.echo(_final_screen(result, out_dir, time.monotonic() - started, regraded=only))


def _threshold(text: str) -> float | None:
    try:
        threshold = similarity.parse_threshold(text)
        if threshold is not None:
            similarity.require_library()
        return threshold
    except similarity.ThresholdError as exc:
        raise UsageProblem(str(exc)) from None


@click.command("merge")
@click.argument("shard_dirs", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--lab", "lab_name", required=True, help="Lab id, e.g. ch06.")
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Output folder."
)
@click.option(
    "--partial",
    is_flag=True,
    help="Merge even without every shard: their students are listed as not graded, and the summary says so.",
)
@HIDDEN_FEEDBACK_OPTION
@SIMILARITY_OPTION
def merge_command(shard_dirs, lab_name, out_dir, partial, hidden_feedback, similarity_threshold):
    """Combine the output folders of every `grader batch --shard I/N` run into one gradebook and summary.

    Exit status 0 when merged; 1, with the reason and nothing written, when the folders are not
    every shard of one class (a shard missing, unfinished or given twice; shards of another
    split, other inputs, another lab or kit); 2 on a usage error.
    """
    lab = lab_named(lab_name)
    threshold = _threshold(similarity_threshold)
    try:
        summary = batch.merge(
            lab, list(shard_dirs), out_dir, partial=partial, hidden_feedback=hidden_feedback,
            similarity_threshold=threshold,
        )  # fmt: skip
    except batch.ShardError as exc:
        raise _Refused(str(exc)) from None
    except batch.OutputError as exc:
        raise UsageProblem(str(exc)) from None
    folders = f"{len(shard_dirs)} folder{'s' * (len(shard_dirs) > 1)}"
    click.echo(f"{summary['lab']}: merged {summary['students']} students from {folders} into {out_dir}")
    if "shards" in summary:
        not_merged = (shards.SHARD_MISSING, shards.SHARD_UNFINISHED)
        left = sum(n for status, n in summary["statuses"].items() if status in not_merged)
        click.echo(f"partial: {shards.coverage_words(summary['shards'])}; not graded: {left} students (see summary.md)")

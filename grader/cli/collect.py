"""``grader collect``: students' forks as they stood at a deadline, for ``grader batch`` (grader.batch.collect)."""

from __future__ import annotations

import math
import sys
from collections import Counter
from pathlib import Path

import click

from grader import labs
from grader.batch import collect, collection, git, roster
from grader.cli.options import UsageProblem, lab_named
from grader.report.text import for_terminal

STATUS_WORDS = {
    "on-time": "on time",
    "late": "late only",
    "suspect": "suspect",
    "unreachable": "unreachable",
    "empty": "empty",
    "missing": "no lab file",
}


def _finite(seconds: float) -> float:
    """click's FloatRange lets nan through (every comparison with it is false): git would then have no time."""
    if not math.isfinite(seconds):
        raise click.BadParameter(f"{seconds} is not a number of seconds from 1 to 3600", param_hint="'--timeout'")
    return seconds


def _short(sha: str | None) -> str:
    return (sha or "")[:12]


def describe(record: dict) -> str:
    """One student's collection in one line, for the terminal."""
    status = record["status"]
    words = [STATUS_WORDS.get(status, status)]
    if record.get("commit"):
        words[0] += f" at {_short(record['commit'])} ({record['committed_at']})"
    late = record.get("late")
    if late:
        words.append(f"late work {_short(late['commit'])}, {late['late_by']} late")
    if record.get("problem"):
        words.append(record["problem"])
    return for_terminal(f"{record['student']}: " + "; ".join(words))


def _final_screen(record: dict, out: Path, lab_name: str | None) -> str:
    students = record["students"]
    counts = Counter(s["status"] for s in students)
    with_late = sum(1 for s in students if s["status"] == "on-time" and s.get("late"))
    parts = [f"{counts[s]} {STATUS_WORDS[s]}" for s in collection.STATUSES if counts[s]]
    if with_late:
        parts[0] += f" ({with_late} with late work)"
    lines = [f"collected {len(students)} students at the deadline {record['deadline']}: {', '.join(parts)}"]
    for s in students:
        if s["status"] == "suspect":
            lines.append(for_terminal(f"suspect, graded by nobody until you decide: {s['student']}: {s['problem']}"))
    lines.append(f"record: {out / collection.RECORD}   files: {out / record['files']}/")
    lab = lab_name or "ID"
    lines.append(f"next: grader batch {out} --lab {lab} --out OUT")
    return "\n".join(lines)


@click.command("collect")
@click.argument("roster_path", metavar="ROSTER", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--deadline", required=True, help="ISO 8601 with its offset, e.g. 2026-12-01T23:59:00+01:00 (Z: UTC).")
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path), help="Collection folder."
)
@click.option("--lab", "lab_name", default=None, help="Collect only this lab's file [default: every lab's].")
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=4, show_default=True, help="Forks cloned at once.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=1, max=3600),
    callback=lambda ctx, param, value: _finite(value),
    default=collect.DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds git may spend on one fork (clone and reads).",
)
def collect_command(roster_path, deadline, out_dir, lab_name, jobs, timeout):
    """Collect each student's fork as it stood at a deadline, into a folder `grader batch` grades.

    ROSTER is a CSV file: a header row, then a student id and the git URL of their fork
    (https://, ssh://, user@host:path or file://). Each fork is graded at the last commit of
    its default branch dated before the deadline, and at its latest commit when that one is
    late. Run it at the deadline, then again later into the same --out: the second run tells
    a history rewritten since the first, or a commit pushed after the deadline with an
    earlier date. Exit status 0 when the record was written (whatever the forks held), 2 on
    a usage error, 130 when interrupted (nothing recorded).
    """
    version = git.git_version()
    if version is None:
        raise UsageProblem("git is not installed: grader collect needs it (e.g. sudo apt-get install git)")
    try:
        moment = collection.parse_deadline(deadline)
    except ValueError as exc:
        raise UsageProblem(f"--deadline {exc}") from None
    lab_ids = [lab_named(lab_name).id] if lab_name else sorted(labs.discover())
    try:
        students = roster.read(roster_path)
    except roster.RosterError as exc:
        raise UsageProblem(str(exc)) from None
    done = [0]

    def progress(record: dict) -> None:
        done[0] += 1
        click.echo(f"[{done[0]}/{len(students)}] {describe(record)}", err=True)

    try:
        record = collect.collect(
            roster_path.name, students, moment, out_dir, lab_ids, jobs=jobs, timeout=timeout, on_done=progress
        )
    except collection.CollectionError as exc:
        raise UsageProblem(str(exc)) from None
    except OSError as exc:
        raise UsageProblem(f"cannot write the collection in {out_dir}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        click.echo(f"\ninterrupted: nothing recorded; {out_dir} holds what it held before", err=True)
        sys.exit(130)
    click.echo(_final_screen(record, out_dir, lab_name))

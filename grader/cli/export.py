"""``grader export``: a batch's grades in an LMS's import format, with a roster, a late policy and overrides."""

from __future__ import annotations

from pathlib import Path

import click

from grader.batch import export, late, lms, outputs
from grader.cli.options import UsageProblem
from grader.report.text import for_terminal


def _policy(course: Path | None, per_day, cap, grace) -> tuple[late.LatePolicy | None, str | None]:
    """The late policy and the due time: the course file's [late] table, each command-line option winning."""
    table = late.read_course(course) if course is not None else {}
    given = {"per_day": per_day, "cap": cap, "grace": grace}
    merged = {**table, **{k: v for k, v in given.items() if v is not None}}
    rule = None
    if any(merged.get(k) is not None for k in given):
        rule = late.policy(merged.get("per_day"), merged.get("cap"), merged.get("grace"))
    return rule, merged.get("due")


@click.command("export")
@click.argument("out_dir", metavar="OUT", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "format_", type=click.Choice(lms.FORMATS), required=True, help="The LMS file to write.")
@click.option(
    "--roster",
    "roster_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The class roster: a CSV file with a student id column and the name, LMS id, section (and optionally "
    "SIS User ID, SIS Login ID, submitted_at) columns.",
)
@click.option("--assignment", default=None, help="The assignment's name in the LMS [default: the lab id].")
@click.option("--assignment-id", default=None, help="Canvas's assignment id: the column is then 'NAME (ID)'.")
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the file [default: OUT/gradebook-FORMAT.csv].",
)
@click.option("--missing-as-zero", is_flag=True, help="Give a student with no submission 0 instead of no grade.")
@click.option("--late-per-day", type=float, default=None, metavar="PERCENT", help="Late penalty per day begun.")
@click.option("--late-cap", type=float, default=None, metavar="PERCENT", help="The most a late penalty takes.")
@click.option("--late-grace", default=None, metavar="DURATION", help="Grace period: 15m, 2h, 1d (a number: minutes).")
@click.option("--due", default=None, help="Due time for the LMS's submission times, ISO 8601 with its offset.")
@click.option(
    "--submission-times",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A CSV file of the LMS's submission times (student,submitted_at), instead of a roster column.",
)
@click.option(
    "--course",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A course file (TOML) whose [late] table gives per_day, cap, grace and due; the options win.",
)
@click.option(
    "--allow-changed-inputs",
    is_flag=True,
    help="Export the grades as graded even though the batch's inputs hold other files now.",
)
def export_command(
    out_dir, format_, roster_path, assignment, assignment_id, output, missing_as_zero, late_per_day, late_cap,
    late_grace, due, submission_times, course, allow_changed_inputs,
):  # fmt: skip
    """Write a batch's grades (OUT, from grader batch or merge) as an LMS imports them: one row per roster student,
    in the roster's order.

    \b
    Formats: canvas (Student, ID, SIS User ID, SIS Login ID, Section, the assignment's column, and the
    Points Possible row), moodle (an identifier, the grade, feedback), csv (status, graded score, late
    penalty, overrides, final score, maximum, reason).

    \b
    Grades:
    - a roster student with no submission is missing: an empty cell (0 with --missing-as-zero);
    - a student who handed in something that was not graded (invalid, error, timeout, suspect...) gets 0,
      with the reason in the csv format;
    - a student graded but not on the roster is named on stderr and listed at the end of the csv format;
    - late: 0 within the grace period; past it every day begun counts, from the due time; the penalty is
      PERCENT a day of the late score, at most the cap. Lateness comes from the LMS's submission times
      (submitted_at in the roster or --submission-times, with --due) or from grader collect's commits:
      with a policy, a student's late work counts as the better of their on-time score and their late
      score less its penalty; without one, late work does not count;
    - OUT/overrides.csv (student,target,points,reason,who): a test's points replace what the test earned
      (before the late penalty); a total replaces the final grade (after it).

    Writes the file, OUT/final_grades.json, and appends a line to OUT/audit.jsonl (time, user, the roster's
    and the overrides' sha256, each adjusted student); OUT/report.html is written again, to list them.
    Only a whole class's finished gradebook is exported: not a batch that has not finished, one shard's folder
    or a partial merge (their students not graded would read missing, or 0). Nor, unless --allow-changed-inputs,
    a batch whose inputs hold other files now than it graded (a second grader collect, a fresh download):
    grade them again with grader batch --resume, which regrades only what changed (late work is compared only
    under a late policy). Inputs no longer there are not checked (a warning says so), the others still are;
    the audit line says which it was.
    Exit status 0 when written, 2 (nothing written) on a bad batch folder, roster, policy, course file or
    override, or changed inputs.
    """
    try:
        rule, due_time = _policy(course, late_per_day, late_cap, late_grace)
        request = export.Request(
            out=out_dir, format=format_, roster=roster_path, assignment=assignment, assignment_id=assignment_id,
            output=output, policy=rule, due=due or due_time, submission_times=submission_times,
            missing_as_zero=missing_as_zero, course=course, allow_changed_inputs=allow_changed_inputs,
        )  # fmt: skip
        prepared = export.prepare(request)
    except (late.PolicyError, export.ExportError) as exc:
        raise UsageProblem(str(exc)) from None
    for warning in prepared.warnings:
        click.echo(for_terminal(f"warning: {warning}"), err=True)
    try:
        with outputs.writing(out_dir):  # not while a batch or another export writes the folder
            export.write(prepared)
            try:  # the class report's final grades section shows what this export changed
                report = outputs.write_report(out_dir)
            except outputs.OutputError as exc:
                report = None
                click.echo(for_terminal(f"warning: the class report was not written again: {exc}"), err=True)
    except outputs.OutputError as exc:
        raise UsageProblem(str(exc)) from None
    except OSError as exc:
        raise UsageProblem(f"cannot write the export: {exc.strerror or exc}") from None
    entries = prepared.doc["students"]
    missing = sum(e["status"] == "missing" for e in entries)
    adjusted = len(prepared.audit["adjusted"])
    click.echo(
        f"{format_}: {len(entries)} roster students ({missing} missing, {adjusted} adjusted by a late penalty or "
        f"an override) written to {prepared.output}; final grades: {out_dir / export.FINAL_GRADES}"
        + (f"; class report: {report}" if report else "")
    )

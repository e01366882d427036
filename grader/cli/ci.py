"""``grader ci``: autograding on a student's fork (see grader.platforms.github); cli.py registers it on ``main``.

Exit status: 0 when grading ran, whatever the score; 2 when it could not (a lab that cannot
be collected, an unreadable manifest), with a one-line message; 1 for what ``--fail-on``
names: ``points`` (points were lost) or ``tampered`` (the integrity check had findings).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import click

from grader import labs
from grader.cli.options import UsageProblem, lab_named
from grader.grading import runner
from grader.kit import manifest
from grader.labs import KIT_ROOT
from grader.platforms import github

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
OUTPUT_ENV = "GITHUB_OUTPUT"


def _workflow_data(text: str) -> str:
    """Text as the message of a GitHub workflow command (``::warning::...``): one line, escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _env_file(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def _cannot_grade(message: str) -> UsageProblem:
    """Exit status 2 with the first line of ``message``; the whole of it goes to the job summary, if there is one."""
    summary = _env_file(SUMMARY_ENV)
    if summary is not None:
        with contextlib.suppress(OSError):  # the one-line message below says what matters
            github.append(summary, github.failure_summary(message))
    first = message.strip().splitlines()[0] if message.strip() else "grading could not run"
    return UsageProblem(first.rstrip(":"))


def _chosen_labs(lab_names: tuple[str, ...]) -> list[labs.Lab]:
    if lab_names:
        return list({lab.id: lab for lab in map(lab_named, lab_names)}.values())
    try:
        return list(labs.discover().values())
    except labs.LabError as exc:
        raise UsageProblem(str(exc)) from None


def _integrity(manifest_path: Path) -> dict:
    """Verify the kit against the manifest; print the findings; the report's integrity record."""
    try:
        verification = manifest.verify(KIT_ROOT, manifest.load_manifest(manifest_path))
    except manifest.ManifestError as exc:
        raise _cannot_grade(str(exc)) from None
    record = github.integrity_record(verification)
    for finding in record["findings"]:
        click.echo(f"integrity: {finding}")
    if record["tampered"]:
        listed = ", ".join(record["findings"])
        click.echo(
            f"::warning title=Integrity check (advisory)::{_workflow_data(f'files differ from the kit: {listed}')}"
        )
    else:
        click.echo("integrity: every protected file is as shipped, and nothing was added that changes the grading")
    return record


@click.command("ci")
@click.option(
    "--lab", "lab_names", multiple=True, metavar="ID", help="Grade this lab (repeat for more) [default: every lab]."
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("reports/ci"),
    show_default=True,
    help="Write the reports here.",
)
@click.option(
    "--manifest",
    "manifest_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Check the kit against this manifest [default: the kit's {manifest.MANIFEST_RELPATH}; "
    "an instructor's CI points it at a trusted copy].",
)
@click.option(
    "--fail-on",
    "fail_on",
    type=click.Choice(["infra", "points", "tampered"]),
    multiple=True,
    default=("infra",),
    show_default=True,
    help="Exit 1 when points were lost (points) or files differ from the kit (tampered); "
    "infra: only when grading cannot run (exit 2, always). Repeat to combine.",
)
def ci_command(lab_names, out_dir, manifest_path, fail_on):
    """Grade your starters behind the wall as CI on your fork does: reports, GitHub Classroom's result and
    the job summary. Advisory: the grade of record is the instructor's batch run."""
    chosen = _chosen_labs(lab_names)
    integrity = _integrity(manifest_path or KIT_ROOT / manifest.MANIFEST_RELPATH)
    reports = []
    for lab in chosen:
        if not lab.starter.is_file():
            raise _cannot_grade(f"labs/{lab.id}/starter.py is missing: restore it (your work goes in it)")
        try:
            document = github.grade_lab(lab, integrity)
        except runner.GradingError as exc:
            raise _cannot_grade(str(exc)) from None
        passed = f"{document['counts']['passed']}/{len(document['tests'])} tests passed"
        click.echo(f"{lab.id}: {document['score']:g}/{document['max_score']:g} points ({passed})", err=True)
        reports.append(document)
    summary = github.job_summary(reports, integrity)
    try:
        github.write_outputs(reports, integrity, out_dir)
        if (path := _env_file(SUMMARY_ENV)) is not None:
            github.append(path, summary)
        else:
            click.echo(summary, nl=False)
        if (path := _env_file(OUTPUT_ENV)) is not None:
            github.append(path, github.step_outputs(reports, integrity))
    except OSError as exc:
        raise UsageProblem(f"cannot write the results: {exc}") from None
    click.echo(f"reports: {out_dir}/", err=True)
    click.echo(github.annotation(reports))
    failed = ("points" in fail_on and github.lost_points(reports)) or ("tampered" in fail_on and integrity["tampered"])
    sys.exit(1 if failed else 0)

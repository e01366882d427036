"""``grader ci``: autograding on a student's fork (see grader.platforms.github); cli.py registers it on ``main``.

Which labs: those ``--lab`` or ``$LABKIT_LAB`` names (the assignment's: the workflow passes its
``vars.LABKIT_LAB``); else, with ``--changed``, those whose starter.py differs from the pristine
one the manifest records (every lab when none does, saying so); else every lab.

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
from grader.report.text import points, whole_points

SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
OUTPUT_ENV = "GITHUB_OUTPUT"
LAB_ENV = "LABKIT_LAB"  # the assignment's lab: a GitHub Actions variable (vars.LABKIT_LAB) the workflow passes on


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


def _every_lab() -> list[labs.Lab]:
    try:
        return list(labs.discover().values())
    except labs.LabError as exc:
        raise UsageProblem(str(exc)) from None


def _chosen_labs(lab_names: tuple[str, ...], changed: bool, shipped: dict) -> tuple[list[labs.Lab], str]:
    """The labs to grade, and a sentence saying why those (for the log and the job summary)."""
    if lab_names:
        chosen = list({lab.id: lab for lab in map(lab_named, lab_names)}.values())
        named = ", ".join(lab.id for lab in chosen)
        return chosen, f"Graded: {named}, the lab{'s' if len(chosen) > 1 else ''} the assignment names."
    every = _every_lab()
    if not changed:
        return every, "Graded: every lab."
    found = github.changed_labs(KIT_ROOT, shipped, every)
    if found is None:
        return every, "Graded: every lab (the manifest records no pristine starter to tell the changed ones)."
    if not found:
        return every, "Graded: every lab (no lab's starter.py differs from the one shipped)."
    names = ", ".join(lab.id for lab in found)
    return found, f"Graded: {names}, the lab{'s' if len(found) > 1 else ''} whose starter.py you changed."


def _load_manifest(manifest_path: Path) -> dict:
    try:
        return manifest.load_manifest(manifest_path)
    except manifest.ManifestError as exc:
        raise _cannot_grade(str(exc)) from None


def _integrity(shipped: dict) -> dict:
    """Verify the kit against the manifest; print the findings; the report's integrity record."""
    record = github.integrity_record(manifest.verify(KIT_ROOT, shipped))
    for finding in record["findings"]:
        click.echo(f"integrity: {finding}")
    if record["tampered"]:
        listed = ", ".join(record["findings"])
        click.echo(
            f"::warning title=Integrity check (advisory)::{github.command_data(f'files differ from the kit: {listed}')}"
        )
    else:
        click.echo("integrity: every protected file is as shipped, and nothing was added that changes the grading")
    return record


@click.command("ci")
@click.option(
    "--lab",
    "lab_names",
    multiple=True,
    metavar="ID",
    envvar=LAB_ENV,
    help=f"Grade this lab (repeat for more; ${LAB_ENV}, the workflow's variable, names them too) [default: every lab].",
)
@click.option(
    "--changed",
    is_flag=True,
    help="When no lab is named: grade the labs whose starter.py differs from the one shipped (the manifest "
    "records it), or every lab when none does.",
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
def ci_command(lab_names, changed, out_dir, manifest_path, fail_on):
    """Grade your starters behind the wall as CI on your fork does: reports, the job summary, the score as
    the step's outputs and annotations on your file. Advisory: the grade of record is the instructor's batch run."""
    if lab_names:  # an unknown lab is a usage error before anything else is read
        list(map(lab_named, lab_names))
    shipped = _load_manifest(manifest_path or KIT_ROOT / manifest.MANIFEST_RELPATH)
    integrity = _integrity(shipped)
    chosen, why = _chosen_labs(lab_names, changed, shipped)
    click.echo(why)
    reports = []
    for lab in chosen:
        if not lab.starter.is_file():
            raise _cannot_grade(f"labs/{lab.id}/starter.py is missing: restore it (your work goes in it)")
        try:
            document = github.grade_lab(lab, integrity)
        except runner.GradingError as exc:
            raise _cannot_grade(str(exc)) from None
        passed = f"{document['counts']['passed']}/{len(document['tests'])} tests passed"
        whole = f"{whole_points(document['score'])}/{whole_points(document['max_score'])}"
        click.echo(f"{lab.id}: {whole} points ({passed}; exact score {points(document['score'])})", err=True)
        reports.append(document)
    errors, unannotated = github.annotations(reports)
    summary = github.job_summary(reports, integrity, why, unannotated)
    try:
        github.write_outputs(reports, integrity, out_dir, summary)
        if (path := _env_file(SUMMARY_ENV)) is not None:
            github.append(path, summary)
        else:
            click.echo(summary, nl=False)
        if (path := _env_file(OUTPUT_ENV)) is not None:
            github.append(path, github.step_outputs(reports, integrity))
    except OSError as exc:
        raise UsageProblem(f"cannot write the results: {exc}") from None
    click.echo(f"reports: {out_dir}/", err=True)
    for line in [*errors, *github.notices(reports)]:
        click.echo(line)
    failed = ("points" in fail_on and github.lost_points(reports)) or ("tampered" in fail_on and integrity["tampered"])
    sys.exit(1 if failed else 0)

"""``grader gradescope`` (build the autograder zip) and ``grader gradescope-run`` (what the zip runs on Gradescope)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from grader.cli.options import UsageProblem, lab_named
from grader.kit import edition, manifest
from grader.platforms import gradescope

VISIBILITY_HELP = (
    "When students see a tier's tests (repeatable): TIER is visible or hidden, VALUE one of Gradescope's "
    "visible, hidden, after_due_date, after_published. Default: visible=visible, hidden=after_due_date."
)


def visibility_chosen(pairs: tuple[str, ...]) -> dict[str, str]:
    try:
        return gradescope.parse_visibility(pairs)
    except gradescope.PackageError as exc:
        raise UsageProblem(str(exc)) from None


@click.command("gradescope")
@click.option("--lab", "lab_name", required=True, help="Lab id, e.g. ch06.")
@click.option("--visibility", "visibility", multiple=True, metavar="TIER=VALUE", help=VISIBILITY_HELP)
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def gradescope_command(lab_name, visibility, out):
    """Write OUT, a Gradescope autograder zip for the lab: just what grading it needs (the grader and the lab's
    tests, from the student edition: no reference solution), grading each submission behind the wall into
    Gradescope's results.json."""
    lab = lab_named(lab_name)
    chosen = visibility_chosen(visibility)
    try:
        names = gradescope.build_package(lab, out, chosen)
    except (edition.EditionError, manifest.ManifestError, gradescope.PackageError) as exc:
        raise UsageProblem(str(exc)) from None
    shown = ", ".join(f"{tier} tests {value}" for tier, value in chosen.items())
    click.echo(f"wrote {out}: the Gradescope autograder for {lab.id} ({len(names)} files, no reference solution)")
    click.echo(f"students see: {shown}")


@click.command("gradescope-run", hidden=True)
@click.option("--lab", "lab_name", required=True, help="Lab id, e.g. ch06.")
@click.option("--submission-dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--results", "results_path", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--visibility", "visibility", multiple=True, metavar="TIER=VALUE", help=VISIBILITY_HELP)
def gradescope_run_command(lab_name, submission_dir, results_path, visibility):
    """Internal, run by the package's run_autograder: grade the upload in SUBMISSION_DIR into results.json.
    Exit status 0 when the student got a verdict, 1 when the kit failed (results.json says so too)."""
    sys.exit(gradescope.run(lab_name, submission_dir, results_path, visibility_chosen(visibility)))

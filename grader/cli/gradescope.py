"""``grader gradescope`` (build the autograder zip) and ``grader gradescope-run`` (what the zip runs on Gradescope)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from grader.cli.options import UsageProblem, lab_named
from grader.kit import edition, manifest
from grader.platforms import gradescope


@click.command("gradescope")
@click.option("--lab", "lab_name", required=True, help="Lab id, e.g. ch06.")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def gradescope_command(lab_name, out):
    """Write OUT, a Gradescope autograder zip for the lab: it installs the kit's student edition (no reference
    solution) and grades each submission behind the wall into Gradescope's results.json."""
    lab = lab_named(lab_name)
    try:
        names = gradescope.build_package(lab, out)
    except (edition.EditionError, manifest.ManifestError) as exc:
        raise UsageProblem(str(exc)) from None
    click.echo(f"wrote {out}: the Gradescope autograder for {lab.id} ({len(names)} files, no reference solution)")


@click.command("gradescope-run", hidden=True)
@click.option("--lab", "lab_name", required=True, help="Lab id, e.g. ch06.")
@click.option("--submission-dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--results", "results_path", required=True, type=click.Path(dir_okay=False, path_type=Path))
def gradescope_run_command(lab_name, submission_dir, results_path):
    """Internal, run by the package's run_autograder: grade the upload in SUBMISSION_DIR into results.json.
    Exit status 0 when the student got a verdict, 1 when the kit failed (results.json says so too)."""
    sys.exit(gradescope.run(lab_name, submission_dir, results_path))

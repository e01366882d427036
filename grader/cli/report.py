"""``grader report OUT``: write a batch folder's class report, OUT/report.html, again (grader.batch.class_report)."""

from __future__ import annotations

from pathlib import Path

import click

from grader.batch import outputs
from grader.cli.options import UsageProblem


@click.command("report")
@click.argument("out_dir", metavar="OUT", type=click.Path(path_type=Path))
@click.option(
    "--round",
    "rounds",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="EARLIER_OUT",
    help="An earlier batch folder of the same lab, to compare with (repeat it, oldest first): the report's "
    "'Over rounds' section.",
)
def report_command(out_dir: Path, rounds: tuple[Path, ...]):
    """Write OUT/report.html, the class report of a `grader batch` or `grader merge` folder, from its files alone.

    One page to open in a browser, with no network: the overview, the score histogram, each task's
    distribution, each test's pass rate and discrimination, the common failures with example students,
    flagged, identical and similar submissions (side by side), students not graded, late work, the class
    over earlier rounds (--round), the final grades of the last grader export.
    Exit status 0 when written, 2 when OUT or a round is not a finished batch folder (of the same lab).
    """
    if not out_dir.is_dir():
        raise UsageProblem(f"{out_dir} is not a folder: give the --out folder of a grader batch or merge")
    try:
        path = outputs.write_report(out_dir, list(rounds))
    except outputs.OutputError as exc:
        raise UsageProblem(str(exc)) from None
    click.echo(f"report: {path}")

"""``grader mutants``: how strong a lab's visible tests are, by the mutants of its reference they let through."""

from __future__ import annotations

import json
import sys

import click

from grader.cli.options import UsageProblem, lab_named, output_file
from grader.grading import runner
from grader.kit import mutant_grading, reach


@click.command("mutants")
@click.option("--lab", "lab_id", required=True, help="The lab whose reference is mutated.")
@click.option("--jobs", type=click.IntRange(min=1), default=2, show_default=True, help="pytest sessions side by side.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Also write the outcome as JSON here.")
def mutants_command(lab_id: str, jobs: int, json_path: str | None) -> None:
    """Grade every generated mutant of the lab's reference with its visible tests, behind the wall.

    Exit 0 when every mutant is killed or declared equivalent, 1 when some survive, 2 on usage errors, 130 when
    interrupted (nothing written).
    """
    lab = lab_named(lab_id)
    json_file = output_file("--json", json_path)  # checked before the minutes of grading
    if not lab.reference_dir.is_dir():
        raise UsageProblem(f"lab {lab.id} has no reference here: mutants are made from it")
    try:
        outcome = mutant_grading.grade(lab, jobs=jobs)
    except (mutant_grading.DeclarationError, reach.ReachError) as exc:
        raise UsageProblem(str(exc)) from None
    except runner.GradingError as exc:
        raise UsageProblem(f"the grader failed: {exc}") from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted: no mutant outcome written", err=True)
        sys.exit(130)
    by_id = {mutant.id: mutant for mutant in outcome.mutants}
    for mutant_id in outcome.survived:
        click.echo(f"SURVIVED {mutant_id} (line {by_id[mutant_id].line})")
        click.echo(by_id[mutant_id].diff(outcome.reference))
    click.echo(f"{'operator':<22} killed survived equivalent")
    for operator, counts in outcome.by_operator().items():
        row = [counts.get(status, 0) for status in ("killed", "survived", "equivalent")]
        click.echo(f"{operator:<22} {row[0]:>6} {row[1]:>8} {row[2]:>10}")
    click.echo(
        f"lab {lab.id}: {len(outcome.mutants)} mutants, {len(outcome.killed)} killed, {len(outcome.survived)} survived,"
        f" {len(outcome.equivalent)} declared equivalent, in {outcome.seconds:.0f}s"
    )
    if json_file is not None:
        json_file.write_text(json.dumps(outcome.as_dict(), indent=2) + "\n", encoding="utf-8")
    raise SystemExit(1 if outcome.survived else 0)

"""``grader run``, ``grader list``, ``grader starter``, ``grader graphs`` and ``grader gradients``: grade
one lab, show the labs, generate starters, the random graphs the labs' tests check a correct engine on and
the expected gradients they check it against.

Exit status: 0 when every test passed, 1 when points were lost, 2 for a usage or
infrastructure error (unknown lab, missing file), with a one-line message.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click

from grader import labs, report
from grader.cli.options import UsageProblem, chosen_implementation, lab_named, output_file, with_limits
from grader.env import RECORD_GRADIENTS_ENV
from grader.grading import grade, runner
from grader.implementation import Implementation
from grader.kit import starters
from grader.report import live, table
from grader.verdicts import NO_REFERENCE


@click.command("list")
def list_labs():
    """Show the labs, their tasks and their points (hidden tests, where a lab has them, counted apart too)."""
    for lab in labs.discover().values():
        try:
            tests = runner.collect(lab)
        except runner.GradingError as exc:
            raise UsageProblem(str(exc)) from None
        total = sum(t["points"] for t in tests)
        click.echo(f"{lab.id:<12} {total:>4g} points  {len(tests):>3} tests  {lab.title}")
        for task in lab.tasks:
            points = sum(t["points"] for t in tests if t["task"] == task.id)
            click.echo(f"{'':<12} {points:>4g}              {task.title}")
        hidden = [t for t in tests if t["tier"] == labs.HIDDEN]
        if hidden:
            hidden_points = sum(t["points"] for t in hidden)
            click.echo(
                f"{'':<12} of which hidden tests: {hidden_points:g} points, {len(hidden)} tests ({lab.id}/hidden/)"
            )


@click.command("run")
@click.option("--lab", "lab_name", required=True, help="Lab id, e.g. ch06 (06 works too).")
@click.option(
    "--impl",
    type=click.Choice(["mine", "ref"]),
    default="mine",
    show_default=True,
    help="mine: the lab's starter.py; ref: the reference solution.",
)
@click.option("--submission", type=str, default=None, help="Grade this .py file instead (any file with the lab's API).")
@click.option(
    "--isolation",
    type=click.Choice(["in-process", "worker"]),
    default=None,
    help="worker: run the code behind the wall (the default for --submission); in-process: in the test process.",
)
@click.option(
    "--limit",
    "limits",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override one of the lab's [limits] (test_seconds, call_seconds, cpu_seconds, memory_mb, output_kb, ...).",
)
@click.option("--task", "task_id", default=None, help="Grade one task only (its id, e.g. value); the report says so.")
@click.option(
    "--visible-only", is_flag=True, help="Leave out the lab's hidden tests: grade as a student's copy of the kit does."
)
@click.option("--json", "json_out", type=click.Path(dir_okay=False), default=None, help="Write the JSON report here.")
@click.option("--failures-only", is_flag=True, hidden=True, help="Kept for old scripts: only failures are listed.")
def run(lab_name, impl, submission, isolation, limits, task_id, visible_only, json_out, failures_only):
    """Run a lab's tests: each task's line as its tests end, then what lost points and why, and what to do next."""
    lab = with_limits(lab_named(lab_name), limits)
    if visible_only:
        lab = lab.visible_only()
    if submission is not None and impl != "mine":
        raise UsageProblem("give either --impl or --submission, not both")
    if task_id is not None and task_id not in {t.id for t in lab.tasks}:
        known = ", ".join(t.id for t in lab.tasks)
        raise UsageProblem(f"unknown task {task_id!r} in lab {lab.id}; its tasks are: {known}")
    implementation = chosen_implementation(lab, impl, submission)
    under_test = (implementation.path,) if implementation.path is not None else ()
    json_path = output_file("--json", json_out, never=under_test)
    if isolation == "worker" and implementation.kind == "ref":
        raise UsageProblem("the reference is trusted: it is graded in-process (--isolation worker is for student code)")
    isolation = isolation or grade.default_isolation(implementation)
    color = sys.stdout.isatty()
    try:
        runner.require_sandbox(isolation)  # a machine without one is told so in one line, before any heading
        name = implementation.display_name(lab)
        click.echo("\n".join(table.heading(lab.id, lab.title, name, isolation, color=color)))
        follow = live.Live(lab, color=color, echo=click.echo)  # click.echo flushes: each line shows as it comes
        document = grade.grade(lab, implementation, isolation=isolation, task=task_id, on_progress=follow)
    except runner.GradingError as exc:
        raise UsageProblem(str(exc)) from None
    click.echo("\n".join(table.ending(document, color=color)))
    if json_path is not None:
        report.write_report(document, json_path)
        click.echo(f"report: {json_out}")
    # With --task, the status is the task's: 0 when every test of it passed (the report is partial).
    sys.exit(0 if all(t["outcome"] == "passed" for t in report.graded_tests(document)) else 1)


@click.command("starter")
@click.argument("lab_names", nargs=-1)
@click.option("--check", is_flag=True, help="Fail if a starter differs from what its reference generates.")
def make_starter(lab_names, check):
    """Generate each lab's starter.py from its reference (or --check that they agree)."""
    if not labs.REFERENCE_DIR.is_dir():
        raise UsageProblem(NO_REFERENCE)
    chosen = [lab_named(n) for n in lab_names] or list(labs.discover().values())
    stale = []
    for lab in chosen:
        if not lab.starter_sources:
            continue
        text = starters.assemble(lab, strip=True)
        current = lab.starter.read_text(encoding="utf-8") if lab.starter.exists() else None
        if current == text:
            continue
        if check:
            stale.append(lab.id)
        else:
            lab.starter.write_text(text, encoding="utf-8")
            click.echo(f"wrote {lab.starter.relative_to(labs.KIT_ROOT)}")
    if stale:
        raise click.ClickException(f"starter out of date with its reference: {', '.join(stale)} (run `grader starter`)")


@click.command("graphs")
@click.option("--check", is_flag=True, help="Fail if the shipped graphs are not what Hypothesis draws now.")
def make_graphs(check):
    """Write grader/testing/drawn_graphs.json: the random graphs a correct engine is checked on, as drawn
    (or --check that it is current). Run it after changing the graphs' builders, settings or Hypothesis."""
    from grader.testing import drawn_graphs, graph_search  # Hypothesis, only for this command

    text = graph_search.drawn_graphs_now()
    current = drawn_graphs.PATH.read_text(encoding="utf-8") if drawn_graphs.PATH.exists() else None
    where = drawn_graphs.PATH.relative_to(labs.KIT_ROOT)
    if current == text:
        return
    if check:
        raise click.ClickException(
            f"{where} is not what Hypothesis draws now (run `grader graphs`, then `grader manifest`)"
        )
    drawn_graphs.PATH.write_text(text, encoding="utf-8")
    click.echo(f"wrote {where}")


def _recorded_gradients(lab: labs.Lab, records: Path) -> None:
    """Grade ``lab``'s reference with every expected gradient computed afresh and added to ``records``: its
    visible tests alone, then with its hidden tests (whose answers the visible ones did not compute first)."""
    os.environ[RECORD_GRADIENTS_ENV] = str(records)  # the pytest processes inherit it
    try:
        for graded in (lab.visible_only(), lab) if lab.hidden_tests else (lab,):
            run = runner.run_tests(graded, Implementation.parse("ref", lab))
            lost = [r.id for r in run.results if r.outcome != "passed"]
            if lost:
                raise click.ClickException(f"the reference of {lab.id} fails {', '.join(lost)}: fix it first")
    finally:
        del os.environ[RECORD_GRADIENTS_ENV]


@click.command("gradients")
@click.option("--check", is_flag=True, help="Fail if the shipped gradients are not what the oracle computes now.")
def make_gradients(check):
    """Write each lab's expected gradients (grader/testing/expected_gradients/<id>.json, and its hidden tests'
    in labs/<id>/hidden/): the oracle's answers for its tests, computed on the reference (or --check that they
    are current). Run it after changing grader/testing or a lab's tests or helpers, then `grader manifest`."""
    from grader.testing import expected_gradients

    texts = {}
    with tempfile.TemporaryDirectory(prefix="labkit-gradients-") as folder:
        for lab in labs.discover().values():
            records = Path(folder) / f"{lab.id}.jsonl"
            records.touch()
            _recorded_gradients(lab, records)
            for tier in labs.TIERS if lab.hidden_tests else ("visible",):
                answers = expected_gradients.read_records(records, lab.id, tier)
                texts[expected_gradients.table(lab.id, tier)] = expected_gradients.document(answers, lab.id, tier)
    stale = []
    for path, text in sorted(texts.items()):
        where = path.relative_to(labs.KIT_ROOT)
        said, note = expected_gradients.differences(path.read_text(encoding="utf-8") if path.exists() else "", text)
        if note:
            click.echo(f"{where}: {note}", err=True)
        elif said and check:
            stale.append(f"{where}: {'; '.join(said)}")
        elif said:
            expected_gradients.write(path, text)
            click.echo(f"wrote {where}")
    if stale:
        raise click.ClickException(f"not current: {' / '.join(stale)} (run `grader gradients`, then `grader manifest`)")

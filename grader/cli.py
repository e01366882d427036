"""The ``grader`` command line: run a lab's tests against some code and report the score.

Exit status: 0 when every test passed, 1 when points were lost, 2 for a usage or
infrastructure error (unknown lab, missing file), with a one-line message.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from pathlib import Path

import click

from . import grade, labs, report, runner, starter, table
from .seam import NO_REFERENCE, Implementation


class UsageProblem(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = 2

    def show(self, file=None):
        click.echo(f"grader: error: {self.format_message()}", err=True)


def _lab(name: str) -> labs.Lab:
    try:
        return labs.get(name)
    except labs.LabError as exc:
        raise UsageProblem(str(exc)) from None


def _implementation(lab: labs.Lab, impl: str, submission: str | None) -> Implementation:
    if submission is not None:
        path = Path(submission)
        if not path.exists():
            raise UsageProblem(f"no such file: {submission}")
        if not path.is_file():
            raise UsageProblem(f"not a file: {submission} (give the path of one .py file)")
        return Implementation.parse(str(path), lab)
    if impl == "ref" and not lab.reference_dir.is_dir():
        raise UsageProblem(NO_REFERENCE)
    return Implementation.parse(impl, lab)


def _with_limits(lab: labs.Lab, pairs: tuple[str, ...]) -> labs.Lab:
    """The lab with --limit NAME=VALUE overrides of its [limits] (the run passes them to every process)."""
    overrides = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        try:
            overrides[name.strip()] = float(value)
        except ValueError:
            raise UsageProblem(f"--limit takes NAME=NUMBER, got {pair!r}") from None
    return dataclasses.replace(lab, limits={**lab.limits, **overrides}) if overrides else lab


class _LazyGroup(click.Group):
    """A group whose larger commands live in their own modules, imported only when one is run
    (or listed by --help): `grader run` does not pay for batch, CI or Gradescope code."""

    LAZY = {
        "batch": "cli_batch:batch_command",
        "merge": "cli_batch:merge_command",
        "ci": "cli_ci:ci_command",
        "verify": "cli_integrity:verify",
        "manifest": "cli_integrity:manifest_command",
        "export-student": "cli_integrity:export_student",
        "gradescope": "cli_gradescope:gradescope_command",
        "gradescope-run": "cli_gradescope:gradescope_run_command",
    }

    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.LAZY:
            return super().get_command(ctx, cmd_name)
        module, attribute = self.LAZY[cmd_name].split(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), attribute)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="labkit", prog_name="grader")
def main():
    """Grade the labs of the deep-learning course kit."""


@main.command("list")
def list_labs():
    """Show the labs, their tasks and their points."""
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


@main.command("run")
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
@click.option("--json", "json_out", type=click.Path(dir_okay=False), default=None, help="Write the JSON report here.")
@click.option("--failures-only", is_flag=True, help="List only the tests that lost points.")
def run(lab_name, impl, submission, isolation, limits, json_out, failures_only):
    """Run a lab's tests and print a table of what passed, what failed and why."""
    lab = _with_limits(_lab(lab_name), limits)
    if submission is not None and impl != "mine":
        raise UsageProblem("give either --impl or --submission, not both")
    implementation = _implementation(lab, impl, submission)
    if isolation == "worker" and implementation.kind == "ref":
        raise UsageProblem("the reference is trusted: it is graded in-process (--isolation worker is for student code)")
    try:
        document = grade.grade(lab, implementation, isolation=isolation)
    except runner.GradingError as exc:
        raise UsageProblem(str(exc)) from None
    click.echo(table.render(document, color=sys.stdout.isatty(), show_passed=not failures_only))
    if json_out:
        report.write_report(document, Path(json_out))
        click.echo(f"report: {json_out}")
    sys.exit(0 if document["all_passed"] else 1)


@main.command("starter")
@click.argument("lab_names", nargs=-1)
@click.option("--check", is_flag=True, help="Fail if a starter differs from what its reference generates.")
def make_starter(lab_names, check):
    """Generate each lab's starter.py from its reference (or --check that they agree)."""
    if not labs.REFERENCE_DIR.is_dir():
        raise UsageProblem(NO_REFERENCE)
    chosen = [_lab(n) for n in lab_names] or list(labs.discover().values())
    stale = []
    for lab in chosen:
        if not lab.starter_sources:
            continue
        text = starter.assemble(lab, strip=True)
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

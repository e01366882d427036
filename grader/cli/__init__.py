"""The ``grader`` command line: one module per command group, imported only when its command runs.

Exit status, for every command: 0 when every test passed, 1 when points were lost (for
``merge``: when the folders are not every shard of one class), 2 for a usage or
infrastructure error (unknown lab, missing file), with a one-line message.
"""

from __future__ import annotations

import importlib

import click


class _LazyGroup(click.Group):
    """A group whose commands live in their own modules, imported only when one is run (or listed
    by --help): `grader run` does not pay for batch, CI or Gradescope code."""

    COMMANDS = {
        "list": "run:list_labs",
        "run": "run:run",
        "starter": "run:make_starter",
        "graphs": "run:make_graphs",
        "gradients": "run:make_gradients",
        "batch": "batch:batch_command",
        "merge": "batch:merge_command",
        "report": "report:report_command",
        "collect": "collect:collect_command",
        "export": "export:export_command",
        "ci": "ci:ci_command",
        "verify": "integrity:verify",
        "manifest": "integrity:manifest_command",
        "export-student": "integrity:export_student",
        "gradescope": "gradescope:gradescope_command",
        "gradescope-run": "gradescope:gradescope_run_command",
        "mutants": "mutants:mutants_command",
    }

    def list_commands(self, ctx):
        return sorted(self.COMMANDS)

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.COMMANDS:
            return None
        module, attribute = self.COMMANDS[cmd_name].split(":")
        return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="labkit", prog_name="grader")
def main():
    """Grade the labs of the deep-learning course kit."""

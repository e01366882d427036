"""The `grader` command's entry point (and `python -m grader`'s).

For `grader run`, the pytest process that will grade starts first, so that its start-up
overlaps the grader's own: importing click and the kit, reading the lab and the command
line (grader.grading.pytest_process).
"""

import sys


def main() -> None:
    if sys.argv[1:2] == ["run"]:
        from grader.grading import pytest_process

        pytest_process.prestart()
    from grader.cli import main as cli
    from grader.cli.streams import outlive_their_readers

    outlive_their_readers()
    cli()

"""What the commands share: the one-line usage error, and turning options into a lab and an implementation."""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile
from pathlib import Path

import click

from grader import labs, limits
from grader.implementation import Implementation
from grader.verdicts import NO_REFERENCE

NAME_MAX = 255  # bytes in one file's name on Linux's file systems


class UsageProblem(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = 2

    def show(self, file=None):
        click.echo(f"grader: error: {self.format_message()}", err=True)


def lab_named(name: str) -> labs.Lab:
    try:
        return labs.get(name)
    except labs.LabError as exc:
        raise UsageProblem(str(exc)) from None


def chosen_implementation(lab: labs.Lab, impl: str, submission: str | None) -> Implementation:
    if submission is not None:
        path = Path(submission)
        if not path.exists():
            raise UsageProblem(f"no such file: {submission}")
        if not path.is_file():
            raise UsageProblem(f"not a file: {submission} (give the path of one .py file)")
        return Implementation.parse(str(path), lab)
    if impl == "ref" and not lab.reference_dir.is_dir():
        raise UsageProblem(NO_REFERENCE)
    if impl == "mine" and not lab.starter.is_file():  # as grader ci says it
        raise UsageProblem(f"labs/{lab.id}/starter.py is missing: restore it (your work goes in it)")
    return Implementation.parse(impl, lab)


def with_limits(lab: labs.Lab, pairs: tuple[str, ...]) -> labs.Lab:
    """The lab with --limit NAME=VALUE overrides of its [limits] (the run passes them to every process)."""
    overrides = {}
    for pair in pairs:
        name, equals, text = (part.strip() for part in pair.partition("="))
        if not equals or not name:
            raise UsageProblem(f"--limit takes NAME=NUMBER, got {pair!r}; {limits.known()}")
        try:
            overrides[name] = limits.check(name, _number(text))
        except limits.LimitError as exc:
            raise UsageProblem(f"--limit {pair}: {exc}") from None
    return dataclasses.replace(lab, limits={**lab.limits, **overrides}) if overrides else lab


PLAIN_NUMBER = re.compile(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?")


def _number(text: str) -> int | float | str:
    """What a number typed on the command line means (the text itself if it is none: the check says so).
    Only plain ASCII notation: Python's int() and float() also take "1_0", "٣" and "inf"."""
    if not PLAIN_NUMBER.fullmatch(text):
        return text
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def output_file(option: str, given: str | None, *, never: tuple[Path, ...] = ()) -> Path | None:
    """The file ``option`` names to write, checked before any work: it must be a regular file or
    nothing yet (writing replaces it, which must not turn a link, a pipe or a device into a file),
    in a folder that may be written (made if missing), and none of ``never`` (the file under test)."""
    if given is None:
        return None
    path = Path(given)
    if not given or path.name in ("", ".", ".."):
        raise UsageProblem(f"{option} needs a file name, got {given!r}")
    if len(os.fsencode(path.name)) > NAME_MAX:  # make lab names the report after the submission's file
        raise UsageProblem(
            f"{option}: the file name {path.name[:40]}... is {len(os.fsencode(path.name))} bytes long, more than "
            f"the {NAME_MAX} a file name may have: give a shorter one (or rename the submission)"
        )
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise UsageProblem(f"{option} {given}: not a regular file (a link, a pipe or a device is never replaced)")
    if any(path.exists() and other.exists() and path.samefile(other) for other in never):
        raise UsageProblem(f"{option} {given} is the file under test: writing the report there would replace it")
    folder = path.parent
    try:  # made if missing (make lab's reports/), and written to as the report will be: a file made beside it
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):  # root passes permission checks that /proc still refuses
            pass
    except OSError as exc:
        raise UsageProblem(f"{option} {given}: the folder {folder} cannot be written ({exc.strerror})") from None
    return path

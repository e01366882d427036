"""``grader verify``, ``grader manifest`` and ``grader export-student``: the student edition and its integrity."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from grader.cli.options import UsageProblem
from grader.kit import edition, manifest
from grader.labs import KIT_ROOT
from grader.report.text import one_line_for_terminal


@click.command("verify")
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The checkout to verify (default: this kit).",
)
@click.option(
    "--manifest",
    "manifest_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"The manifest to verify against (default: ROOT/{manifest.MANIFEST_RELPATH}; in CI, the instructor's copy).",
)
@click.option("--json", "json_out", type=click.Path(dir_okay=False), default=None, help="Write the findings here.")
def verify(root, manifest_path, json_out):
    """Check that the files a student must not change are as shipped, and that nothing was added that changes
    how the tests run. Exit status: 0 clean, 1 tampered, 2 no usable manifest."""
    root = root or KIT_ROOT
    manifest_path = manifest_path or root / manifest.MANIFEST_RELPATH
    if not root.is_dir():
        raise UsageProblem(f"no such folder: {root}")
    try:
        result = manifest.verify(root, manifest.load_manifest(manifest_path))
    except manifest.ManifestError as exc:
        raise UsageProblem(str(exc)) from None
    for line in result.findings():  # a file's name is the fork's to choose: as text, never a control sequence
        click.echo(one_line_for_terminal(line))
    if result.clean:
        click.echo("verified: every protected file is as shipped, and nothing was added that changes the grading")
    if json_out:
        Path(json_out).write_text(json.dumps(result.as_dict(), indent=2) + "\n", encoding="utf-8")
    sys.exit(0 if result.clean else 1)


@click.command("manifest")
@click.option("--check", is_flag=True, help=f"Fail if {manifest.MANIFEST_RELPATH} differs from the kit's files.")
def manifest_command(check):
    """Write the hashes of the files a student must not change to grader/MANIFEST.json (or --check it)."""
    path = KIT_ROOT / manifest.MANIFEST_RELPATH
    try:
        current = manifest.build_manifest(KIT_ROOT)
    except manifest.ManifestError as exc:
        raise UsageProblem(str(exc)) from None
    if not check:
        path.write_text(manifest.render(current), encoding="utf-8")
        click.echo(f"wrote {manifest.MANIFEST_RELPATH} ({len(current['files'])} files)")
        return
    try:
        shipped = _hashes(manifest.load_manifest(path))
    except manifest.ManifestError:
        shipped = {}
    now = _hashes(current)
    stale = sorted(name for name in shipped.keys() | now.keys() if shipped.get(name) != now.get(name))
    if stale:
        raise click.ClickException(
            f"{manifest.MANIFEST_RELPATH} out of date for {', '.join(stale)} (run `grader manifest`)"
        )


def _hashes(recorded: dict) -> dict[str, str]:
    """A manifest's protected files and its pristine starters, one name each."""
    starters = {f"{relpath} (as shipped)": sha for relpath, sha in recorded.get("starters", {}).items()}
    return {**recorded["files"], **starters}


@click.command("export-student")
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
def export_student(out):
    """Write the student edition into OUT (absent or empty): the labs and the grader, without the reference
    solution and the kit's own tests."""
    try:
        files = edition.export_student(KIT_ROOT, out)
    except (edition.EditionError, manifest.ManifestError) as exc:
        raise UsageProblem(str(exc)) from None
    click.echo(f"wrote the student edition to {out}: {len(files)} files, no reference solution")

"""Gradescope: an autograder package that grades a lab's submissions behind the wall.

Gradescope (https://gradescope-autograders.readthedocs.io/en/latest/specs/) builds an
Ubuntu image from an uploaded zip: the zip is unpacked into /autograder/source and its
``setup.sh`` runs once, as root; then, for every submission, ``run_autograder`` runs with
the student's upload in /autograder/submission and must leave
/autograder/results/results.json behind. The package holds just what grading one lab needs,
taken from the kit's student edition (no reference solution: the wall grades a submission
against the lab's tests): the grader, the build file that installs it, and the one lab's
folder without its ``instructor/``, with the hidden tests its lab.toml declares. Its
``setup.sh`` installs that into its own virtual environment; its ``run_autograder`` calls
``grader gradescope-run`` (``run`` below) with the visibility of each test tier chosen when
the package was built. What a student reads is results.json's; how the sandbox held (the
isolation, its protections, the limits) goes to run_autograder's stdout, which Gradescope
shows the instructor only (``stdout_visibility``).

A student always gets a results.json that says what happened: an upload without one
gradable file scores 0 with what to upload instead, and a failure of the kit itself
scores 0, says so, and makes the run fail so that Gradescope shows an error.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
import tempfile
import time
import traceback
import zipfile
from pathlib import Path

from grader import __version__, atomic, labs
from grader.batch import inputs
from grader.grading import grade
from grader.implementation import Implementation
from grader.kit import edition
from grader.kit.manifest import MANIFEST_RELPATH, write_manifest
from grader.report import exports

ROOT_ENV = "AUTOGRADER_ROOT"  # /autograder on Gradescope; a temporary tree in the kit's tests
GRADER_ENV = "LABKIT_GRADER"  # the grader command; default: the package's own virtual environment
KIT_FOLDER = "labkit"  # where the student edition goes, under /autograder/source
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so the same kit always gives the same package

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (Ubuntu 22.04 or newer:
# labkit needs Python 3.10). It installs the kit that came in this zip into its own virtual environment.
set -euo pipefail
ROOT="${{{root_env}:-/autograder}}"
KIT="$ROOT/source/{kit}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap util-linux
python3 -c 'import sys; sys.exit(sys.version_info < (3, 10) and "labkit needs Python 3.10 or newer: use a newer image")'
python3 -m venv "$KIT/.venv"
"$KIT/.venv/bin/python" -m pip install --disable-pip-version-check --quiet -e "$KIT"
{permissions}"$KIT/.venv/bin/grader" list
"""
# setup.sh's modes, apart for the kit's tests to apply to an unpacked package.
PERMISSIONS_SH = """\
# The wall runs a submission in bubblewrap or, where the container forbids its namespaces, as an
# unprivileged uid of its own, which sees the whole file system: either way that uid must read the
# interpreter and numpy; at that level only these modes keep it from the hidden tests (the grader
# refuses that level while they are readable by others).
chmod a+x "$ROOT" "$ROOT/source"
chmod -R a+rX "$KIT"
find "$KIT/labs" -mindepth 2 -maxdepth 2 -type d -name hidden -exec chmod -R go-rwx {{}} +
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission: grade /autograder/submission behind the wall and
# write /autograder/results/results.json. {root_env} and {grader_env} override the paths (tests).
set -u
ROOT="${{{root_env}:-/autograder}}"
GRADER="${{{grader_env}:-$ROOT/source/{kit}/.venv/bin/grader}}"
RESULTS="$ROOT/results/results.json"
rm -f "$RESULTS"
"$GRADER" gradescope-run --lab {lab} {visibility} --submission-dir "$ROOT/submission" --results "$RESULTS"
status=$?
if [ ! -s "$RESULTS" ]; then
  # The grader did not even start (a broken image): the student still learns that it was not their fault.
  mkdir -p "$ROOT/results"
  why="the autograder failed to start (status $status): your submission was not graded; tell your instructor"
  printf '{{"score": 0, "output": "%s", "tests": []}}\\n' "$why" >"$RESULTS"
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
"""


# The kit's files the package takes from the student edition, besides the lab's own folder.
KIT_FILES = ("pyproject.toml", "LICENSE", "labs/__init__.py")
KIT_FOLDERS = ("grader/",)

PACKAGE_README = """\
# labkit: the Gradescope autograder for lab {lab}

Built by `grader gradescope --lab {lab}` from labkit {version}. This folder holds only what
grading lab {lab} needs: the grader, its `pyproject.toml`, and the lab's tests and helpers{hidden}.
`setup.sh` installs it; `run_autograder` grades /autograder/submission behind the wall into
/autograder/results/results.json. The kit itself, its reference solutions and its own README
stay with the instructor.
"""


class PackageError(Exception):
    """The package cannot be built as asked: a one-line message, exit status 2."""


def parse_visibility(pairs) -> dict[str, str]:
    """``--visibility TIER=VALUE`` choices over the defaults, checked; PackageError names a bad one."""
    choices = {}
    for pair in pairs:
        tier, sep, value = pair.partition("=")
        if not sep:
            raise PackageError(f"--visibility takes TIER=VALUE, got {pair!r}; the tiers: {', '.join(labs.TIERS)}")
        choices[tier.strip()] = value.strip()
    try:
        return exports.gradescope_visibility(choices)
    except ValueError as exc:
        raise PackageError(f"--visibility: {exc}") from None


def visibility_options(visibility: dict[str, str]) -> str:
    """The choice as gradescope-run's options, for run_autograder."""
    return " ".join(shlex.quote(f"--visibility={tier}={value}") for tier, value in visibility.items())


def setup_script() -> str:
    return SETUP_SH.format(root_env=ROOT_ENV, kit=KIT_FOLDER, permissions=PERMISSIONS_SH.format())


def run_script(lab: labs.Lab, visibility: dict[str, str] | None = None) -> str:
    return RUN_AUTOGRADER.format(
        root_env=ROOT_ENV,
        grader_env=GRADER_ENV,
        kit=KIT_FOLDER,
        lab=shlex.quote(lab.id),
        visibility=visibility_options(exports.gradescope_visibility(visibility)),
    )


def _add(zf: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.create_system = 3  # Unix: unzip applies the mode below
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def _files_under(folder: Path, top: Path) -> list[str]:
    """The regular files under ``folder`` (POSIX, relative to ``top``), caches left out."""
    return sorted(
        path.relative_to(top).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def package_files(lab: labs.Lab, edition_root: Path) -> dict[str, Path]:
    """What the package's kit holds (its relpaths) and where each file comes from in ``edition_root``, an
    edition with the hidden tests: the grader, pyproject.toml, labs/__init__.py and the lab's folder (its
    hidden tests included). Nothing else: not the other labs, bench/, .ci/, .github/ or the Makefile."""
    lab_folder = f"labs/{lab.id}/"

    def wanted(relpath: str) -> bool:
        if relpath == MANIFEST_RELPATH:  # rebuilt for the package's own files
            return False
        return relpath.startswith(lab_folder) or relpath in KIT_FILES or relpath.startswith(KIT_FOLDERS)

    chosen = {r: edition_root / r for r in _files_under(edition_root, edition_root) if wanted(r)}
    if f"{lab_folder}lab.toml" not in chosen:
        raise PackageError(f"the student edition has no labs/{lab.id}/lab.toml: is {lab.folder} in the kit?")
    return chosen


def build_package(lab: labs.Lab, out_zip: Path, visibility: dict[str, str] | None = None) -> list[str]:
    """Write the autograder zip for ``lab`` to ``out_zip``; return the names it holds.

    setup.sh and run_autograder at the root (executable), under ``labkit/`` the package's kit
    (package_files, a README saying what it is, its own manifest) with its files' modes. The kit
    is the one the lab belongs to; the zip appears whole or not at all.
    """
    out_zip = Path(out_zip)
    # Written over whatever was there: only a zip's name, and only a file that is a zip already (a review
    # wrote the autograder over a student's .py given by mistake).
    if out_zip.suffix.lower() != ".zip":
        raise PackageError(f"{out_zip}: the autograder is a zip file: give a name ending in .zip")
    if out_zip.exists() and not zipfile.is_zipfile(out_zip):
        raise PackageError(f"{out_zip} exists and is not a zip file: give another name, or remove it first")
    visibility = exports.gradescope_visibility(visibility)
    root = lab.folder.parent.parent  # the kit the lab is part of: labs/<id>/
    with tempfile.TemporaryDirectory(prefix="labkit-gradescope-") as tmp:
        edition_root = Path(tmp) / "edition"
        edition.export_student(root, edition_root, hidden_tests=True)  # graded here, shown per --visibility
        sources = package_files(lab, edition_root)
        kit = Path(tmp) / KIT_FOLDER
        for relpath, source in sources.items():
            (kit / relpath).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, kit / relpath)
        readme = PACKAGE_README.format(
            lab=lab.id, version=__version__, hidden=", its hidden tests" * bool(lab.hidden_tests)
        )
        (kit / "README.md").write_text(readme, encoding="utf-8")  # pyproject.toml's readme
        write_manifest(kit, kit / MANIFEST_RELPATH)
        files = _files_under(kit, kit)
        out_zip.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix=f".{out_zip.name}.", dir=out_zip.parent)
        os.close(fd)
        try:
            with zipfile.ZipFile(partial, "w") as zf:
                _add(zf, "setup.sh", setup_script().encode(), 0o755)
                _add(zf, "run_autograder", run_script(lab, visibility).encode(), 0o755)
                for relpath in files:
                    mode = 0o755 if (kit / relpath).stat().st_mode & stat.S_IXUSR else 0o644
                    _add(zf, f"{KIT_FOLDER}/{relpath}", (kit / relpath).read_bytes(), mode)
                names = zf.namelist()
            os.replace(partial, out_zip)
        except BaseException:
            Path(partial).unlink(missing_ok=True)
            raise
    return names


def _printable(text: str) -> str:
    """A file name from an upload, safe to show: control characters as \\x00-style escapes."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _what_to_upload(lab: labs.Lab) -> str:
    return (
        f"Upload your labs/{lab.id}/starter.py (or one .py file that defines {', '.join(lab.public)}), "
        f"or submit your fork of the kit from GitHub: its labs/{lab.id}/starter.py is graded."
    )


NOT_GRADED = {
    "missing": "No file to grade was found",
    "ambiguous": "It is not clear which file to grade",
    "invalid": "The file cannot be graded",
}


def _zero(output: str, started: float) -> dict:
    return {
        "score": 0,
        "execution_time": round(time.perf_counter() - started, 3),
        "output": output,
        "output_format": "text",
        "visibility": "visible",
        "tests": [],
    }


def run(lab: labs.Lab | str, submission_dir: Path, results_path: Path, visibility: dict[str, str] | None = None) -> int:
    """Grade the one submission in ``submission_dir`` behind the wall; write Gradescope's results.json, with
    each test tier's ``visibility``; print for the instructor how it was graded (run_autograder's stdout).

    Returns the exit status: 0 whenever the student got a verdict (a score, or 0 with what to
    upload), 1 when the kit itself failed (the results.json then says so).
    """
    started = time.perf_counter()
    status = 0
    try:
        lab = lab if isinstance(lab, labs.Lab) else labs.get(lab)
        with tempfile.TemporaryDirectory(prefix="labkit-gradescope-") as scratch:
            entry = inputs.find_in_folder(Path(submission_dir), lab.id, Path(scratch))
            if entry.status != "ok":
                reason = _printable(f"{NOT_GRADED.get(entry.status, 'Not graded')}: {entry.reason}.")
                results = _zero(f"{reason}\n{_what_to_upload(lab)}\nScore: 0", started)
                print(f"{lab.id}: not graded ({entry.status}): {_printable(entry.reason)}")
            else:
                report = grade.grade(lab, Implementation("submission", entry.path), isolation="worker")
                results = exports.gradescope_results(report, visibility=visibility)
                results["output"] = f"Graded: {_printable(entry.source)}\n{results['output']}"
                print(f"{lab.id}: graded {_printable(entry.source)} (sha256 {report['implementation']['sha256']})")
                print(exports.gradescope_instructor_notes(report, visibility=visibility))
    except Exception as exc:  # noqa: BLE001 - whatever went wrong, the student gets a results.json
        traceback.print_exc()  # into Gradescope's stdout capture, for the instructor
        status = 1
        results = _zero(
            f"the autograder failed: {type(exc).__name__}: {exc}\n"
            "Your submission was not graded; this is not your fault. Tell your instructor.",
            started,
        )
    atomic.write_json(Path(results_path), results)
    sys.stdout.flush()
    return status

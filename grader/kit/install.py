"""The kit's virtual environment, .venv: made, checked, repaired and filled before anything else runs.

`make` runs this with the system's Python (``python3 -m grader.kit.install``) whenever .venv is
not ready (see the Makefile): before the kit's dependencies exist, so it imports nothing but
the standard library. Two levels, each with its marker in .venv:

- ``.labkit-installed``: what grading needs, the package's own dependencies (numpy, pytest,
  click, ...). `make lab`, `make grade` and a student's `make test` (which only verifies the
  kit's files) ask for no more.
- ``.labkit-dev-installed``: that and the developers' extras (``.[dev]``: ruff, pytest-xdist,
  pyyaml, zizmor, check-jsonschema), for the kit's own tests, `make lint` and `make format` (`make dev` asks for them).

A .venv that cannot work is rebuilt: one whose python no longer runs (made by a Python since
removed or replaced), or one without pip (what Debian and Ubuntu leave behind when python3-venv
is missing). When this Python cannot make one with pip either, the fix is printed and the exit
status is 2, never 1: `make lab` reads 1 as points lost.
"""

# No `from __future__ import annotations`, no `X | None`: an older Python must get as far as
# saying it is too old (exit status 2), not stop on a SyntaxError (exit status 1).
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

KIT_ROOT = Path(__file__).resolve().parents[2]
MIN_PYTHON = (3, 10)
RUNTIME_MARKER = ".labkit-installed"
DEV_MARKER = ".labkit-dev-installed"
CHECK_SECONDS = 60  # a python that takes longer to say its version is broken
# What a first install took on the kit's 2-core VM, under load (README, "The first install"): 25 to 62 s.
FIRST_INSTALL = "first run only: up to a minute, longer on a slow network"


class CannotInstall(Exception):
    """.venv cannot be made to work from here: the message says what the person must do."""


def version(parts: int) -> str:
    """This Python's version, e.g. 3.11 (``parts`` 2) or 3.11.7 (3)."""
    return ".".join(str(n) for n in sys.version_info[:parts])


def say(text: str) -> None:
    print(f"labkit: {text}", flush=True)


def _run(command: list, **kwargs) -> "subprocess.CompletedProcess":
    return subprocess.run(command, capture_output=True, text=True, timeout=CHECK_SECONDS, **kwargs)


def problem(venv: Path):  # -> str | None, unwritten: see the imports
    """Why ``venv`` cannot be used as it is (None if it can): its python does not run, or it has no pip."""
    python = venv / "bin" / "python"
    try:
        ran = _run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
    except FileNotFoundError:
        return "its python is gone (the Python that made it was removed or moved)"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"its python does not run ({exc})"
    if ran.returncode != 0:
        return f"its python does not run (exit status {ran.returncode})"
    found = tuple(int(part) for part in ran.stdout.split("."))
    if found < MIN_PYTHON:
        return f"its python is {ran.stdout.strip()}; labkit needs {'.'.join(map(str, MIN_PYTHON))} or newer"
    try:
        pip = _run([python, "-m", "pip", "--version"])
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"its pip does not run ({exc})"
    if pip.returncode != 0:
        return "it has no pip"
    return None


def _apt_fix() -> str:
    """What to install on Debian or Ubuntu for this Python's venv to come with pip."""
    minor = version(2)
    default = shutil.which("python3") and os.path.realpath(shutil.which("python3")) == os.path.realpath(sys.executable)
    package = "python3-venv" if default else f"python{minor}-venv"
    return f"sudo apt install {package}"


def cannot_make(venv: Path, python: str, detail: str) -> CannotInstall:
    """What to do when ``python`` (Python ``version(3)``) cannot make ``venv`` with pip: ``detail`` says why."""
    lines = [f"cannot make {venv} with pip in it, using {python} (Python {version(3)}): {detail}."]
    if Path("/etc/debian_version").exists():
        lines.append(f"On Debian or Ubuntu, install Python's venv module with: {_apt_fix()}; then run make again.")
    else:
        lines.append(
            "Install a Python 3.10 or newer that has the venv module (python.org's does), "
            "then run make again with it: make PYTHON=/path/to/python3 ..."
        )
    return CannotInstall("\n".join(lines))


def make_venv(venv: Path, python: str) -> None:
    """A new ``venv`` (emptied first if it exists), with pip; CannotInstall saying the fix if ``python`` cannot."""
    made = subprocess.run([python, "-m", "venv", "--clear", venv], capture_output=True, text=True)
    if made.returncode != 0:  # Debian's and Ubuntu's Python without python3-venv: no ensurepip
        raise cannot_make(venv, python, "its venv module cannot install pip (ensurepip is missing or disabled)")
    still = problem(venv)
    if still is not None:
        raise cannot_make(venv, python, still)


def ready(venv: Path, dev: bool, python: str) -> None:
    """``venv`` made (by ``python``) or repaired, and the kit installed into it at the level asked for."""
    if sys.version_info < MIN_PYTHON:
        raise CannotInstall(
            f"labkit needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; {sys.executable} is "
            f"{version(2)}: run make PYTHON=/path/to/python3.11 ... (or another 3.10+)"
        )
    fresh = not (venv / "pyvenv.cfg").is_file()
    if fresh and (venv.is_file() or (venv.is_dir() and any(venv.iterdir()))):  # not ours to empty
        raise CannotInstall(f"{venv} is not a virtual environment (no pyvenv.cfg): move it away, then run make again")
    if fresh:
        say(f"creating the virtual environment {venv}")
        make_venv(venv, python)
    else:
        why = problem(venv)
        if why is not None:
            say(f"{venv} cannot be used: {why}; making it again")
            make_venv(venv, python)
            fresh = True
    install(venv, dev, fresh)


def install(venv: Path, dev: bool, fresh: bool) -> None:
    what = "what grading needs and the developers' extras (ruff, pytest-xdist, ...)" if dev else "what grading needs"
    say(f"installing {what} into {venv}{f' ({FIRST_INSTALL})' if fresh else ''}...")
    started = time.monotonic()
    target = f"{KIT_ROOT}[dev]" if dev else str(KIT_ROOT)
    # pip's own progress shows: a first install downloads numpy and pytest, a minute on a slow network.
    command = [venv / "bin" / "python", "-m", "pip", "install", "--disable-pip-version-check", "-e", target]
    status = subprocess.run(command).returncode
    if status != 0:
        raise CannotInstall(
            f"installing into {venv} failed (pip's messages above say why); fix that, then run make again"
        )
    for marker in (RUNTIME_MARKER, DEV_MARKER) if dev else (RUNTIME_MARKER,):
        (venv / marker).touch()
    say(f"{venv} is ready ({time.monotonic() - started:.0f} s)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m grader.kit.install", description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=KIT_ROOT / ".venv")
    parser.add_argument("--dev", action="store_true", help="also the developers' extras (pyproject's dev)")
    # The Python that makes .venv: the one make runs this with (PYTHON), as make names it.
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args(argv)
    try:
        ready(args.venv, args.dev, args.python)
    except CannotInstall as exc:
        for line in str(exc).splitlines():
            say(line)
        return 2
    except KeyboardInterrupt:
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

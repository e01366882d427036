"""The first install (grader/kit/install.py, run by the Makefile): what `make` does with a .venv
that is missing, broken or made without pip, on a fresh copy of the student edition.

A Python like Debian's or Ubuntu's without python3-venv is a stand-in script (`debian_python`):
its `-m venv` makes an environment without pip, says ensurepip is not available and fails, as
theirs does. One test installs for real, from the package index pip is configured with: a venv
made without pip is rebuilt, filled with what grading needs (not the developers' extras), and
`make lab` grades the pristine starter (exit 1: points lost).
"""

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from grader.kit import edition, install
from grader.labs import KIT_ROOT

FIX = "install Python's venv module with: sudo apt install python"  # python3-venv, or python3.X-venv
NO_PIP = "its venv module cannot install pip (ensurepip is missing or disabled)"


def clean_env(**extra):
    """The environment of a shell a student opens: none of this test run's grading, make or venv settings."""
    noise = ("IMPL", "LABKIT_", "PYTEST_", "MAKE", "MFLAGS", "VIRTUAL_ENV", "PYTHONPATH")
    return {**{k: v for k, v in os.environ.items() if not k.startswith(noise)}, **extra}


@pytest.fixture
def fresh(tmp_path) -> Path:
    """A fresh copy of the student edition, as a student clones it."""
    root = tmp_path / "labkit"
    edition.export_student(KIT_ROOT, root)
    return root


@pytest.fixture
def debian_python(tmp_path) -> Path:
    script = tmp_path / "bin" / "python3"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then\n'
        "  shift 2\n"
        f'  "{sys.executable}" -m venv --without-pip "$@" || exit 1\n'
        '  echo "The virtual environment was not created successfully because ensurepip is not available." >&2\n'
        "  exit 1\n"
        "fi\n"
        f'exec "{sys.executable}" "$@"\n'
    )
    script.chmod(0o755)
    return script


def make(root: Path, *args, python=sys.executable, timeout=60) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", *args, f"PYTHON={python}"],
        cwd=root,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=timeout,
    )


def labkit_lines(result: subprocess.CompletedProcess) -> list[str]:
    """What the install said, in order (pip's own lines left out)."""
    return [line for line in (result.stdout + result.stderr).splitlines() if line.startswith("labkit: ")]


def test_without_python3_venv_make_says_how_to_fix_it_and_exits_2_every_time(fresh, debian_python):
    first = make(fresh, "lab", "CH=06", python=debian_python)
    assert first.returncode == 2, first.stdout + first.stderr  # never 1, which means points lost
    said = labkit_lines(first)
    assert said[0] == "labkit: creating the virtual environment .venv"
    assert (
        said[1]
        == f"labkit: cannot make .venv with pip in it, using {debian_python} (Python {install.version(3)}): {NO_PIP}."
    )
    assert FIX in said[2] and said[2].endswith("; then run make again.")
    assert "No module named pip" not in first.stderr and "Traceback" not in first.stderr
    assert (fresh / ".venv/bin/python").exists() and not (fresh / ".venv/bin/pip").exists()  # as Debian leaves it
    again = make(fresh, "lab", "CH=06", python=debian_python)  # the .venv without pip it left: seen, said again
    assert again.returncode == 2
    assert labkit_lines(again)[0] == "labkit: .venv cannot be used: it has no pip; making it again"
    assert labkit_lines(again)[1:] == said[1:]
    checked = make(fresh, "test", python=debian_python)  # any command that needs .venv says the same
    assert checked.returncode == 2 and labkit_lines(checked)[1:] == said[1:]


def test_a_venv_whose_python_is_gone_is_seen_and_made_again(fresh, debian_python):
    venv.create(fresh / ".venv", with_pip=False)
    (fresh / ".venv/.labkit-installed").touch()  # it was installed, once
    python = fresh / ".venv/bin/python"
    python.unlink()
    python.symlink_to("/nonexistent/python3.9")  # the Python that made it, since removed
    result = make(fresh, "lab", "CH=06", python=debian_python)
    said = labkit_lines(result)
    assert said[0] == (
        "labkit: .venv cannot be used: its python is gone (the Python that made it was removed or moved); "
        "making it again"
    )
    assert result.returncode == 2 and FIX in said[2]  # this Python cannot make one with pip: the fix


def test_a_folder_that_is_not_a_venv_is_left_alone(fresh):
    (fresh / ".venv").mkdir()
    (fresh / ".venv/notes.txt").write_text("mine")
    result = make(fresh, "lab", "CH=06")
    assert result.returncode == 2
    assert labkit_lines(result) == [
        "labkit: .venv is not a virtual environment (no pyvenv.cfg): move it away, then run make again"
    ]
    assert (fresh / ".venv/notes.txt").read_text() == "mine"


def test_a_python_too_old_is_told_so_with_exit_status_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(install, "MIN_PYTHON", (sys.version_info[0], sys.version_info[1] + 1))
    assert install.main(["--venv", str(tmp_path / ".venv")]) == 2
    assert capsys.readouterr().out == (
        f"labkit: labkit needs Python {sys.version_info[0]}.{sys.version_info[1] + 1} or newer; {sys.executable} is "
        f"{install.version(2)}: run make PYTHON=/path/to/python3.11 ... (or another 3.10+)\n"
    )
    assert not (tmp_path / ".venv").exists()


def test_a_venv_made_without_pip_is_rebuilt_and_grading_runs(fresh):
    """For real: rebuilt, installed from the package index pip is configured with, graded."""
    venv.create(fresh / ".venv", with_pip=False)  # what `python3 -m venv` leaves without python3-venv
    result = make(fresh, "lab", "CH=06", timeout=900)
    said = labkit_lines(result)
    assert result.returncode == 1, result.stdout + result.stderr  # graded: the pristine starter loses points
    assert said[:2] == [
        "labkit: .venv cannot be used: it has no pip; making it again",
        f"labkit: installing what grading needs into .venv ({install.FIRST_INSTALL})...",
    ]
    assert said[2].startswith("labkit: .venv is ready (") and "Total: 0/100" in result.stderr
    assert "Successfully installed" in result.stdout + result.stderr  # pip's progress is shown, not hidden
    python = fresh / ".venv/bin/python"
    for extra, wanted in (("numpy", True), ("pytest_jsonreport", True), ("xdist", False), ("ruff", False)):
        found = subprocess.run([python, "-c", f"import {extra}"], capture_output=True).returncode == 0
        assert found == wanted, extra  # what grading needs, not the developers' extras
    again = make(fresh, "lab", "CH=06")
    assert again.returncode == 1 and labkit_lines(again) == []  # ready: nothing installed, nothing said

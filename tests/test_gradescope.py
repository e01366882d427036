"""The Gradescope autograder package: what is in the zip, and what its run_autograder writes.

The package is built once and unpacked (with unzip, as Gradescope does) into a simulated
/autograder/source; every run then calls the real run_autograder script with the paths
overridden: AUTOGRADER_ROOT points at a temporary tree, LABKIT_GRADER at this kit's
grader, and PYTHONPATH at the unpacked kit, so the code graded with is the package's own.
setup.sh is not run (it needs apt and root on a fresh image).
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.kit import starters
from grader.labs import KIT_ROOT
from grader.platforms import gradescope
from grader.report.exports import GRADESCOPE_VISIBILITY
from tests.mutation import solution_lines

LAB = "ch06"
GRADER = Path(sys.executable).with_name("grader")


def unpack(archive: Path, into: Path) -> None:
    """Unzip as Gradescope does: with unzip where there is one (it applies the modes), else by hand."""
    into.mkdir(parents=True)
    if shutil.which("unzip"):
        subprocess.run(["unzip", "-q", str(archive), "-d", str(into)], check=True)
        return
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            target = into / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
            target.chmod((info.external_attr >> 16) & 0o777)


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The zip, and its contents unpacked as /autograder/source."""
    top = tmp_path_factory.mktemp("gradescope")
    archive = top / "out" / "autograder.zip"
    result = CliRunner().invoke(main, ["gradescope", "--lab", LAB, str(archive)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"wrote {archive}" in result.output
    source = top / "source"
    unpack(archive, source)
    return archive, source


def test_package_has_executable_scripts_and_the_student_edition(package):
    archive, source = package
    for name in ("setup.sh", "run_autograder"):
        path = source / name
        assert path.is_file() and path.stat().st_mode & stat.S_IXUSR, f"{name} is not executable after unzip"
        assert path.read_text().startswith("#!/usr/bin/env bash\n")
        syntax = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert syntax.returncode == 0, syntax.stderr
    setup = (source / "setup.sh").read_text()
    assert "apt-get install -y --no-install-recommends python3 python3-venv python3-pip" in setup
    assert (
        'python3 -m venv "$KIT/.venv"' in setup and 'pip install --disable-pip-version-check --quiet -e "$KIT"' in setup
    )
    run_autograder = (source / "run_autograder").read_text()
    assert "set -u" in run_autograder and f"gradescope-run --lab {LAB} " in run_autograder
    kit = source / "labkit"
    for relpath in (
        "pyproject.toml",
        f"labs/{LAB}/test_lab.py",
        f"labs/{LAB}/starter.py",
        "grader/platforms/gradescope.py",
    ):
        assert (kit / relpath).is_file(), relpath
    with zipfile.ZipFile(archive) as zf:
        assert {"setup.sh", "run_autograder"} <= set(zf.namelist())


def test_package_holds_no_reference_code(package):
    archive, source = package
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
    assert not [n for n in names if "reference/" in n or n.startswith("labkit/tests/")]
    assert not (source / "labkit" / "reference").exists()
    secret = solution_lines()
    assert len(secret) > 50  # the check below has something to find
    for path in source.rglob("*"):
        if path.is_file():
            lines = {line.strip() for line in path.read_text(errors="replace").splitlines()}
            assert not lines & secret, f"{path.relative_to(source)} holds solution lines: {sorted(lines & secret)[:3]}"


def clean_env() -> dict:
    """This environment without the settings of the test run's own grading."""
    noise = ("IMPL", "LABKIT_", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH")
    return {k: v for k, v in os.environ.items() if not k.startswith(noise)}


def autograde(package, tmp_path, fill):
    """Run the package's run_autograder on the submission folder ``fill`` prepares; (exit status, results)."""
    _, source = package
    root = tmp_path / "autograder"
    root.mkdir()
    (root / "source").symlink_to(source, target_is_directory=True)
    (root / "submission").mkdir()
    fill(root / "submission")
    env = clean_env() | {
        gradescope.ROOT_ENV: str(root),
        gradescope.GRADER_ENV: str(GRADER),
        "PYTHONPATH": str(root / "source" / "labkit"),
    }
    done = subprocess.run(
        [str(root / "source" / "run_autograder")], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )
    results = root / "results" / "results.json"
    assert results.is_file(), done.stdout + done.stderr
    return done, json.loads(results.read_text())


def is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_spec(results: dict) -> None:
    """Gradescope's results.json format: https://gradescope-autograders.readthedocs.io/en/latest/specs/"""
    assert is_number(results["score"]) and is_number(results["execution_time"])
    assert isinstance(results["output"], str) and results["output"]
    assert isinstance(results["tests"], list)
    for test in results["tests"]:
        assert isinstance(test["name"], str) and test["name"]
        assert is_number(test["score"]) and is_number(test["max_score"])
        assert test["status"] in ("passed", "failed")
        assert isinstance(test["output"], str)
        assert test["visibility"] in GRADESCOPE_VISIBILITY


def test_the_packaged_kit_is_what_runs(package, tmp_path):
    _, source = package
    env = {**clean_env(), "PYTHONPATH": str(source / "labkit")}
    where = subprocess.run(
        [sys.executable, "-c", "import grader, labs; print(grader.__file__); print(labs.__file__)"],
        env=env,
        cwd=tmp_path,  # as the grader command runs: the current folder is not on its import path
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(Path(p).is_relative_to(source / "labkit") for p in where), where


def test_the_reference_as_one_file_gets_full_marks(package, tmp_path):
    solution = starters.assemble(labs.get(LAB), strip=False)
    done, results = autograde(package, tmp_path, lambda d: (d / "solution.py").write_text(solution))
    assert done.returncode == 0, done.stdout + done.stderr
    check_spec(results)
    assert results["tests"] and all(t["status"] == "passed" for t in results["tests"])
    assert results["score"] == sum(t["max_score"] for t in results["tests"]) > 0
    assert results["output"].startswith("Graded: solution.py\n")
    assert "Isolation: worker" in results["output"]  # behind the wall


def fork_with_pristine_starter(folder: Path) -> None:
    for relpath in (f"labs/{LAB}/starter.py", f"labs/{LAB}/test_lab.py", "labs/__init__.py", "grader/__init__.py"):
        (folder / relpath).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(KIT_ROOT / relpath, folder / relpath)
    (folder / "README.md").write_text("my fork\n")


def test_a_fork_with_the_pristine_starter_scores_zero(package, tmp_path):
    done, results = autograde(package, tmp_path, fork_with_pristine_starter)
    assert done.returncode == 0, done.stdout + done.stderr
    check_spec(results)
    assert results["score"] == 0 and results["tests"]
    assert all(t["status"] == "failed" and t["score"] == 0 for t in results["tests"])
    assert results["output"].startswith(f"Graded: labs/{LAB}/starter.py\n")
    assert "not implemented yet" in results["tests"][0]["output"]


def two_files(folder: Path) -> None:
    (folder / "a.py").write_text("x = 1\n")
    (folder / "b.py").write_text("y = 2\n")


@pytest.mark.parametrize(
    "fill, expected",
    [
        (lambda d: None, "No file to grade was found: no .py file in the folder."),
        (two_files, "It is not clear which file to grade: 2 candidate files: a.py, b.py."),
    ],
    ids=["empty", "two-files"],
)
def test_an_upload_without_one_file_scores_zero_and_says_what_to_upload(package, tmp_path, fill, expected):
    done, results = autograde(package, tmp_path, fill)
    assert done.returncode == 0, done.stdout + done.stderr
    check_spec(results)
    assert results["score"] == 0 and results["tests"] == []
    assert results["output"].startswith(expected)
    assert f"Upload your labs/{LAB}/starter.py" in results["output"]


def test_a_grader_that_does_not_start_still_leaves_results(package, tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "GRADER", tmp_path / "no-such-grader")
    done, results = autograde(package, tmp_path, two_files)
    assert done.returncode != 0
    assert results["score"] == 0 and "the autograder failed to start" in results["output"]


def test_a_failure_of_the_kit_is_a_zero_with_an_error(tmp_path, monkeypatch):
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "mine.py").write_text("x = 1\n")
    results_path = tmp_path / "results" / "results.json"

    def broken(*args, **kwargs):
        raise RuntimeError("pytest did not start")

    monkeypatch.setattr(gradescope.grade, "grade", broken)
    assert gradescope.run(LAB, tmp_path / "submission", results_path) == 1
    results = json.loads(results_path.read_text())
    check_spec(results)
    assert results["score"] == 0
    assert results["output"].startswith("the autograder failed: RuntimeError: pytest did not start")

    assert gradescope.run("no_such_lab", tmp_path / "submission", results_path) == 1
    assert json.loads(results_path.read_text())["output"].startswith("the autograder failed: LabError")


def test_an_unknown_lab_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["gradescope", "--lab", "nope", str(tmp_path / "a.zip")])
    assert result.exit_code == 2 and not (tmp_path / "a.zip").exists()


def test_an_upload_with_a_link_out_of_it_scores_zero_and_names_the_link(tmp_path):
    classmate = tmp_path / "classmate"
    (classmate / "labs" / LAB).mkdir(parents=True)
    (classmate / "labs" / LAB / "starter.py").write_text(starters.assemble(labs.get(LAB), strip=False))
    upload = tmp_path / "submission"
    upload.mkdir()
    (upload / "labs").symlink_to(classmate / "labs")
    results_path = tmp_path / "results" / "results.json"
    assert gradescope.run(LAB, upload, results_path) == 0
    results = json.loads(results_path.read_text())
    check_spec(results)
    assert results["score"] == 0 and results["tests"] == []
    link = f"labs is a symbolic link to {classmate / 'labs'}, outside the student's own folder"
    assert results["output"].startswith(f"The file cannot be graded: {link}.\n")

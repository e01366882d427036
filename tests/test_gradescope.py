"""The Gradescope autograder package: what is in the zip, and what its run_autograder writes and prints.

The package is built once and unpacked (with unzip, as Gradescope does) into a simulated
/autograder/source; every run then calls the real run_autograder script with the paths
overridden: AUTOGRADER_ROOT points at a temporary tree, LABKIT_GRADER at this kit's
grader, and PYTHONPATH at the unpacked kit, so the code graded with is the package's own.
setup.sh is not run (it needs apt and root on a fresh image).
"""

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
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
from grader.testing import expected_gradients
from grader.wall import sandbox
from tests import instructor
from tests.handmade import report as handmade_report
from tests.handmade import test_row
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


def test_package_has_executable_scripts_and_the_visibility_baked_in(package):
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
    assert "set -u" in run_autograder
    assert (
        f"gradescope-run --lab {LAB} --visibility=visible=visible --visibility=hidden=after_due_date " in run_autograder
    )


def kit_files(folder: str) -> set[str]:
    """The kit's own files under ``folder`` (POSIX, relative to the kit), caches left out."""
    return {
        p.relative_to(KIT_ROOT).as_posix()
        for p in (KIT_ROOT / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_package_holds_just_what_grading_the_lab_needs(package):
    archive, _ = package
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
    assert len(names) == len(set(names))
    lab_files = {f for f in kit_files(f"labs/{LAB}") if f"labs/{LAB}/instructor/" not in f}
    expected = {"pyproject.toml", "README.md", "labs/__init__.py", *kit_files("grader"), *lab_files}
    assert {
        "grader/MANIFEST.json",
        f"labs/{LAB}/test_lab.py",
        f"labs/{LAB}/lab.toml",
        f"labs/{LAB}/loops.py",
    } <= expected
    assert set(names) == {"setup.sh", "run_autograder", *(f"labkit/{f}" for f in expected)}
    for absent in ("bench/", "tests/", "reference/", "examples/", ".ci/", ".github/", "instructor/", "Makefile"):
        assert not [n for n in names if absent in n], absent
    other_labs = [lab for lab in labs.discover() if lab != LAB]
    assert other_labs and not [n for n in names if any(f"labs/{lab}/" in n for lab in other_labs)]


def test_the_package_knows_one_lab_and_verifies_its_own_files(package, tmp_path):
    _, source = package
    env = {**clean_env(), "PYTHONPATH": str(source / "labkit")}
    listed = subprocess.run(
        [sys.executable, "-m", "grader", "list"], env=env, cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert listed.split()[0] == LAB and not [lab for lab in labs.discover() if lab != LAB and lab in listed]
    verified = subprocess.run(
        [sys.executable, "-m", "grader", "verify"], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert verified.returncode == 0 and verified.stdout.startswith("verified: every protected file is as shipped")
    readme = (source / "labkit" / "README.md").read_text()
    assert readme.startswith(f"# labkit: the Gradescope autograder for lab {LAB}\n") and "its hidden tests" in readme


def test_the_package_uses_the_lab_s_shipped_gradients(package, tmp_path):
    """Its sources are the lab's own in the kit (each lab's answers fingerprint that lab alone): the package
    looks the expected gradients of the visible and the hidden tests up instead of computing them."""
    _, source = package
    env = {**clean_env(), "PYTHONPATH": str(source / "labkit")}
    for tier in labs.TIERS:
        code = f"from grader.testing import expected_gradients as e; print(e.sources_fingerprint({LAB!r}, {tier!r}))"
        ran = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True)
        table = source / "labkit" / expected_gradients.table(LAB, tier).relative_to(labs.KIT_ROOT)
        assert ran.stdout.strip() == json.loads(table.read_text(encoding="utf-8"))["sources"], (tier, ran.stderr)


def test_the_package_has_what_installing_it_needs(package, tmp_path):
    """setup.sh's `pip install -e` reads pyproject.toml, its readme and the packages it finds: setuptools'
    egg_info does the same, offline (pip would fetch the build backend)."""
    pytest.importorskip("setuptools", reason="the kit's virtual environment has no setuptools to build with")
    _, source = package
    kit = shutil.copytree(source / "labkit", tmp_path / "labkit")
    built = subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", "egg_info", "--egg-base", str(tmp_path)],
        cwd=kit,
        env=clean_env(),
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    info = tmp_path / "labkit.egg-info"
    assert f"# labkit: the Gradescope autograder for lab {LAB}" in (info / "PKG-INFO").read_text()
    sources = (info / "SOURCES.txt").read_text().split()
    assert {f"labs/{LAB}/test_lab.py", "grader/platforms/gradescope.py", "labs/__init__.py"} <= set(sources)
    assert not [s for s in sources if s.startswith("labs/") and not s.startswith((f"labs/{LAB}/", "labs/__init__"))]


def test_setups_modes_keep_the_hidden_tests_from_the_workers_uid(package, monkeypatch):
    """A security review: setup.sh made the whole package readable by every user, hidden tests included, and
    where Gradescope's container forbids namespaces the worker runs as a uid of its own that sees the whole
    file system, its Python guard blinded from the submission (`os.path.realpath` replaced): a visible test's
    message showed the hidden tests' source. setup.sh's modes (applied here to the unpacked package) leave the
    kernel to refuse that uid, and the grader refuses that level while the hidden tests are readable."""
    if os.geteuid() != 0:
        pytest.skip("setup.sh runs as root, and reading as another uid needs root")
    _, source = package
    root = Path(tempfile.mkdtemp(prefix="autograder-", dir="/tmp"))  # a tree other users can walk, as /autograder
    try:
        root.chmod(0o755)
        kit = shutil.copytree(source / gradescope.KIT_FOLDER, root / "source" / gradescope.KIT_FOLDER)
        hidden = kit / "labs" / LAB / "hidden"
        monkeypatch.setattr(sandbox, "KIT_ROOT", kit)
        monkeypatch.setenv(sandbox.SANDBOX_ENV, "unprivileged-user")
        subprocess.run(["chmod", "-R", "a+rX", str(root)], check=True)  # as the zip's modes may leave it
        with pytest.raises(sandbox.SandboxUnavailable, match="the hidden tests in .* are readable by other users"):
            sandbox.level()
        script = f"set -euo pipefail\nROOT={shlex.quote(str(root))}\nKIT={shlex.quote(str(kit))}\n"
        subprocess.run(["bash", "-c", script + gradescope.PERMISSIONS_SH.format()], check=True)
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cat"]
        for secret in [hidden / "test_hidden.py", hidden / "expected_gradients.json"]:
            refused = subprocess.run([*as_nobody, str(secret)], capture_output=True, text=True)
            assert refused.returncode != 0 and "Permission denied" in refused.stderr, refused
        visible = subprocess.run([*as_nobody, str(kit / "labs" / LAB / "test_lab.py")], capture_output=True)
        assert visible.returncode == 0 and b"def test_" in visible.stdout  # what the worker may read, it can
        try:
            sandbox.level()
        except sandbox.SandboxUnavailable as exc:  # this machine's interpreter may be out of others' reach
            assert "hidden tests" not in str(exc) and "reference" not in str(exc), exc
    finally:
        shutil.rmtree(root)


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
    hidden = [t for t in results["tests"] if t["extra_data"]["tier"] == "hidden"]
    assert hidden and all(t["visibility"] == "after_due_date" for t in hidden)  # the default
    assert results["output"].splitlines() == [
        "Graded: solution.py",
        f"{LAB}: {labs.get(LAB).title}",
        f"Score of the {len(results['tests']) - len(hidden)} tests shown now: 100/100 (78 passed)",
        f"{len(hidden)} hidden tests ({sum(t['max_score'] for t in hidden):g} points), shown after the due date",
    ]
    assert [t["number"] for t in results["tests"]][:2] == ["1.1", "1.2"] and results["stdout_visibility"] == "hidden"
    # How the sandbox held is the instructor's: on run_autograder's stdout, which the student does not see.
    stdout = done.stdout.splitlines()
    assert stdout[0].startswith(f"{LAB}: graded solution.py (sha256 ")
    assert "Isolation: worker, bubblewrap sandbox" in stdout
    protections = [line for line in stdout if line.startswith("  protection: ")]
    assert any("namespaces" in line for line in protections) and any(
        "system calls refused" in line for line in protections
    )
    for line in protections:
        said = line.removeprefix("  protection: ")
        assert said not in results["output"] and not any(said in t["output"] for t in results["tests"])


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


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "hidden=later",
            "--visibility: visibility of hidden tests must be one of visible, hidden, after_due_date, "
            "after_published, not 'later'",
        ),
        ("bonus=visible", "--visibility: unknown test tier 'bonus': the tiers are visible, hidden"),
        ("hidden", "--visibility takes TIER=VALUE, got 'hidden'; the tiers: visible, hidden"),
    ],
)
def test_a_bad_visibility_is_refused_in_one_line(tmp_path, option, message):
    for command in (
        ["gradescope", "--lab", LAB, str(tmp_path / "a.zip")],
        ["gradescope-run", "--lab", LAB, "--submission-dir", str(tmp_path), "--results", str(tmp_path / "r.json")],
    ):
        result = CliRunner().invoke(main, [*command, "--visibility", option])
        assert (result.exit_code, result.output) == (2, f"grader: error: {message}\n"), command
    assert not (tmp_path / "a.zip").exists() and not (tmp_path / "r.json").exists()


def test_the_visibility_chosen_is_what_students_get(tmp_path):
    archive = tmp_path / "a.zip"
    options = ["--visibility", "visible=after_published", "--visibility", "hidden=hidden"]
    result = CliRunner().invoke(main, ["gradescope", "--lab", LAB, *options, str(archive)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == "students see: visible tests after_published, hidden tests hidden"
    unpack(archive, tmp_path / "source")
    solution = starters.assemble(labs.get(LAB), strip=False)
    done, results = autograde((archive, tmp_path / "source"), tmp_path, lambda d: (d / "a.py").write_text(solution))
    assert done.returncode == 0, done.stdout + done.stderr
    tiers = {t["extra_data"]["tier"]: t["visibility"] for t in results["tests"]}
    assert tiers == {"visible": "after_published", "hidden": "hidden"}
    assert results["visibility"] == "after_published"
    assert "Score" not in results["output"]  # nothing the student may not see yet
    hidden = [t for t in results["tests"] if t["extra_data"]["tier"] == "hidden"]
    assert results["output"].splitlines()[-2:] == [
        "78 tests (100 points), shown when grades are published",
        f"{len(hidden)} hidden tests ({sum(t['max_score'] for t in hidden):g} points), never shown to students",
    ]
    assert f"Score: {results['score']:g}/{results['score']:g} ({len(results['tests'])} passed)" in done.stdout


def test_the_package_grades_the_hidden_tests_and_students_see_them_after_the_due_date(package, tmp_path):
    """The lab's hidden tests travel in the package (the one edition that has them) and count on Gradescope:
    the submission tuned to the visible tests gets the visible points now and loses every hidden one, which
    its student sees, without their names, only after the due date."""
    archive, _ = package
    lab = labs.get(LAB)
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        assert zf.read(f"labkit/labs/{LAB}/lab.toml") == (lab.folder / "lab.toml").read_bytes()  # [hidden] kept
    assert {f"labkit/labs/{LAB}/{relpath}" for relpath in lab.hidden_tests} <= names
    tuned = instructor.tuned(LAB)
    done, results = autograde(package, tmp_path, lambda d: shutil.copy(tuned, d / "mine.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    check_spec(results)
    hidden = [t for t in results["tests"] if t["extra_data"]["tier"] == "hidden"]
    visible = [t for t in results["tests"] if t["extra_data"]["tier"] == "visible"]
    assert hidden and all(t["status"] == "failed" and t["visibility"] == "after_due_date" for t in hidden)
    assert visible and all(t["status"] == "passed" and t["visibility"] == "visible" for t in visible)
    hidden_points = sum(t["max_score"] for t in hidden)
    assert results["score"] == 100 and hidden_points > 0
    assert results["output"].splitlines()[2:] == [
        f"Score of the {len(visible)} tests shown now: 100/100 ({len(visible)} passed)",
        f"{len(hidden)} hidden tests ({hidden_points:g} points), shown after the due date",
    ]
    assert "test_hidden" not in results["output"]
    said = next(line for line in done.stdout.splitlines() if line.startswith("hidden tests: "))
    assert said.startswith(f"hidden tests: 0/{hidden_points:g} (") and said.endswith("; students: after_due_date")


def test_hidden_tests_are_counted_for_the_student_and_shown_to_the_instructor(tmp_path, monkeypatch, capsys):
    """What gradescope-run writes and prints for a report with hidden tests (the wall's run is faked)."""
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "mine.py").write_text("x = 1\n")
    lab = labs.get(LAB)
    tests = [
        test_row("test_value_add", "value", "passed", 1, 1),
        {**test_row("test_hidden_value_pow", "value", "failed", 0, 3, "expected 8.0, got 9.0"), "tier": "hidden"},
        test_row("test_tensor_add", "tensor", "failed", 0, 2, "wrong shape"),
    ]
    graded = handmade_report(
        tests,
        tasks=[(t.id, t.title) for t in lab.tasks],
        isolation={"mode": "worker", "level": "bubblewrap", "protections": ["seccomp: no sockets"]},
    )
    monkeypatch.setattr(gradescope.grade, "grade", lambda *args, **kwargs: graded)
    results_path = tmp_path / "results.json"
    assert gradescope.run(LAB, tmp_path / "submission", results_path) == 0
    results = json.loads(results_path.read_text())
    check_spec(results)
    assert results["output"].splitlines()[2:] == [
        "Score of the 2 tests shown now: 1/3 (1 passed, 1 failed)",
        "1 hidden test (3 points), shown after the due date",
    ]
    assert "test_hidden" not in results["output"] and "seccomp" not in results["output"]
    assert [(t["number"], t["visibility"]) for t in results["tests"]] == [
        ("1.1", "visible"),
        ("1.2", "after_due_date"),
        ("2.1", "visible"),
    ]
    stdout = capsys.readouterr().out.splitlines()
    assert "hidden tests: 0/3 (1 failed); students: after_due_date" in stdout
    assert "  protection: seccomp: no sockets" in stdout


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


def test_the_autograder_is_written_only_over_a_zip(tmp_path):
    """OUT must name a zip, and an existing OUT must be one (a review's `grader gradescope --lab ch06 good.py`
    turned the student's file into the autograder); nothing is written when it is refused."""
    student = tmp_path / "good.py"
    student.write_text("print('mine')\n")
    notes = tmp_path / "notes.zip"
    notes.write_text("not a zip\n")
    for out, said in (
        (student, "the autograder is a zip file: give a name ending in .zip"),
        (tmp_path / "new.txt", "the autograder is a zip file: give a name ending in .zip"),
        (notes, "exists and is not a zip file: give another name, or remove it first"),
    ):
        result = CliRunner().invoke(main, ["gradescope", "--lab", "ch06", str(out)])
        assert result.exit_code == 2 and said in result.output, result.output
    assert student.read_text() == "print('mine')\n" and notes.read_text() == "not a zip\n"
    assert not (tmp_path / "new.txt").exists()

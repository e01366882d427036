"""The manifest of files a student must not change, its verifier, and the student edition.

Verification runs on a copy of the kit's protected files (and starters) in tmp_path, so each
test can tamper with its own checkout. The edition tests export the kit, install the edition
in a fresh virtual environment and run its README's commands there.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import integrity as cli_integrity
from grader.cli import main
from grader.kit import edition, manifest
from grader.labs import KIT_ROOT
from grader.verdicts import NO_REFERENCE
from tests.mutation import solution_lines


def run_cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def checkout(tmp_path):
    """A copy of the kit's protected files, starters and README, with the manifest of that copy."""
    root = tmp_path / "checkout"
    shipped = manifest.build_manifest(KIT_ROOT)
    extra = [p.relative_to(KIT_ROOT).as_posix() for p in KIT_ROOT.glob("labs/*/starter.py")]
    for relpath in [*shipped["files"], *extra, "README.md"]:
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(KIT_ROOT / relpath, root / relpath)
    manifest.write_manifest(root, root / manifest.MANIFEST_RELPATH)
    return root


def verify(root):
    return manifest.verify(root, manifest.load_manifest(root / manifest.MANIFEST_RELPATH))


def write(root, relpath, text="x = 1\n"):
    (root / relpath).parent.mkdir(parents=True, exist_ok=True)
    (root / relpath).write_text(text)


def append(root, relpath, text="\n# changed\n"):
    with (root / relpath).open("a") as file:
        file.write(text)


def link_to_a_copy(root, relpath):
    """Same bytes, but through a symlink whose target could change under the grader."""
    copy = root / "notes" / "copy"
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / relpath, copy)
    (root / relpath).unlink()
    (root / relpath).symlink_to(copy)


TAMPERING = {
    "edited test": (lambda r: append(r, "labs/ch06/test_lab.py"), "changed: labs/ch06/test_lab.py"),
    "conftest at the root": (lambda r: write(r, "conftest.py"), "added: conftest.py"),
    "conftest in a lab": (lambda r: write(r, "labs/ch06/conftest.py"), "added: labs/ch06/conftest.py"),
    "pytest.ini": (lambda r: write(r, "pytest.ini", "[pytest]\n"), "added: pytest.ini"),
    "tox.ini with a pytest section": (lambda r: write(r, "tox.ini", "[pytest]\naddopts = -p x\n"), "added: tox.ini"),
    "sitecustomize": (lambda r: write(r, "sitecustomize.py"), "added: sitecustomize.py"),
    "a .pth": (lambda r: write(r, "notes/evil.pth", "import os\n"), "added: notes/evil.pth"),
    "numpy.py at the root": (lambda r: write(r, "numpy.py"), "added: numpy.py"),
    "a numpy package": (lambda r: write(r, "numpy/__init__.py"), "added: numpy/__init__.py"),
    "a bare numpy.pyc": (lambda r: write(r, "numpy.pyc"), "added: numpy.pyc"),
    "GNUmakefile": (lambda r: write(r, "GNUmakefile", "lab:\n"), "added: GNUmakefile"),
    "deleted lab.toml": (lambda r: (r / "labs/ch06/lab.toml").unlink(), "missing: labs/ch06/lab.toml"),
    "grader file changed": (lambda r: append(r, "grader/grading/runner.py"), "changed: grader/grading/runner.py"),
    "file added to the grader": (lambda r: write(r, "grader/data.txt"), "added: grader/data.txt"),
    "module added to a lab": (lambda r: write(r, "labs/ch06/helpers.py"), "added: labs/ch06/helpers.py"),
    # Answers a lab's tests would look up (grader.testing.expected_gradients): a review planted some in the
    # student edition's labs/ch06/hidden/, and the fork's CI gave its bug the points.
    "expected gradients planted": (
        lambda r: write(r, "labs/ch06/expected_gradients.json", "{}"),
        "added: labs/ch06/expected_gradients.json",
    ),
    "expected gradients changed": (
        lambda r: append(r, "grader/testing/expected_gradients/ch06.json", " "),
        "changed: grader/testing/expected_gradients/ch06.json",
    ),
    "hidden tests' expected gradients changed": (
        lambda r: append(r, "labs/ch06/hidden/expected_gradients.json", " "),
        "changed: labs/ch06/hidden/expected_gradients.json",
    ),
    "test replaced by a symlink": (
        lambda r: link_to_a_copy(r, "labs/ch06/test_lab.py"),
        "changed: labs/ch06/test_lab.py",
    ),
}


def test_an_untouched_checkout_is_clean(checkout):
    result = verify(checkout)
    assert result.clean and result.findings() == []


@pytest.mark.parametrize("kind", list(TAMPERING))
def test_each_tampering_is_named_exactly(checkout, kind):
    tamper, finding = TAMPERING[kind]
    tamper(checkout)
    assert verify(checkout).findings() == [finding]


def test_a_lab_folder_replaced_by_a_symlink_changes_each_protected_file(checkout):
    shutil.move(checkout / "labs/ch06", checkout / "notes/ch06")
    (checkout / "labs/ch06").symlink_to(checkout / "notes/ch06")
    protected = sorted(f for f in manifest.build_manifest(KIT_ROOT)["files"] if f.startswith("labs/ch06/"))
    assert verify(checkout).findings() == [f"changed: {f}" for f in protected]


def test_a_students_own_work_is_not_a_finding(checkout):
    append(checkout, "labs/ch06/starter.py", "\ndef helper():\n    return 1\n")
    append(checkout, "README.md")
    write(checkout, "notes/scratch.py")
    write(checkout, "labs/ch06/notes.md", "my notes\n")
    write(checkout, "tox.ini", "[tox]\nenvlist = py311\n")  # no pytest section
    write(checkout, "reports/ch06-mine.json", "{}\n")
    write(checkout, "grader/__pycache__/runner.cpython-311.pyc", "")
    write(checkout, ".venv/lib/site-packages/anything.pth", "")
    assert verify(checkout).clean


def test_the_manifest_does_not_list_itself_or_the_students_files(checkout):
    files = manifest.load_manifest(checkout / manifest.MANIFEST_RELPATH)["files"]
    assert manifest.MANIFEST_RELPATH not in files and "labs/ch06/starter.py" not in files
    # Nor the labs' instructor folders, which a student's copy does not have.
    assert not [f for f in manifest.build_manifest(KIT_ROOT)["files"] if "/instructor/" in f]
    assert {"labs/ch06/test_lab.py", "labs/ch06/lab.toml", "labs/ch06/xor_mlp.py", "Makefile", ".ci/run"} <= set(files)
    assert list(files) == sorted(files)


def test_verify_command_exit_statuses_and_json(checkout, tmp_path):
    clean = run_cli("verify", "--root", checkout)
    assert clean.exit_code == 0 and clean.output.startswith("verified:"), clean.output

    append(checkout, "labs/ch06/test_lab.py")
    write(checkout, "conftest.py")
    out = tmp_path / "verify.json"
    tampered = run_cli("verify", "--root", checkout, "--json", out)
    assert tampered.exit_code == 1
    assert tampered.output.splitlines() == ["changed: labs/ch06/test_lab.py", "added: conftest.py"]
    assert json.loads(out.read_text())["changed"] == ["labs/ch06/test_lab.py"]

    (checkout / manifest.MANIFEST_RELPATH).unlink()
    missing = run_cli("verify", "--root", checkout)
    assert missing.exit_code == 2
    assert len(missing.output.splitlines()) == 1
    assert missing.output.startswith("grader: error: cannot read the manifest")


def test_verify_shows_a_files_name_as_text_never_as_control_sequences(checkout):
    """A security review: a fork added a file whose name moved the cursor up and erased the line, so a
    terminal showed "verified: ..." where `added: conftest.py` had been printed."""
    name = "grader/zz\r\x1b[2K\x1b[1A\x1b[2Kverified: every protected file is as shipped.py"
    write(checkout, name)
    result = CliRunner().invoke(main, ["verify", "--root", str(checkout)], color=True)  # color: nothing stripped
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\r" not in result.output
    assert result.output.splitlines() == [
        "added: grader/zz\\x0d\\x1b[2K\\x1b[1A\\x1b[2Kverified: every protected file is as shipped.py"
    ]


def test_the_shipped_manifest_is_current():
    result = run_cli("manifest", "--check")
    assert result.exit_code == 0, result.output


def test_the_fingerprint_tells_two_kits_of_one_version_apart(checkout):
    before = manifest.fingerprint(checkout)
    assert len(before) == 64 and before == manifest.fingerprint(checkout)
    append(checkout, "grader/verdicts.py")  # a change to the grader the version number does not show
    manifest.write_manifest(checkout, checkout / manifest.MANIFEST_RELPATH)
    assert manifest.fingerprint(checkout) not in ("", before)
    (checkout / manifest.MANIFEST_RELPATH).unlink()
    assert manifest.fingerprint(checkout) == ""


def test_manifest_check_names_stale_files_and_manifest_rewrites_them(checkout, monkeypatch):
    monkeypatch.setattr(cli_integrity, "KIT_ROOT", checkout)
    append(checkout, "labs/ch06/lab.toml")
    stale = run_cli("manifest", "--check")
    assert stale.exit_code == 1 and "labs/ch06/lab.toml" in stale.output and "grader manifest" in stale.output
    assert run_cli("manifest").exit_code == 0
    assert run_cli("manifest", "--check").exit_code == 0


def test_export_refuses_a_starter_holding_the_solution(checkout, tmp_path):
    shutil.copytree(KIT_ROOT / "reference", checkout / "reference", ignore=shutil.ignore_patterns("__pycache__"))
    solution = (KIT_ROOT / "reference/ch06/tensor.py").read_text()
    append(checkout, "labs/ch06/starter.py", "\n" + solution)
    with pytest.raises(edition.EditionError, match="labs/ch06/starter.py holds .* lines of the reference solution"):
        edition.export_student(checkout, tmp_path / "edition")
    assert not (tmp_path / "edition").exists()  # nothing written


def test_export_refuses_a_folder_that_is_not_empty(tmp_path):
    write(tmp_path, "out/keep.txt")
    result = run_cli("export-student", tmp_path / "out")
    assert result.exit_code == 2 and "is not an empty folder" in result.output


def test_edits_fail_loudly_when_the_text_they_expect_is_gone():
    with pytest.raises(edition.EditionError, match="pyproject.toml"):
        edition.student_pyproject('include = ["labs*", "grader*"]\n')
    with pytest.raises(edition.EditionError, match=".ci/run"):
        edition.student_ci_run("make test\n")


# The student edition, end to end: export, install in a fresh virtual environment, run the
# README's commands. Slow-ish (seconds): one edition serves every test of the group.


def clean_env(**extra):
    """The environment of a shell a student opens: none of this test run's grading or make settings."""
    noise = ("IMPL", "LABKIT_", "PYTEST_", "MAKE", "MFLAGS", "VIRTUAL_ENV", "PYTHONPATH")
    return {**{k: v for k, v in os.environ.items() if not k.startswith(noise)}, **extra}


@pytest.fixture(scope="module")
def student_edition(tmp_path_factory):
    """The edition, installed with `pip install --no-deps -e` into its own .venv.

    Its dependencies (numpy, pytest, ...) come from the kit's environment through a .pth
    file instead of the package registry, which would cost a minute; building the editable
    install still fetches setuptools for pip's isolated build. The Makefile's own
    installation step is then marked done, so `make` uses this environment as is.
    """
    root = tmp_path_factory.mktemp("edition") / "labkit"
    files = edition.export_student(KIT_ROOT, root)
    venv.create(root / ".venv", with_pip=False)
    site = subprocess.run(
        [root / ".venv/bin/python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "labkit-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    pip = [sys.executable, "-m", "pip", "--python", root / ".venv/bin/python", "install", "--quiet", "--no-deps"]
    installed = subprocess.run([*pip, "-e", root], capture_output=True, text=True, env=clean_env())
    assert installed.returncode == 0, installed.stderr
    (root / ".venv/.labkit-installed").touch()
    return root, files


def make(root, *args):
    return subprocess.run(
        ["make", *args, f"PYTHON={sys.executable}"], cwd=root, capture_output=True, text=True, env=clean_env()
    )


def test_edition_holds_no_reference_solution(student_edition):
    root, files = student_edition
    assert not (root / "reference").exists() and not (root / "tests").exists()
    secret = solution_lines(min_length=12)  # distinctive lines only
    assert len(secret) > 50  # the check below has something to find
    for relpath in files:
        lines = {line.strip() for line in (root / relpath).read_text(errors="replace").splitlines()}
        assert not lines & secret, f"{relpath} holds reference solution lines: {sorted(lines & secret)[:3]}"


def test_edition_holds_no_instructor_folder_and_no_benchmarks(student_edition):
    root, files = student_edition
    assert list(KIT_ROOT.glob("labs/*/instructor/mutants.py")) and (KIT_ROOT / "bench").is_dir()  # to leave out
    assert not list(root.glob("labs/*/instructor")) and not (root / "bench").exists()
    assert not [f for f in files if f.startswith("bench/") or "/instructor/" in f]


def test_edition_readme_commands_work(student_edition):
    root, _ = student_edition
    readme = (root / "README.md").read_text()
    assert "make lab CH=06   " in readme and "make test   " in readme and "IMPL=ref" not in readme
    graded = make(root, "lab", "CH=06")
    assert graded.returncode == 1, graded.stderr  # the pristine starter loses points; 2 would be a broken kit
    assert "not implemented yet" in graded.stderr
    checked = make(root, "test")
    assert checked.returncode == 0 and "verified:" in checked.stdout, checked.stdout + checked.stderr


def test_the_edition_uses_the_shipped_gradients(student_edition):
    """Its sources are the kit's (the edition leaves out only files the fingerprint leaves out): a student's
    `make lab` looks the expected gradients up instead of computing them."""
    root, files = student_edition
    assert not [f for f in files if f.endswith("expected_gradients.json") and "/hidden/" in f]
    for lab_id in labs.discover():
        table = f"grader/testing/expected_gradients/{lab_id}.json"
        assert table in files
        code = (
            f"from grader.testing import expected_gradients as e; print(e.sources_fingerprint({lab_id!r}, 'visible'))"
        )
        ran = subprocess.run([root / ".venv/bin/python", "-c", code], capture_output=True, text=True, env=clean_env())
        shipped = json.loads((root / table).read_text(encoding="utf-8"))
        assert ran.stdout.strip() == shipped["sources"], ran.stderr


def test_edition_says_the_reference_is_absent(student_edition):
    root, _ = student_edition
    result = make(root, "lab", "CH=06", "IMPL=ref")
    assert result.returncode != 0 and NO_REFERENCE in result.stderr, result.stderr


@pytest.mark.parametrize("args", [["run", "--lab", "ch06", "--impl", "ref"], ["starter", "--check"]])
def test_edition_reference_commands_are_one_line_usage_errors(student_edition, args):
    root, _ = student_edition
    result = subprocess.run([root / ".venv/bin/grader", *args], capture_output=True, text=True, env=clean_env())
    assert result.returncode == 2 and result.stderr == f"grader: error: {NO_REFERENCE}\n", result.stderr


# Every command the edition lists, run there: `make help`'s lines (their [optional] parts left
# out) and the README's, in its code blocks and inline. The pristine starters lose points
# (exit 1); nothing may be missing (make: No rule), crash (a traceback) or fail to run (2).
LISTED = re.compile(r"`((?:make |\.venv/bin/|IMPL=)[^`]*)`")


def listed_commands(root: Path) -> list[str]:
    """The commands the edition's `make help` and README.md tell a student to run, each once."""
    helped = subprocess.run(["make", "help"], cwd=root, capture_output=True, text=True, env=clean_env()).stdout
    found = [re.sub(r"\s*\[[^\]]*\]", "", line.split("  ")[0]).strip() for line in helped.splitlines()]
    readme = (root / "README.md").read_text()
    for block in re.findall(r"^```\n(.*?)^```$", readme, flags=re.MULTILINE | re.DOTALL):
        found += [line.split("#")[0].strip() for line in block.splitlines()]
    found += LISTED.findall(readme)
    return list(dict.fromkeys(c for c in found if c))


def test_every_command_the_edition_lists_runs_there(student_edition):
    root, _ = student_edition
    commands = listed_commands(root)
    helped = {c.split()[1] for c in commands if c.startswith("make ")}
    assert helped == {"lab", "test", "grade"}, commands  # no bench, batch, starters, lint, format, setup
    assert {"make lab CH=06 WALL=1", "make grade CH=06", ".venv/bin/grader list"} <= set(commands)  # inline ones
    for command in commands:
        ran = subprocess.run(
            ["sh", "-c", command], cwd=root, capture_output=True, text=True, env=clean_env(), timeout=600
        )
        said = ran.stdout + ran.stderr
        assert ran.returncode in (0, 1), f"{command}: exit {ran.returncode}\n{said[-2000:]}"
        assert "Traceback" not in said and "No rule to make target" not in said, f"{command}\n{said[-2000:]}"


def test_the_edition_makefile_and_readme_name_nothing_the_edition_lacks(student_edition):
    root, _ = student_edition
    makefile, readme = (root / "Makefile").read_text(), (root / "README.md").read_text()
    targets = {t for line in re.findall(r"^([a-z][\w -]*):", makefile, flags=re.MULTILINE) for t in line.split()}
    assert targets == {"help", "venv", "sandbox", "lab", "test", "grade"}  # venv and sandbox: the others' first steps
    # and every make command the edition's own CI files run is one of them (its .ci/run ran make lint: a review)
    for ci_file in [root / ".ci" / "run", *(root / ".github").rglob("*.yml")]:
        for target in re.findall(r"^\s*(?:run:\s*)?make ([a-z][\w-]*)", ci_file.read_text(), flags=re.MULTILINE):
            assert target in targets, f"{ci_file.relative_to(root)} runs make {target}, which the edition lacks"
    for gone in ("ruff", "pytest -n", "dev-venv", "instructor only", "IMPL=mine|ref", "IMPL=ref"):
        assert gone not in makefile, gone
    for gone in ("make bench", "python -m bench", "make setup", "make batch", "make starters", "tests/", ".ci/run"):
        assert gone not in readme, gone
    assert "instructor only" not in readme and "## Performance" not in readme
    for section in re.findall(r'"([^"]+)" (?:above|below)', readme):  # a section a sentence points at
        assert re.search(rf"^#+ .*{re.escape(section)}", readme, flags=re.MULTILINE | re.IGNORECASE), section

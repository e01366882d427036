"""`grader ci`: autograding on a student's fork.

One real run grades the pristine ch06 starter behind the wall (a few seconds, once per
module); the other tests replay its report through a stand-in for grade.grade, since what
they check (exit statuses, integrity, which labs, where the summary goes) does not depend on
grading again. The kit's files are never modified: the integrity check runs against a
manifest in tmp_path, built from the kit as it is now (so other edits to the working tree do
not count as tampering) and, for a tampered checkout, with one hash changed. A simulated fork
(the student edition, exported to tmp_path, with a bug in a starter) is graded for real, by
its own grader, as GitHub Actions would run it.
"""

import base64
import copy
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.grading import grade, runner
from grader.implementation import Implementation
from grader.kit import edition, manifest
from grader.labs import KIT_ROOT
from grader.platforms import github
from grader.report import exports, schema
from grader.report.text import whole_points
from tests import instructor, mutation

ENV = ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "LABKIT_LAB")
TAMPERED_FILE = "labs/ch06/test_lab.py"


def write_manifest(path, tamper=None):
    """The kit's manifest as of now, with the hash of ``tamper`` changed."""
    current = manifest.build_manifest(KIT_ROOT)
    if tamper is not None:
        current["files"][tamper] = "0" * 64
    path.write_text(manifest.render(current))
    return path


def run_ci(*args):
    return CliRunner().invoke(main, ["ci", *map(str, args)], catch_exceptions=False)


def errors(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::error ")]


@pytest.fixture(autouse=True)
def no_github_environment(monkeypatch):
    """Tests run in GitHub Actions too: only the tests that set these see them."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """`grader ci --lab ch06` on the pristine checkout, for real, as GitHub Actions runs it."""
    tmp = tmp_path_factory.mktemp("ci")
    summary, outputs = tmp / "step_summary.md", tmp / "github_output"
    summary.write_text("earlier step\n")
    outputs.write_text("earlier=1\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GITHUB_STEP_SUMMARY", str(summary))
        mp.setenv("GITHUB_OUTPUT", str(outputs))
        result = run_ci("--lab", "ch06", "--out", tmp / "out", "--manifest", write_manifest(tmp / "manifest.json"))
    report = json.loads((tmp / "out/ch06.json").read_text())
    return SimpleNamespace(
        result=result, out=tmp / "out", report=report, summary=summary.read_text(), outputs=outputs.read_text()
    )


@pytest.fixture
def replay(graded, monkeypatch):
    """grade.grade replaced by the real run's report (relabelled for other labs); returns the calls made."""
    calls = []

    def fake_grade(lab, impl, *, isolation=None, timeout=None):
        calls.append((lab.id, impl, isolation))
        document = copy.deepcopy(graded.report)
        del document["integrity"]
        return {**document, "lab": lab.id, "lab_title": lab.title}

    monkeypatch.setattr(grade, "grade", fake_grade)
    return calls


def test_pristine_checkout_exits_0_and_writes_every_output(graded):
    result = graded.result
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in graded.out.iterdir()) == [
        "ch06.classroom.json",
        "ch06.json",
        "ch06.junit.xml",
        "summary.md",
    ]
    assert "integrity: every protected file is as shipped" in result.stdout
    assert "Graded: ch06, the lab the assignment names." in result.stdout
    assert "::warning" not in result.stdout
    assert "ch06: 0/120 points (0/90 tests passed; exact score 0)" in result.stderr


def test_the_starter_scores_zero_behind_the_wall(graded):
    report = graded.report
    assert report["score"] == 0 and report["max_score"] == sum(t["max_points"] for t in report["tests"]) > 0
    assert report["isolation"]["mode"] == "worker"
    assert report["implementation"]["name"] == "labs/ch06/starter.py" and report["impl"] == "mine"
    assert graded.result.stdout.splitlines()[-1] == f"::notice title=ch06 (advisory)::0/{report['max_score']} points"


def test_the_starters_stubs_are_annotated_where_they_raise(graded):
    """The pristine starter fails 90 tests (the hidden ones too, in this kit) for 2 reasons (Value's stub and
    Tensor's, also where the provided gradcheck and numerical_grad reach it): one error annotation each, on
    labs/ch06/starter.py at the line its message names, which raises the stub."""
    shown = errors(graded.result.stdout)
    found = github.failures([graded.report])
    assert len(shown) == len(found) == 2 and sum(len(f.tests) for f in found) == 90
    lines = (KIT_ROOT / "labs/ch06/starter.py").read_text().splitlines()
    for command, failure in zip(shown, found, strict=True):
        number = int(re.fullmatch(r"::error file=labs/ch06/starter\.py,line=(\d+),title=ch06%3A .*", command)[1])
        assert number == failure.line and f"(starter.py:{number} in " in failure.message
        assert command.endswith("::" + github.command_data(failure.message))  # a stub has no hint
    assert all(lines[f.line - 1].strip().startswith("raise NotImplementedError(") for f in found)
    assert "not annotated" not in graded.summary


def test_annotations_stop_at_githubs_limit_and_the_summary_counts_the_rest(graded):
    """90 different failures: 10 annotations (GitHub shows no more per step), and the summary says 80 more."""
    report = copy.deepcopy(graded.report)
    for i, test in enumerate(report["tests"]):
        test["message"] = f"failure number {i}"
    shown, more = github.annotations([report])
    assert len(shown) == github.MAX_ANNOTATIONS == 10 and more == 80
    assert shown[0].endswith("::failure number 0") and shown[-1].endswith("::failure number 9")
    summary = github.job_summary([report], graded.report["integrity"], "", more)
    assert "80 more failures (by message and line) are not annotated on your file" in summary


def test_workflow_commands_are_escaped_as_the_toolkit_escapes_them():
    """GitHub's toolkit: a message escapes %, CR and LF; a property also : and , (else `title=a,b` ends early)."""
    assert github.command_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert github.command_property("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext%3A a%2C b"
    report = {
        "lab": "ch06",
        "tests": [
            {"id": "test_a,b", "points": 0, "max_points": 1.5, "line": 7, "message": "x\ny: 100%", "hint": "h,1"},
            {"id": "test_c", "points": 0, "max_points": 1, "line": None, "message": "\x1b[31mred", "hint": ""},
            {"id": "test_ok", "points": 1, "max_points": 1, "line": 3, "message": "", "hint": ""},
        ],
    }
    assert github.annotations([report]) == (
        [
            "::error file=labs/ch06/starter.py,line=7,title=ch06%3A test_a%2Cb lost 1.5 points"
            "::x%0Ay: 100%25%0Ahint: h,1",
            "::error file=labs/ch06/starter.py,title=ch06%3A test_c lost 1 point::\\x1b[31mred",  # file-level
        ],
        0,
    )


def test_direction_marks_reach_neither_an_annotation_nor_the_summary(graded):
    """A security review: U+202E in a message a submission raised reached the `::error` annotation and the job
    summary as it was, where it reorders the line's text (`grader run` showed it as an escape)."""
    report = copy.deepcopy(graded.report)
    report["tests"][0] |= {"points": 0, "message": "score 0\u202e021/021", "hint": "see \u2066here"}
    shown, _ = github.annotations([report])
    summary = github.job_summary([report], graded.report["integrity"], "", 0)
    for text in (*shown, summary):
        assert not any(mark in text for mark in "\u202e\u2066"), text
    assert shown[0].endswith("::score 0\\u202e021/021%0Ahint: see \\u2066here")


def test_every_report_validates_and_records_integrity(graded):
    for path in graded.out.glob("*.json"):
        if not path.name.endswith(".classroom.json"):
            assert schema.validate_report(json.loads(path.read_text())) == [], path.name
    assert graded.report["integrity"] == {"advisory": True, "tampered": False, "findings": []}


def test_junit_xml_parses(graded):
    suite = ET.parse(graded.out / "ch06.junit.xml").getroot().find("testsuite")
    assert suite.get("name") == "ch06"
    assert int(suite.get("tests")) == len(graded.report["tests"]) == len(suite.findall("testcase"))
    assert int(suite.get("failures")) == graded.report["counts"]["failed"] > 0


def test_the_classroom_result_is_the_labs_own(graded):
    classroom = json.loads((graded.out / "ch06.classroom.json").read_text())
    assert classroom == exports.classroom_results(graded.report)
    assert classroom["version"] == 1 and classroom["status"] == "fail" and classroom["max_score"] == 120
    assert [t["name"] for t in classroom["tests"]] == [t["id"] for t in graded.report["tests"]]
    assert sum(t["score"] for t in classroom["tests"]) == 0
    lines = [t["line_no"] for t in classroom["tests"]]
    assert lines == [t["line"] or 0 for t in graded.report["tests"]] and all(lines)


def test_step_summary_and_outputs_are_appended(graded):
    summary, report = graded.summary, graded.report
    assert summary.startswith("earlier step\n# Autograding (advisory): ch06, 0/120 points\n")
    assert f"| ch06 | 0/120 | 0/{report['max_score']} | 0/{len(report['tests'])} |" in summary
    assert "advisory" in summary and "grade of record is the instructor's batch run" in summary
    assert "Graded: ch06, the lab the assignment names." in summary
    assert "Tampered" not in summary
    assert exports.job_summary_markdown(report) in summary
    assert "# Autograding" not in graded.result.stdout  # it went to the step summary instead
    classroom = base64.b64encode(json.dumps(exports.classroom_results(report), separators=(",", ":")).encode())
    assert graded.outputs == (
        "earlier=1\nlabs=ch06\nch06_score=0\nch06_max_score=120\n"
        'scores={"ch06":{"score":0,"max_score":120}}\n'
        f"score=0\nmax_score=120\nclassroom_result={classroom.decode()}\ntampered=false\n"
    )


def test_fail_on_points_exits_1_and_fail_on_tampered_does_not_when_clean(replay, tmp_path):
    clean = write_manifest(tmp_path / "manifest.json")
    assert run_ci("--lab", "ch06", "--out", tmp_path / "a", "--manifest", clean, "--fail-on", "points").exit_code == 1
    assert run_ci("--lab", "ch06", "--out", tmp_path / "b", "--manifest", clean, "--fail-on", "tampered").exit_code == 0


def test_a_tampered_checkout_is_reported_and_fails_only_when_asked(replay, tmp_path, monkeypatch):
    outputs = tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    tampered = write_manifest(tmp_path / "manifest.json", tamper=TAMPERED_FILE)
    result = run_ci("--lab", "ch06", "--out", tmp_path / "out", "--manifest", tampered)
    assert result.exit_code == 0, result.output
    assert f"integrity: changed: {TAMPERED_FILE}" in result.stdout
    assert f"::warning title=Integrity check (advisory)::files differ from the kit: changed: {TAMPERED_FILE}" in (
        result.stdout
    )
    report = json.loads((tmp_path / "out/ch06.json").read_text())
    assert report["integrity"] == {"advisory": True, "tampered": True, "findings": [f"changed: {TAMPERED_FILE}"]}
    assert schema.validate_report(report) == []
    # No step summary file: the summary, with its warning, is printed.
    assert "**Tampered.**" in result.stdout and f"> - `changed: {TAMPERED_FILE}`" in result.stdout
    assert outputs.read_text().endswith("tampered=true\n")
    again = run_ci("--lab", "ch06", "--out", tmp_path / "again", "--manifest", tampered, "--fail-on", "tampered")
    assert again.exit_code == 1


def test_every_lab_is_graded_on_its_starter_behind_the_wall_by_default(replay, tmp_path, monkeypatch):
    outputs = tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    result = run_ci("--out", tmp_path, "--manifest", write_manifest(tmp_path / "manifest.json"))
    assert result.exit_code == 0, result.output
    everything = labs.discover().values()
    assert replay == [(lab.id, Implementation("mine", lab.starter), "worker") for lab in everything]
    assert "Graded: every lab." in result.stdout
    per_lab = [json.loads((tmp_path / f"{lab.id}.json").read_text()) for lab in everything]
    assert [json.loads((tmp_path / f"{lab.id}.classroom.json").read_text())["max_score"] for lab in everything] == [
        whole_points(r["max_score"]) for r in per_lab
    ]
    assert [line for line in result.stdout.splitlines() if line.startswith("::notice")] == [
        f"::notice title={lab.id} (advisory)::0/120 points"
        for lab in everything  # ch06's report, replayed
    ]
    for lab in everything:
        escaped = lab.id.replace("_", "\\_")  # Markdown
        assert f"\n| {escaped} | 0/120 |" in result.stdout
    assert "total" not in result.stdout  # an assignment is one lab: labs are never summed
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    assert written["labs"] == " ".join(lab.id for lab in everything)
    assert json.loads(written["scores"]) == {lab.id: {"score": 0, "max_score": 120} for lab in everything}
    assert "score" not in written and "classroom_result" not in written  # no one lab to name


def test_the_assignments_lab_comes_from_the_workflows_variable(replay, tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_LAB", "lesson1_3")
    manifest_path = write_manifest(tmp_path / "manifest.json")
    result = run_ci("--changed", "--out", tmp_path / "a", "--manifest", manifest_path)
    assert result.exit_code == 0, result.output
    assert [call[0] for call in replay] == ["lesson1_3"]
    assert "Graded: lesson1_3, the lab the assignment names." in result.stdout
    monkeypatch.setenv("LABKIT_LAB", "ch99; curl evil")  # a value, never a command
    refused = run_ci("--out", tmp_path / "b", "--manifest", manifest_path)
    assert refused.exit_code == 2 and refused.stderr.startswith("grader: error: unknown lab 'ch99;'")
    monkeypatch.setenv("LABKIT_LAB", "")  # the variable unset: the workflow passes an empty string
    assert (
        "Graded: every lab (no lab's starter.py"
        in run_ci("--changed", "--out", tmp_path / "c", "--manifest", manifest_path).stdout
    )


@pytest.mark.parametrize(
    ("starters", "said"),
    [
        ({}, "Graded: every lab (the manifest records no pristine starter to tell the changed ones)."),
        ({"labs/ch06/starter.py": "0" * 64}, "Graded: ch06, the lab whose starter.py you changed."),
    ],
)
def test_changed_compares_each_starter_with_the_manifests(replay, tmp_path, starters, said):
    recorded = manifest.build_manifest(KIT_ROOT)
    recorded["starters"] = {**recorded["starters"], **starters} if starters else {}
    path = tmp_path / "manifest.json"
    path.write_text(manifest.render(recorded))
    result = run_ci("--changed", "--out", tmp_path / "out", "--manifest", path)
    assert result.exit_code == 0, result.output
    assert said in result.stdout
    expected = ["ch06"] if starters else [lab.id for lab in labs.discover().values()]
    assert [call[0] for call in replay] == expected


def test_a_starter_differs_unless_it_is_the_shipped_bytes_in_a_regular_file(tmp_path):
    """``same_starter`` reads no link and no oversized file: either is a changed starter."""
    (tmp_path / "labs/a").mkdir(parents=True)
    starter = tmp_path / "labs/a/starter.py"
    starter.write_text("x = 1\n")
    pristine = {"labs/a/starter.py": manifest.build_manifest(tmp_path)["starters"]["labs/a/starter.py"]}
    assert manifest.same_starter(tmp_path, "labs/a/starter.py", pristine)
    assert not manifest.same_starter(tmp_path, "labs/b/starter.py", pristine)  # none recorded, none there
    starter.write_text("x = 2\n")
    assert not manifest.same_starter(tmp_path, "labs/a/starter.py", pristine)
    (tmp_path / "elsewhere.py").write_text("x = 1\n")
    starter.unlink()
    starter.symlink_to(tmp_path / "elsewhere.py")
    assert not manifest.same_starter(tmp_path, "labs/a/starter.py", pristine)  # the same bytes, through a link
    starter.unlink()
    starter.write_bytes(b"x = 1\n" + b"#" * manifest.STARTER_BYTES)
    assert not manifest.same_starter(tmp_path, "labs/a/starter.py", pristine)


@pytest.mark.parametrize("content", [None, "not json", '{"schema": "something else", "files": {}}'])
def test_an_unusable_manifest_is_a_one_line_error(replay, tmp_path, monkeypatch, content):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    path = tmp_path / "manifest.json"
    if content is not None:
        path.write_text(content)
    result = run_ci("--lab", "ch06", "--out", tmp_path / "out", "--manifest", path)
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("grader: error: ")
    assert not replay and not (tmp_path / "out").exists()
    assert summary.read_text().startswith("# Autograding did not run")


def test_a_lab_that_cannot_be_collected_is_a_one_line_error(tmp_path, monkeypatch):
    def broken(lab, impl, *, isolation=None, timeout=None):
        raise runner.GradingError(f"the tests of lab {lab.id} could not be collected:\nE   ImportError: boom")

    monkeypatch.setattr(grade, "grade", broken)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_ci("--lab", "ch06", "--out", tmp_path / "out", "--manifest", write_manifest(tmp_path / "m.json"))
    assert result.exit_code == 2
    assert result.stderr == "grader: error: the tests of lab ch06 could not be collected\n"
    assert "ImportError: boom" in summary.read_text()  # the details, where the student looks


def test_an_unknown_lab_is_a_one_line_error(tmp_path):
    result = run_ci("--lab", "ch99", "--out", tmp_path)
    assert result.exit_code == 2 and result.stderr.startswith("grader: error: unknown lab 'ch99'")


def test_the_schema_takes_reports_with_and_without_integrity(graded):
    report = copy.deepcopy(graded.report)
    assert schema.validate_report(report) == []
    del report["integrity"]
    assert schema.validate_report(report) == []
    for wrong in (
        {"advisory": True, "tampered": True, "findings": []},  # tampered says there are findings
        {"advisory": True, "tampered": False, "findings": ["changed: Makefile"]},
        {"advisory": True, "tampered": False, "findings": [], "score_override": 100},  # closed
        {"tampered": False, "findings": []},
    ):
        assert schema.validate_report({**report, "integrity": wrong}) != [], wrong


def test_the_summary_escapes_odd_findings(graded):
    record = {"advisory": True, "tampered": True, "findings": ["added: odd `name`|x\n<b>/conftest.py"]}
    text = github.job_summary([graded.report], record)
    warning = [line for line in text.splitlines() if line.startswith("> - ")]
    assert warning == ["> - ``added: odd `name`\\|x <b>/conftest.py``"]


def test_make_grade_and_the_workflow_run_grader_ci():
    dry = subprocess.run(["make", "-n", "grade", "CH=06"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert dry.returncode == 0 and ".venv/bin/grader ci --lab ch06" in dry.stdout, dry.stdout + dry.stderr
    dry = subprocess.run(["make", "-n", "grade"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert dry.returncode == 0 and ".venv/bin/grader ci --changed" in dry.stdout, dry.stdout + dry.stderr
    workflow = (KIT_ROOT / ".github/workflows/grade.yml").read_text()
    for line in (
        "  push:",
        "  pull_request:",
        "  workflow_dispatch:",
        "  contents: read",
        "    timeout-minutes: 20",
        "          LABKIT_LAB: ${{ vars.LABKIT_LAB }}",
        "        run: make grade",
        "        if: always()",
        "          path: reports/ci/",
    ):
        assert f"\n{line}\n" in workflow, line


# -- a fork, simulated: the student edition with a bug, graded by its own grader ------------------
BUGGY_LINE = '        out = Value(self.data * other.data, (self, other), "*")'


@pytest.fixture(scope="module")
def fork(tmp_path_factory):
    """The student edition as a student's fork holds it, with lesson1_3 done but for one bug: ``__mul__``
    does not wrap a plain number (``x * 2.0`` reaches ``other.data`` on a float)."""
    root = tmp_path_factory.mktemp("fork") / "labkit"
    edition.export_student(KIT_ROOT, root)
    correct = next(p for p in instructor.submissions("lesson1_3") if p.name == "correct_plain.py").read_text()
    wrap = "    def __mul__(self, other):\n        other = Value._wrap(other)\n"
    assert correct.count(wrap) == 1 and BUGGY_LINE in correct
    buggy = correct.replace(wrap, "    def __mul__(self, other):\n")
    (root / "labs/lesson1_3/starter.py").write_text(buggy)
    return root, buggy.splitlines().index(BUGGY_LINE) + 1


def run_fork(root, tmp_path, **env):
    """``grader ci --changed`` (what `make grade` runs) in the fork, by the fork's own grader, with the files
    GitHub Actions gives a step; the environment is a runner's, not this test run's."""
    summary, outputs = tmp_path / "summary.md", tmp_path / "github_output"
    summary.touch()
    outputs.touch()
    noise = ("IMPL", "LABKIT_", "PYTEST_", "GITHUB_", "PYTHONPATH")
    environment = {k: v for k, v in os.environ.items() if not k.startswith(noise)}
    environment.update(PYTHONPATH=str(root), GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(outputs), **env)
    result = subprocess.run(
        [sys.executable, "-m", "grader", "ci", "--changed", "--out", str(tmp_path / "out")],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
    )
    written = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    return result, summary.read_text(), written


def test_a_forks_bug_is_annotated_on_its_file_and_line(fork, tmp_path):
    root, bug = fork
    result, summary, written = run_fork(root, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((tmp_path / "out/lesson1_3.json").read_text())
    assert report["implementation"]["name"] == "labs/lesson1_3/starter.py"
    assert report["isolation"]["mode"] == "worker" and report["integrity"]["tampered"] is False
    assert "Graded: lesson1_3, the lab whose starter.py you changed." in result.stdout  # ch06 is untouched
    assert not (tmp_path / "out/ch06.json").exists()
    shown = errors(result.stdout)
    assert 1 <= len(shown) <= 10
    for command in shown:
        assert command.startswith(f"::error file=labs/lesson1_3/starter.py,line={bug},title=lesson1_3%3A ")
    assert any("AttributeError: 'float' object has no attribute 'data'" in command for command in shown)
    lost = [t for t in report["tests"] if t["outcome"] != "passed"]
    assert lost and all(t["line"] == bug for t in lost)  # every failure of this bug, in both kinds of message
    score, max_score = whole_points(report["score"]), whole_points(report["max_score"])
    assert 0 < score < max_score == 100
    assert written["labs"] == "lesson1_3" and written["scores"] == json.dumps(
        {"lesson1_3": {"score": score, "max_score": max_score}}, separators=(",", ":")
    )
    assert (written["score"], written["max_score"], written["tampered"]) == (str(score), "100", "false")
    assert written["lesson1_3_score"] == str(score)
    classroom = json.loads(base64.b64decode(written["classroom_result"]))
    assert sum(t["score"] for t in classroom["tests"]) == score and classroom["max_score"] == 100
    assert {t["line_no"] for t in classroom["tests"] if t["status"] != "pass"} == {bug}
    assert summary.startswith(f"# Autograding (advisory): lesson1\\_3, {score}/100 points\n")
    assert result.stdout.splitlines()[-1] == f"::notice title=lesson1_3 (advisory)::{score}/100 points"


def test_a_fork_grades_the_assignments_lab_whatever_it_changed(fork, tmp_path):
    root, _ = fork
    result, summary, written = run_fork(root, tmp_path, LABKIT_LAB="ch06")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Graded: ch06, the lab the assignment names." in result.stdout
    assert written["labs"] == "ch06" and written["score"] == "0" and written["max_score"] == "100"
    assert all(command.startswith("::error file=labs/ch06/starter.py,line=") for command in errors(result.stdout))


def test_every_labs_points_add_up_to_whole_points():
    """Fork CI shows each lab out of its total as the lab defines it: rounding down a score is a choice
    (README, CI on your fork); rounding a total would change the lab, so every lab's is whole."""
    for lab in labs.discover().values():
        total = sum(test["points"] for test in runner.collect(lab))
        assert total > 0 and float(total).is_integer(), (lab.id, total)


# What a submission raised, shaped as the workflow commands GitHub's runner obeys in a job's log: a line that
# starts with `::` (after blanks), `##[` anywhere in one.
FORGED_COMMANDS = (
    "\n  ::notice title=Autograding complete::Points 120/120\n::stop-commands::labkitstop\n##[notice]Points 120/120"
    # and any Unicode blank before them, which the runner trims too (a second review's)
    "\n\u00a0::notice title=Autograding complete::Points 120/120\n\u3000::stop-commands::labkitstop"
)


def test_what_a_submission_raises_is_no_workflow_command_in_the_ci_log(tmp_path):
    """A security review: a correct solution whose gradcheck raised the text above scored 115 and, through the
    classroom reporter's log line for each errored test, posted a forged `Points 120/120` notice and stopped the
    runner from reading the reporter's real one. Graded for real, behind the wall: neither the terminal's lines
    nor the classroom result's messages hold a command, and each still reads as the submission wrote it."""
    hostile = tmp_path / "starter.py"
    hostile.write_text(
        mutation.reference_source("ch06")
        + f"\n\ndef gradcheck(*args, **kwargs):\n    raise RuntimeError({FORGED_COMMANDS!r})\n"
    )
    report_path = tmp_path / "report.json"
    run = subprocess.run(
        [sys.executable, "-m", "grader", "run", "--lab", "ch06", "--submission", hostile, "--json", report_path],
        capture_output=True,
        text=True,
        cwd=KIT_ROOT,
    )
    assert run.returncode == 1, run.stderr
    report = json.loads(report_path.read_text())
    raised = [t for t in report["tests"] if "labkitstop" in t["message"]]
    assert raised and report["score"] < report["max_score"]
    messages = [t["message"] for t in exports.classroom_results(report)["tests"] if "labkitstop" in t["message"]]
    assert len(messages) == len(raised)
    for text in (run.stdout, run.stderr, *messages):
        lines = text.splitlines()
        assert not [line for line in lines if line.lstrip().startswith("::") or "##[" in line], text
    assert "notice title=Autograding complete" in run.stdout and "Points 120/120" in messages[0]

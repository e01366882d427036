"""`grader ci`: autograding on a student's fork.

One real run grades the pristine ch06 starter behind the wall (a few seconds, once per
module); the other tests replay its report through a stand-in for grade.grade, since what
they check (exit statuses, integrity, combining labs, where the summary goes) does not
depend on grading again. The kit's files are never modified: the integrity check runs
against a manifest in tmp_path, built from the kit as it is now (so other edits to the
working tree do not count as tampering) and, for a tampered checkout, with one hash changed.
"""

import copy
import json
import subprocess
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from grader import labs
from grader.cli import main
from grader.grading import grade, runner
from grader.implementation import Implementation
from grader.kit import manifest
from grader.labs import KIT_ROOT
from grader.platforms import github
from grader.report import exports, schema

ENV = ("GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT")
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
        "ch06.json",
        "ch06.junit.xml",
        "classroom.json",
        "summary.md",
    ]
    assert "integrity: every protected file is as shipped" in result.stdout
    assert "::warning" not in result.stdout
    assert "ch06: 0/100 points (0/76 tests passed)" in result.stderr


def test_the_starter_scores_zero_behind_the_wall(graded):
    report = graded.report
    assert report["score"] == 0 and report["max_score"] == sum(t["max_points"] for t in report["tests"]) > 0
    assert report["isolation"]["mode"] == "worker"
    assert report["implementation"]["name"] == "labs/ch06/starter.py" and report["impl"] == "mine"
    assert graded.result.stdout.splitlines()[-1] == (
        f"::notice title=Autograding complete::Points 0/{report['max_score']}"
    )


def test_every_report_validates_and_records_integrity(graded):
    for path in graded.out.glob("*.json"):
        if path.name != "classroom.json":
            assert schema.validate_report(json.loads(path.read_text())) == [], path.name
    assert graded.report["integrity"] == {"advisory": True, "tampered": False, "findings": []}


def test_junit_xml_parses(graded):
    suite = ET.parse(graded.out / "ch06.junit.xml").getroot().find("testsuite")
    assert suite.get("name") == "ch06"
    assert int(suite.get("tests")) == len(graded.report["tests"]) == len(suite.findall("testcase"))
    assert int(suite.get("failures")) == graded.report["counts"]["failed"] > 0


def test_classroom_json_lists_the_labs_tests_under_their_lab(graded):
    classroom = json.loads((graded.out / "classroom.json").read_text())
    one = exports.classroom_results(graded.report)
    assert classroom["version"] == 1 and classroom["status"] == "fail"
    assert classroom["max_score"] == graded.report["max_score"]
    assert [t["name"] for t in classroom["tests"]] == [f"ch06::{t['name']}" for t in one["tests"]]
    assert sum(t["score"] for t in classroom["tests"]) == 0


def test_step_summary_and_outputs_are_appended(graded):
    summary, report = graded.summary, graded.report
    assert summary.startswith("earlier step\n# Autograding (advisory): 0/100 points\n")
    assert f"| ch06 | 0 | {report['max_score']} | 0/{len(report['tests'])} |" in summary
    assert "advisory" in summary and "grade of record is the instructor's batch run" in summary
    assert "Tampered" not in summary
    assert exports.job_summary_markdown(report) in summary
    assert "# Autograding" not in graded.result.stdout  # it went to the step summary instead
    assert graded.outputs == f"earlier=1\nscore=0\nmax_score={report['max_score']}\ntampered=false\n"


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


def test_every_lab_is_graded_on_its_starter_behind_the_wall_by_default(replay, tmp_path):
    result = run_ci("--out", tmp_path, "--manifest", write_manifest(tmp_path / "manifest.json"))
    assert result.exit_code == 0, result.output
    everything = labs.discover().values()
    assert replay == [(lab.id, Implementation("mine", lab.starter), "worker") for lab in everything]
    classroom = json.loads((tmp_path / "classroom.json").read_text())
    per_lab = [json.loads((tmp_path / f"{lab.id}.json").read_text()) for lab in everything]
    assert classroom["max_score"] == sum(r["max_score"] for r in per_lab)
    assert [t["name"] for t in classroom["tests"]] == [f"{r['lab']}::{t['id']}" for r in per_lab for t in r["tests"]]
    assert result.stdout.splitlines()[-1].endswith(f"Points 0/{classroom['max_score']}")
    for lab in everything:
        escaped = lab.id.replace("_", "\\_")  # Markdown
        assert f"\n| {escaped} | 0 |" in result.stdout
    assert "| **total** | 0 |" in result.stdout


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
    workflow = (KIT_ROOT / ".github/workflows/grade.yml").read_text()
    for line in (
        "  push:",
        "  pull_request:",
        "  workflow_dispatch:",
        "  contents: read",
        "    timeout-minutes: 20",
        "      - run: make grade",
        "        if: always()",
        "          path: reports/ci/",
    ):
        assert f"\n{line}\n" in workflow, line

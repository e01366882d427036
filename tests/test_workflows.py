"""The GitHub Actions workflows the kit ships, read by two linters and by their own rules.

Every workflow (.github/workflows/*.yml, examples/*.yml) must pass zizmor's offline audits
(the pedantic persona: pinned actions, no credentials left in the checkout, no template
expanded into a script, ...) and the workflow JSON Schema (check-jsonschema's vendored copy of
SchemaStore's), both from the developers' extras. A deliberately bad workflow proves that
each check can fail. Then what neither linter knows: every job has a timeout, every artifact
a retention, every action's pin its version as a comment, and the workflows read the outputs
`grader ci` writes under the names it writes them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.labs import KIT_ROOT
from grader.platforms import github

WORKFLOWS = sorted([*KIT_ROOT.glob(".github/workflows/*.yml"), *KIT_ROOT.glob("examples/*.yml")])
BIN = Path(sys.executable).parent
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s+[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+(?:\.\d+)*$")

BAD_WORKFLOW = """\
name: bad
on:
  workflow_dispatch:
    inputs:
      x:
        description: anything
permissions:
  contents: read
jobs:
  bad:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: echo ${{ inputs.x }}
"""


def tool(name: str) -> list[str]:
    path = BIN / name
    assert path.exists(), f"{name} is not installed in {BIN}: it comes with the developers' extras (make dev)"
    return [str(path)]


def zizmor(*paths: Path) -> subprocess.CompletedProcess:
    # --offline: no network, no GitHub token; the pedantic persona adds what the regular one leaves
    # out, such as a job's result expanded into a script.
    command = [*tool("zizmor"), "--offline", "--persona", "pedantic", "--no-progress", *map(str, paths)]
    return subprocess.run(command, capture_output=True, text=True, cwd=KIT_ROOT)


def schema_check(*paths: Path) -> subprocess.CompletedProcess:
    command = [*tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, paths)]
    return subprocess.run(command, capture_output=True, text=True, cwd=KIT_ROOT)


def load(path: Path) -> dict:
    # YAML 1.1 reads the key `on` as True; the workflows' triggers are not what these tests check.
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_the_kit_ships_the_workflows_these_tests_read():
    names = {path.relative_to(KIT_ROOT).as_posix() for path in WORKFLOWS}
    assert {".github/workflows/grade.yml", "examples/batch-matrix.yml", "examples/classroom-autograding.yml"} <= names


def test_zizmor_finds_nothing_in_the_shipped_workflows():
    result = zizmor(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout + result.stderr


def test_every_shipped_workflow_follows_the_workflow_schema():
    result = schema_check(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_bad_workflow_is_reported_by_zizmor(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text(BAD_WORKFLOW)
    result = zizmor(bad)
    said = result.stdout + result.stderr
    assert result.returncode != 0, said
    assert "unpinned-uses" in said and "template-injection" in said and "artipacked" in said, said


def test_a_workflow_outside_the_schema_is_reported(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text(BAD_WORKFLOW.replace("runs-on: ubuntu-latest", "runs-on: ubuntu-latest\n    timeout-minute: 5"))
    result = schema_check(bad)
    assert result.returncode != 0 and "bad.yml" in result.stdout, result.stdout + result.stderr
    assert schema_check(tmp_path.joinpath("good.yml")).returncode != 0  # a missing file is not a pass


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_has_a_timeout_and_every_artifact_a_retention(path):
    for name, job in load(path)["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int), f"{path.name}: job {name} has no timeout-minutes"
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("actions/upload-artifact@"):
                assert step["with"].get("retention-days"), f"{path.name}: job {name} keeps an artifact forever"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_commit_with_its_version_beside_it(path):
    uses = [line for line in path.read_text(encoding="utf-8").splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    assert uses
    for line in uses:
        assert PINNED.match(line), f"{path.name}: {line.strip()} (pin a full commit hash, then '# vX.Y.Z')"


def test_one_action_is_pinned_to_one_commit_everywhere():
    pins = {}
    for path in WORKFLOWS:
        for action, sha in re.findall(r"uses:\s+([\w./-]+)@([0-9a-f]{40})", path.read_text(encoding="utf-8")):
            pins.setdefault(action, set()).add(sha)
    assert pins and all(len(shas) == 1 for shas in pins.values()), pins


def outputs_written(one_lab: bool) -> set[str]:
    """The output names `grader ci` writes to $GITHUB_OUTPUT, for one lab or two."""
    reports = [
        {"lab": lab, "score": 1.5, "max_score": 2, "tests": [], "implementation": {"kind": "mine", "name": "x"}}
        for lab in (["ch06"] if one_lab else ["ch06", "lesson1_3"])
    ]
    text = github.step_outputs(reports, {"tampered": False})
    return {line.split("=", 1)[0] for line in text.splitlines()}


def test_the_fork_workflow_maps_the_outputs_grader_ci_writes():
    job = load(KIT_ROOT / ".github/workflows/grade.yml")["jobs"]["grade"]
    step = next(step for step in job["steps"] if step.get("id") == "grade")
    assert step["run"] == "make grade" and step["env"] == {"LABKIT_LAB": "${{ vars.LABKIT_LAB }}"}
    mapped = {name: value for name, value in job["outputs"].items()}
    assert mapped == {name: f"${{{{ steps.grade.outputs.{name} }}}}" for name in mapped}
    assert set(mapped) <= outputs_written(one_lab=True)
    assert {"labs", "scores", "tampered"} <= set(mapped) & outputs_written(one_lab=False)


def test_the_classroom_example_follows_the_reporters_naming_rules():
    """Classroom reads a workflow named `Autograding Tests` with one job `run-autograding-tests`;
    the reporter reads `<RUNNER>_RESULTS` for each runner it is given (src/main.js upper-cases the id)."""
    workflow = load(KIT_ROOT / "examples/classroom-autograding.yml")
    assert workflow["name"] == "Autograding Tests" and list(workflow["jobs"]) == ["run-autograding-tests"]
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    reporter = next(
        s for s in steps if s.get("uses", "").startswith("classroom-resources/autograding-grading-reporter@")
    )
    runners = reporter["with"]["runners"].split(",")
    assert all(re.fullmatch(r"[a-zA-Z0-9]+", runner) for runner in runners)  # the reporter's own rule
    assert reporter["env"] == {
        f"{runner.upper()}_RESULTS": f"${{{{ steps.{runner}.outputs.classroom_result }}}}" for runner in runners
    }
    ids = {step.get("id") for step in steps}
    assert set(runners) <= ids and "classroom_result" in outputs_written(one_lab=True)

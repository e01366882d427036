"""Run a lab's tests in a pytest child process and turn what it reports into per-test results.

pytest runs in its own process so that nothing the code under test does in-process
(crash, exit, hang) can take the grader down: the grader reads pytest-json-report's
file, and the plugin's progress stream tells it which test was running if the child
died before writing that file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from .labs import KIT_ROOT, Lab
from .pytest_plugin import PROGRESS_ENV
from .seam import IMPL_ENV, Implementation

OUTCOMES = ("passed", "failed", "error", "timeout", "crashed", "not_run")
DEFAULT_RUN_SECONDS = 600


class GradingError(Exception):
    """The kit itself could not grade (not the submission's fault): exit status 2."""


@dataclass
class TestResult:
    id: str
    task: str
    outcome: str
    points: float
    max_points: float
    duration_s: float
    message: str
    hint: str

    def as_dict(self) -> dict:
        return asdict(self)


def _pytest_command(lab: Lab, json_path: Path, extra: list[str]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        str(lab.tests),
        # The kit's own configuration only: a conftest.py or pytest.ini left in a lab
        # folder must not change how the lab is graded.
        "-c",
        str(KIT_ROOT / "pyproject.toml"),
        "--rootdir",
        str(KIT_ROOT),
        "--noconftest",
        "-p",
        "no:cacheprovider",
        "-q",
        "--tb=no",  # the grader renders its own messages; formatting tracebacks costs time
        "--json-report",
        f"--json-report-file={json_path}",
        "--json-report-omit=collectors,log,traceback,streams,warnings,keywords",
        *extra,
    ]


def _child_env(impl: Implementation, progress: Path, extra_env: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env[IMPL_ENV] = impl.env_value
    env[PROGRESS_ENV] = str(progress)
    env.setdefault("PYTHONHASHSEED", "0")
    env.update(extra_env)
    return env


def _read_progress(path: Path) -> tuple[list[dict] | None, list[str]]:
    """The collected tests (None if collection never finished) and the ids that started, in order."""
    collected, started = None, []
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut short by a dying process
            if event.get("event") == "collected":
                collected = event["tests"]
            elif event.get("event") == "start":
                started.append(event["id"])
    return collected, started


def _stage_duration(entry: dict) -> float:
    return round(sum(entry.get(stage, {}).get("duration", 0.0) for stage in ("setup", "call", "teardown")), 6)


def _result_from_entry(test: dict, entry: dict) -> TestResult:
    meta = (entry.get("metadata") or {}).get("labkit") or {}
    verdict = meta.get("verdict")
    if verdict:
        outcome, message, hint = verdict["outcome"], verdict["message"], verdict["hint"]
    elif entry.get("outcome") == "passed":
        outcome, message, hint = "passed", "", ""
    elif entry.get("outcome") == "skipped":
        outcome, message, hint = "not_run", "skipped", ""
    else:
        crash = next((entry[s]["crash"] for s in ("setup", "call", "teardown") if "crash" in entry.get(s, {})), {})
        outcome, message, hint = "failed", crash.get("message", "failed"), ""
    points = test["points"] if outcome == "passed" else 0
    return TestResult(test["id"], test["task"], outcome, points, test["points"], _stage_duration(entry), message, hint)


def _results(collected: list[dict], entries: dict[str, dict], started: list[str], died: str) -> list[TestResult]:
    """One result per collected test: the score counts only the trusted list of tests."""
    running = started[-1] if started and started[-1] not in entries else None
    results = []
    for test in collected:
        entry = entries.get(test["id"])
        if entry is not None:
            results.append(_result_from_entry(test, entry))
        elif test["id"] == running:
            results.append(TestResult(test["id"], test["task"], "crashed", 0, test["points"], 0.0, died, ""))
        else:
            reason = f"not run: the test process stopped during {running}" if running else "not run"
            results.append(TestResult(test["id"], test["task"], "not_run", 0, test["points"], 0.0, reason, ""))
    return results


def run_tests(
    lab: Lab,
    impl: Implementation,
    *,
    extra_env: dict[str, str] | None = None,
    timeout: float = DEFAULT_RUN_SECONDS,
) -> list[TestResult]:
    """Run every test of ``lab`` against ``impl`` and return one result per test."""
    with tempfile.TemporaryDirectory(prefix="labkit-run-") as tmp:
        json_path, progress = Path(tmp) / "pytest.json", Path(tmp) / "progress.jsonl"
        cmd = _pytest_command(lab, json_path, [])
        env = _child_env(impl, progress, extra_env or {})
        died = ""
        try:
            proc = subprocess.run(cmd, cwd=KIT_ROOT, env=env, capture_output=True, text=True, timeout=timeout)
            if proc.returncode not in (0, 1):
                died = f"the test process died (exit status {proc.returncode}) while this test was running"
        except subprocess.TimeoutExpired:
            proc = None
            died = f"timeout: the lab's tests did not finish within {timeout:.0f} s; this test was running"
        collected, started = _read_progress(progress)
        if collected is None:
            output = (proc.stdout + proc.stderr).strip() if proc else ""
            raise GradingError(f"the tests of lab {lab.id} could not be collected:\n{output[-3000:]}")
        entries = {}
        if json_path.exists():
            try:
                report = json.loads(json_path.read_text(encoding="utf-8"))
                entries = {t["nodeid"].split("::", 1)[-1]: t for t in report.get("tests", [])}
            except (json.JSONDecodeError, KeyError, TypeError):
                died = died or "the test process wrote an unreadable report"
        return _results(collected, entries, started, died or "the test process stopped during this test")


def collect(lab: Lab) -> list[dict]:
    """The lab's tests with their tasks and points, without running them."""
    with tempfile.TemporaryDirectory(prefix="labkit-collect-") as tmp:
        progress = Path(tmp) / "progress.jsonl"
        cmd = _pytest_command(lab, Path(tmp) / "pytest.json", ["--collect-only"])
        env = _child_env(Implementation("ref", None), progress, {})
        proc = subprocess.run(cmd, cwd=KIT_ROOT, env=env, capture_output=True, text=True, timeout=120)
        collected, _ = _read_progress(progress)
        if collected is None:
            raise GradingError(f"the tests of lab {lab.id} could not be collected:\n{(proc.stdout + proc.stderr)[-3000:]}")
        return collected

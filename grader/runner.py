"""Run a lab's tests in a pytest child process and turn what it reports into per-test results.

pytest runs in its own process so that nothing the code under test does in-process
(crash, exit, hang) can take the grader down: the grader reads pytest-json-report's
file, and the plugin's progress stream tells it which test was running if the child
died before writing that file.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .labs import KIT_ROOT, Lab
from .progress import PROGRESS_ENV, read_progress
from .seam import IMPL_ENV, Implementation

OUTCOMES = ("passed", "failed", "error", "timeout", "crashed", "not_run")
DEFAULT_RUN_SECONDS = 300
DEFAULT_TEST_SECONDS = 10
HANG_GRACE_SECONDS = 5  # beyond a test's limit, before the watchdog kills what pytest-timeout could not stop
MAX_RESTARTS = 10


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
        "no:xdist",  # installed for the kit's own tests; a lab run has no use for it
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


def _stage_duration(entry: dict) -> float:
    return round(sum(entry.get(stage, {}).get("duration", 0.0) for stage in ("setup", "call", "teardown")), 6)


def _result_from_event(test: dict, event: dict) -> TestResult:
    points = test["points"] if event["outcome"] == "passed" else 0
    return TestResult(
        test["id"],
        test["task"],
        event["outcome"],
        points,
        test["points"],
        event["duration_s"],
        event["message"],
        event["hint"],
    )


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


@dataclass
class _Attempt:
    """One pytest process: what it collected and finished, and the test it died in, if any."""

    collected: list[dict] | None
    finished: dict[str, TestResult]  # test id -> result, for every test that finished
    stopped_in: str | None  # id of the test running when the process died or was killed
    outcome: str  # for stopped_in: "crashed" or "timeout"
    reason: str
    output: str


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _run_once(lab: Lab, impl: Implementation, env_extra: dict, deselect: list[str], budget: float) -> _Attempt:
    """Run pytest once, killing it if one test outlives its limit (a hang pytest-timeout cannot interrupt)."""
    test_seconds = float(lab.limits.get("test_seconds", DEFAULT_TEST_SECONDS))
    with tempfile.TemporaryDirectory(prefix="labkit-run-") as tmp:
        json_path, progress, output = Path(tmp) / "pytest.json", Path(tmp) / "progress.jsonl", Path(tmp) / "out"
        extra = [f"--timeout={test_seconds:g}", "--timeout-method=signal"]
        extra += [arg for nodeid in deselect for arg in ("--deselect", nodeid)]
        with output.open("w") as out:
            proc = subprocess.Popen(
                _pytest_command(lab, json_path, extra),
                cwd=KIT_ROOT,
                env=_child_env(impl, progress, env_extra),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, killed as a whole
            )
            killed, started_at, last_started = "", time.monotonic(), (None, time.monotonic())
            while proc.poll() is None:
                time.sleep(0.05)
                started = read_progress(progress).started
                now = time.monotonic()
                if started and started[-1] != last_started[0]:
                    last_started = (started[-1], now)
                if last_started[0] and now - last_started[1] > test_seconds + HANG_GRACE_SECONDS:
                    killed = f"timeout: the test ran longer than its limit of {test_seconds:g} s and was stopped"
                elif now - started_at > budget:
                    killed = f"timeout: the lab's tests did not finish within {budget:.0f} s"
                if killed:
                    _kill_group(proc)
                    break
        progress_now = read_progress(progress)
        points = {t["id"]: t for t in progress_now.collected or []}
        text = output.read_text(errors="replace")
        if json_path.exists() and not killed and proc.returncode in (0, 1):
            report = json.loads(json_path.read_text(encoding="utf-8"))
            entries = {t["nodeid"].split("::", 1)[-1]: t for t in report.get("tests", [])}
            finished = {i: _result_from_entry(points[i], e) for i, e in entries.items() if i in points}
            return _Attempt(progress_now.collected, finished, None, "", "", text)
        # The process died or was killed: keep what the plugin streamed before it stopped.
        finished = {i: _result_from_event(points[i], e) for i, e in progress_now.results.items() if i in points}
        running = next((i for i in reversed(progress_now.started) if i not in finished), None)
        if killed:
            return _Attempt(progress_now.collected, finished, running, "timeout", killed, text)
        status = proc.returncode
        why = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        reason = f"crashed: the test process died ({why}) while this test was running"
        return _Attempt(progress_now.collected, finished, running, "crashed", reason, text)


def run_tests(
    lab: Lab,
    impl: Implementation,
    *,
    extra_env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> list[TestResult]:
    """Run every test of ``lab`` against ``impl`` and return one result per collected test.

    If the test process dies or hangs in a test, that test gets its verdict (crashed or
    timeout) and the others run again in a fresh process without it, so one bad test
    costs its own points only.
    """
    timeout = timeout or float(lab.limits.get("run_seconds", DEFAULT_RUN_SECONDS))
    deadline = time.monotonic() + timeout
    done: dict[str, TestResult] = {}
    collected: list[dict] | None = None
    for _ in range(MAX_RESTARTS + 1):
        nodeids = {t["id"]: t["nodeid"] for t in collected or []}
        budget = deadline - time.monotonic()
        if budget <= 0:
            break
        attempt = _run_once(lab, impl, extra_env or {}, [nodeids[i] for i in done], budget)
        if collected is None:
            if attempt.collected is None:
                raise GradingError(f"the tests of lab {lab.id} could not be collected:\n{attempt.output[-3000:]}")
            collected = attempt.collected
        done.update(attempt.finished)
        if attempt.stopped_in is None:
            break
        test = next(t for t in collected if t["id"] == attempt.stopped_in)
        done[test["id"]] = TestResult(
            test["id"], test["task"], attempt.outcome, 0, test["points"], 0.0, attempt.reason, ""
        )
    results = []
    for test in collected:
        if test["id"] in done:
            results.append(done[test["id"]])
        else:
            reason = f"not run: the lab's tests used up their time limit of {timeout:g} s"
            results.append(TestResult(test["id"], test["task"], "not_run", 0, test["points"], 0.0, reason, ""))
    return results


def collect(lab: Lab) -> list[dict]:
    """The lab's tests with their tasks and points, without running them."""
    with tempfile.TemporaryDirectory(prefix="labkit-collect-") as tmp:
        progress = Path(tmp) / "progress.jsonl"
        cmd = _pytest_command(lab, Path(tmp) / "pytest.json", ["--collect-only"])
        env = _child_env(Implementation("ref", None), progress, {})
        proc = subprocess.run(cmd, cwd=KIT_ROOT, env=env, capture_output=True, text=True, timeout=120)
        collected = read_progress(progress).collected
        if collected is None:
            raise GradingError(
                f"the tests of lab {lab.id} could not be collected:\n{(proc.stdout + proc.stderr)[-3000:]}"
            )
        return collected

"""Run a lab's tests in a pytest child process and turn what it reports into per-test results.

pytest runs in its own process so that nothing the code under test does in-process
(crash, exit, hang) can take the grader down. Everything the grader learns of a run comes
from the plugin's progress stream (grader.progress): the tests, each one's verdict, and
whether the session ended normally; if it did not, the stream says which test was
running. grader.grading.pytest_process starts these processes (`grader run`'s before the
grader has read its command line).

Behind the wall the pytest process is trusted, so one pytest session can grade a whole
queue of submissions in turn (``run_queue``, handed over one at a time: grader.grading.feed):
pytest and the tests load once, and the sandbox stays up from one submission to the next. The lab's run_seconds is
each submission's own, in a queue as alone: a submission that spends it gets what a solo
run would give at its deadline, and the queue goes on without it.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path

from grader import exits, limits, verdicts
from grader.env import (
    CPU_ENV,
    IMPL_ENV,
    ISOLATION_ENV,
    LAB_ENV,
    LIMITS_ENV,
    PARENT_ENV,
    PROGRESS_ENV,
    QUEUE_ENV,
    SANDBOX_LEVEL_ENV,
    TASK_ENV,
    TIMED_OUT_ENV,
)
from grader.grading import pytest_process, scratch
from grader.grading.feed import Feed, Given
from grader.implementation import Implementation
from grader.labs import KIT_ROOT, Lab
from grader.progress import Part, ProgressReader

HANG_GRACE_SECONDS = 5  # beyond a test's limit, before the watchdog kills what pytest-timeout could not stop
MAX_RESTARTS = 10
POLL_SECONDS = 0.05  # how often a running pytest's progress stream is read


class GradingError(Exception):
    """The kit itself could not grade (not the submission's fault): exit status 2."""


# The pytest processes running now (each in its own process group), so that an
# interrupted batch can stop them all: Ctrl-C does not reach a new session.
_live: set[subprocess.Popen] = set()
_live_lock = threading.Lock()


def stop_all() -> None:
    """Kill every pytest process this grader started and that is still running, with its group."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


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
    line: int | None = None  # as the test process said: grader.report checks it against the file
    tier: str = "visible"  # labs.TIERS: hidden for a test of the lab's [hidden] tests
    about_the_file: bool = False  # the verdict is the file's as a whole (grader.verdicts.verdict)

    def as_dict(self) -> dict:
        return asdict(self)


def _pytest_args(lab: Lab, extra: list[str]) -> list[str]:
    return [
        *map(str, lab.test_files),
        # The kit's own configuration only: a conftest.py or pytest.ini left in a lab
        # folder must not change how the lab is graded.
        "-c",
        str(KIT_ROOT / "pyproject.toml"),
        "--rootdir",
        str(KIT_ROOT),
        "--noconftest",
        # Only the plugins grading uses (the environment turns off loading every installed
        # one, xdist and the rest, which cost start-up time): the kit's own and pytest-timeout.
        "-p",
        "grader.harness.plugin",
        "-p",
        "pytest_timeout",
        "-p",
        "no:cacheprovider",
        # Not pytest's collector of exceptions nobody could catch (in __del__, say): it runs gc.collect()
        # twice as the session ends, 0.13 s for a session that graded ten students, to turn them into
        # warnings the grader never reads (and behind the wall they happen in the worker anyway).
        "-p",
        "no:unraisableexception",
        # Nor the plugins that wrap every test in a capture of its log records and its warnings, which
        # the grader never reads (README "Performance"). The capture of its output stays: in-process it
        # is what keeps a submission that closes file descriptor 1 from closing pytest's own output.
        "-p",
        "no:logging",
        "-p",
        "no:warnings",
        "-q",
        "--tb=no",  # the grader renders its own messages; formatting tracebacks costs time
        *extra,
    ]


def _child_env(lab: Lab, impl: Implementation, progress: Path, isolation: str) -> dict[str, str]:
    env = pytest_process.base_env()
    env[LIMITS_ENV] = json.dumps(lab.limits)  # the limits this run was given, overrides included
    env[IMPL_ENV] = impl.env_value
    env[LAB_ENV] = lab.id
    env[PROGRESS_ENV] = str(progress)
    env[PARENT_ENV] = str(os.getpid())
    env[ISOLATION_ENV] = isolation
    if isolation == "worker":
        env[SANDBOX_LEVEL_ENV] = require_sandbox(isolation)  # decided once: the run's process does not probe
    return env


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
        event.get("line"),
        test["tier"],
        event.get("about_the_file") is True,
    )


def _test_seconds(lab: Lab, isolation: str) -> float:
    """How long one test may run before pytest-timeout (in-process) or the watchdog (both) stops it (in-process,
    the plugin's stream gives a test its shorter limit after a timeout: grader.harness.plugin).

    Behind the wall the worker enforces the lab's limits itself; these are only a
    backstop for the trusted side, so they leave room for an import and a fresh worker.
    """
    wall = limits.Limits.from_lab(lab.limits)
    if isolation == "worker":
        return 2 * wall.test_seconds + wall.import_seconds + 10
    return wall.test_seconds


@dataclass
class _Stopped:
    """A pytest process that ended before its tests did: the test it was in, and why."""

    test: str | None
    outcome: str  # "crashed" or "timeout"
    reason: str
    out_of_time: str | None = None  # who spent their run_seconds: a queue's key; "" alone (or a queue's start-up)


@dataclass
class _Pytest:
    """One pytest process and what it streamed."""

    progress: ProgressReader
    stopped: _Stopped | None
    output: str


def _run_pytest(
    lab: Lab,
    impl: Implementation,
    isolation: str,
    env: dict,
    extra: list[str],
    tmp: Path,
    *,
    budget: float,
    run_seconds: float,
    on_poll: Callable[[ProgressReader], None] | None = None,
    feed: Feed | None = None,
) -> _Pytest:
    """Run pytest once, killing it if one test outlives its limit (a hang pytest-timeout cannot interrupt)
    or a submission its ``budget`` (``run_seconds``, or what is left of it). A queue session reads its
    submissions from ``feed``, which follows the stream."""
    test_seconds = _test_seconds(lab, isolation)

    def limit_now(part: Part, running: str) -> tuple[float, bool]:
        """The running test's limit, and whether it is the shorter one after a timeout: in-process the plugin
        says it when the test starts (behind the wall the watchdog's is a backstop, the same for every test)."""
        seconds = part.limits.get(running) if isolation != "worker" else None
        return (seconds, True) if seconds is not None and seconds < test_seconds else (test_seconds, False)

    progress = ProgressReader(tmp / "progress.jsonl")
    extra = [f"--timeout={test_seconds:g}", "--timeout-method=signal", *extra]
    output = tmp / "pytest.out"
    child_env = {**_child_env(lab, impl, progress.path, isolation), **env}
    proc = pytest_process.start(_pytest_args(lab, extra), child_env, output, keep_open=feed is not None)
    with _live_lock:
        _live.add(proc)
    try:
        if feed is not None:
            feed.attach(proc.stdin)
            on_poll = _feeding(feed, on_poll)
        killed = _watch(proc, progress, limit_now, budget, run_seconds, on_poll)
    except BaseException:  # Ctrl-C, or the caller's callback failed: leave nothing running
        _kill_group(proc)
        raise
    finally:
        with _live_lock:
            _live.discard(proc)
        if feed is not None:
            feed.close()
    progress.poll()
    if on_poll is not None:
        on_poll(progress)
    text = output.read_text(errors="replace") if output.exists() else ""  # absent if it died before its orders
    if killed is not None:
        reason, spent = killed
        # The test it was in; none if the submission that spent its budget finished as it was stopped.
        running = progress.running if spent in (None, progress.current or "") else None
        return _Pytest(progress, _Stopped(running, "timeout", reason, spent), text)
    if proc.returncode not in (0, 1) or not progress.finished:  # died, or the code under test exited it
        reason = verdicts.test_process_died(proc.returncode)
        return _Pytest(progress, _Stopped(progress.running, "crashed", reason), text)
    return _Pytest(progress, None, text)


def _feeding(feed: Feed, on_poll: Callable[[ProgressReader], None] | None) -> Callable[[ProgressReader], None]:
    def poll(progress: ProgressReader) -> None:
        feed.poll(progress)
        if on_poll is not None:
            on_poll(progress)

    return poll


def _watch(
    proc: subprocess.Popen,
    progress: ProgressReader,
    limit_now: Callable[[Part, str], tuple[float, bool]],
    budget: float,
    run_seconds: float,
    on_poll: Callable[[ProgressReader], None] | None,
) -> tuple[str, str | None] | None:
    """Follow the stream until pytest exits; kill it on a hung test (``limit_now``: the running test's
    limit, given its submission's part of the stream and its id, and whether it is the shorter one after a timeout)
    or a spent budget, and say why: (the reason, and for a spent budget the submission that spent it: ""
    for a lone one).

    The budget runs from when the session turned to the submission it is on: for a lone
    submission, from the start; in a queue, from its ``submission`` event, so that each
    one has its own (the session's start-up before the first has one of its own too).
    """
    now = time.monotonic()
    last, turned = (None, now), (None, now)  # (the test running, since when); (the submission, since when)
    while True:
        if exits.wait(proc, POLL_SECONDS) is not None:  # woken by pytest's exit, not by the end of a sleep
            return None
        progress.poll()
        if on_poll is not None:
            on_poll(progress)
        now = time.monotonic()
        running = progress.running
        if running != last[0]:
            last = (running, now)
        if progress.current != turned[0]:
            turned = (progress.current, now)
        killed = None
        test_seconds, shorter = limit_now(progress.part, running) if running else (0.0, False)
        if running and now - last[1] > test_seconds + HANG_GRACE_SECONDS:
            message = verdicts.test_timeout_message(test_seconds)
            killed = (verdicts.after_an_earlier_timeout(message) if shorter else message, None)
        elif now - turned[1] > budget:
            killed = (verdicts.tests_out_of_time(run_seconds), turned[0] or "")
        if killed is not None:
            _kill_group(proc)
            return killed


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _finished(collected: list[dict], part: Part) -> dict[str, TestResult]:
    points = {t["id"]: t for t in collected}
    return {i: _result_from_event(points[i], e) for i, e in part.results.items() if i in points}


@dataclass
class Progress:
    """What a run knows so far, for a display that follows it (``run_tests``'s ``on_progress``)."""

    tests: list[dict]  # the tests this run grades, in order: the collected ones (one task's, if one was asked)
    done: dict[str, TestResult]  # id -> result, for the tests that have one so far
    running: str | None  # the test running now, if any
    running_seconds: float | None = None  # its time limit, when the stream says it is not the lab's


@dataclass
class Run:
    """One grading run: a result per collected test, how the code under test was isolated, the limits in force."""

    results: list[TestResult]
    isolation: dict
    limits: dict  # every limit's value (grader.limits.in_force), run_seconds as the runner applied it
    # With record_calls (in-process): test id -> the functions of the code under test it called, by qualified name.
    calls: dict[str, frozenset[str]] = field(default_factory=dict)


def _complete(
    collected: list[dict], done: dict[str, TestResult], unfinished: str, lab: Lab | None = None, task: str | None = None
) -> list[TestResult]:
    """One result per collected test: the score counts only the trusted list of tests; one that did not
    run has the reason ``unfinished``. A run of one ``task`` of ``lab`` gives the other tasks' tests
    not_run: its report is never a full score."""
    results = []
    for test in collected:
        if test["id"] in done:
            results.append(done[test["id"]])
        else:
            if task is not None and test["task"] != task:
                reason = verdicts.not_in_this_run(lab.task(task).title)
            else:
                reason = unfinished
            results.append(
                TestResult(test["id"], test["task"], "not_run", 0, test["points"], 0.0, reason, "", tier=test["tier"])
            )
    return results


def _stopped_result(collected: list[dict], stopped: _Stopped) -> TestResult:
    test = next(t for t in collected if t["id"] == stopped.test)
    return TestResult(
        test["id"], test["task"], stopped.outcome, 0, test["points"], 0.0, stopped.reason, "", tier=test["tier"]
    )


def run_tests(
    lab: Lab,
    impl: Implementation,
    *,
    isolation: str = "in-process",
    timeout: float | None = None,
    task: str | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> Run:
    """Run every test of ``lab`` (or of its one ``task``) against ``impl``, in-process or behind the
    wall (isolation "worker").

    If the test process dies or hangs in a test, that test gets its verdict (crashed or
    timeout) and the others run again in a fresh process without it, so one bad test
    costs its own points only. ``on_progress`` is called at every read of the stream, and
    once at the end with every result.
    """
    scratch.sweep_once()
    require_sandbox(isolation)
    if task is not None:
        lab.task(task)  # LabError if the lab has no such task
    in_force = limits.in_force(lab.limits, timeout)
    timeout = in_force[limits.RUN_SECONDS]
    deadline = time.monotonic() + timeout
    done: dict[str, TestResult] = {}
    collected: list[dict] | None = None
    sandbox: dict = {"protections": []}

    def graded(tests: list[dict]) -> list[dict]:
        return [t for t in tests if task is None or t["task"] == task]

    def follow(progress: ProgressReader) -> None:
        tests = collected or progress.collected
        if tests is not None:
            part, running = progress.part, progress.running
            finished = {**done, **_finished(tests, part)}
            on_progress(Progress(graded(tests), finished, running, part.limits.get(running)))

    orders = {TASK_ENV: task} if task is not None else {}
    unfinished = verdicts.too_many_crashes(MAX_RESTARTS)  # why the tests left are not run, unless time ran out
    for _ in range(MAX_RESTARTS + 1):
        budget = deadline - time.monotonic()
        if budget <= 0:
            unfinished = verdicts.run_out_of_time(timeout)
            break
        nodeids = {t["id"]: t["nodeid"] for t in collected or []}
        deselect = [arg for i in done for arg in ("--deselect", nodeids[i])]
        if any(r.outcome == "timeout" for r in done.values()):  # the tests left have the shorter limit
            orders[TIMED_OUT_ENV] = "1"
        with scratch.temporary("run") as tmp:
            run = _run_pytest(
                lab,
                impl,
                isolation,
                orders,
                deselect,
                tmp,
                budget=budget,
                run_seconds=timeout,
                on_poll=follow if on_progress is not None else None,
            )
            if collected is None:
                if run.progress.collected is None:
                    raise GradingError(f"the tests of lab {lab.id} could not be collected:\n{run.output[-3000:]}")
                collected = run.progress.collected
            part = run.progress.part
            sandbox = part.isolation or sandbox
            done.update(_finished(collected, part))  # if it died or was killed: what it streamed before
            if run.stopped is None or run.stopped.test is None:
                unfinished = verdicts.run_out_of_time(timeout)  # the run ended, or its time limit stopped it
                break
            done[run.stopped.test] = _stopped_result(collected, run.stopped)
    results = _complete(collected, done, unfinished, lab, task)
    if on_progress is not None:
        on_progress(Progress(graded(collected), {r.id: r for r in results}, None))
    return Run(results, {"mode": isolation, **sandbox}, in_force)


def require_sandbox(isolation: str) -> str | None:
    """Behind the wall, the sandbox level this machine allows (GradingError naming the fix where none)."""
    if isolation != "worker":
        return None
    from grader.wall import sandbox

    try:
        return sandbox.level()
    except sandbox.SandboxUnavailable as exc:
        raise GradingError(str(exc)) from None


def run_many(
    lab: Lab,
    impls: list[Implementation],
    *,
    isolation: str = "worker",
    timeout: float | None = None,
    on_result: Callable[[int, Run], None] | None = None,
    stop_at_first_failure: bool = False,
    cpu: int | None = None,
    session_limit: int | None = None,
    only: list[Collection[str] | None] | None = None,
    record_calls: bool = False,
) -> list[Run]:
    """Grade several submissions in as few pytest sessions as possible (``run_queue``), and return their
    runs in order. ``on_result(index, run)`` is called as soon as each submission's result is known.
    ``only``: for each submission, the ids of the tests to run (None: all of them)."""
    runs: dict[int, Run] = {}
    queued = iter(list(enumerate(impls)))

    def finish(index: int, run: Run) -> None:
        runs[index] = run
        if on_result is not None:
            on_result(index, run)

    run_queue(
        lab,
        lambda: next(queued, None),
        isolation=isolation,
        timeout=timeout,
        on_result=finish,
        stop_at_first_failure=stop_at_first_failure,
        cpu=cpu,
        session_limit=session_limit,
        only=(lambda index: only[index]) if only is not None else None,
        record_calls=record_calls,
    )
    return [runs[i] for i in range(len(impls))]


def run_queue(
    lab: Lab,
    take: Callable[[], Given | None],
    *,
    isolation: str = "worker",
    timeout: float | None = None,
    on_result: Callable[[object, Run], None],
    stop_at_first_failure: bool = False,
    cpu: int | None = None,
    put_back: Callable[[Given], None] | None = None,
    session_limit: int | None = None,
    only: Callable[[object], Collection[str] | None] | None = None,
    record_calls: bool = False,
) -> None:
    """Grade the submissions ``take`` hands over, one at a time as a session is ready for the next
    ((item, Implementation) pairs; None when there are no more; it must not block: the session's
    watch calls it), in as few pytest sessions as possible (grader.grading.feed); ``on_result(item,
    run)`` as soon as each one's result is known.

    Behind the wall (the default) this is safe for any code. In-process, every file runs
    in one test process: only for trusted code, such as the kit's own mutants. Each
    submission has the run_seconds (``timeout``) of a solo run: one that spends them gets
    what ``run_tests`` gives at its deadline. If the session stops otherwise (a hang, a
    crash), the submission it was grading is graded again alone, with ``run_tests``'s
    recovery, and the ones it was given and did not begin go to ``put_back`` first (a shared queue,
    for another job to take now), or else begin the next session. With
    ``stop_at_first_failure`` a submission's graded tests after its first failure are skipped (0
    points): only whether it loses a point is known (grader mutants). ``cpu``: the core the
    session keeps to with its worker (a batch job's: grader.wall.cpus); None, the one it starts on.
    ``session_limit``: submissions a session grades at most (None: grader.grading.feed.SESSION_LIMIT).
    ``only(item)``: the ids of the tests to run for that submission (None: all); the others are not_run
    (verdicts.NOT_SELECTED). A submission graded again alone, after a hang or a crash, runs every test.
    ``record_calls`` (in-process only): each Run says which functions of the code each test called
    (``Run.calls``; grader.kit.reach).
    """
    if record_calls and isolation != "in-process":
        raise ValueError("record_calls: the functions a test calls are seen in-process only")
    scratch.sweep_once()
    require_sandbox(isolation)
    in_force = limits.in_force(lab.limits, timeout)
    timeout = in_force[limits.RUN_SECONDS]
    backlog: collections.deque[Given] = collections.deque()  # given to a session that ended without them
    extra = {"stop_at_first_failure": True} if stop_at_first_failure else {}
    if record_calls:
        extra["record_calls"] = True
    env = {QUEUE_ENV: "1"}
    if cpu is not None:
        env[CPU_ENV] = str(cpu)

    def next_one() -> Given | None:
        return backlog.popleft() if backlog else take()

    while (first := next_one()) is not None:
        # Looked at, then left for the feed to hand over: the session's orders name a submission (IMPL).
        backlog.appendleft(first)
        # A mutant's run ends at its first failure, often within a poll: two ahead, so it never waits.
        feed = Feed(next_one, extra, limit=session_limit, ahead=2 if stop_at_first_failure else 1, only=only)
        finished: set[str] = set()

        def finish(key: str, run: Run, feed=feed, finished=finished) -> None:
            finished.add(key)
            on_result(feed.given[key][0], run)

        def take_finished(progress: ProgressReader, finish=finish, finished=finished) -> None:
            if progress.collected is None:
                return
            for key, part in progress.parts.items():
                if key is not None and part.done and key not in finished:
                    finish(key, _graded(progress, key, isolation, timeout, in_force))

        with scratch.temporary("queue") as tmp:
            run = _run_pytest(
                lab,
                first[1],
                isolation,
                env,
                [],
                tmp,
                budget=timeout,
                run_seconds=timeout,
                on_poll=take_finished,
                feed=feed,
            )
        if run.progress.collected is None:
            raise GradingError(f"the tests of lab {lab.id} could not be collected:\n{run.output[-3000:]}")
        current, stopped = run.progress.current, run.stopped
        spent = stopped.out_of_time if stopped is not None else None
        begun = set(run.progress.parts) - {None}
        unbegun = [given for key, given in feed.given.items() if key not in begun]
        # A session that died before it began any: its first alone, so that every session makes progress.
        alone = unbegun.pop(0) if not begun and unbegun else None
        if put_back is not None:  # now, for another job: a regrade alone may take a hang's time again
            for given in unbegun:
                put_back(given)
        else:
            backlog.extendleft(reversed(unbegun))
        if spent and spent not in finished:  # its run_seconds are over: what a solo run gives at its deadline
            finish(spent, _graded(run.progress, spent, isolation, timeout, in_force, stopped))
        elif spent is None and current is not None and current not in finished:  # a hang or a crash
            finish(current, run_tests(lab, feed.given[current][1], isolation=isolation, timeout=timeout))
        if alone is not None:
            on_result(alone[0], run_tests(lab, alone[1], isolation=isolation, timeout=timeout))


def _graded(
    progress: ProgressReader, key: str, isolation: str, timeout: float, in_force: dict, stopped: _Stopped | None = None
) -> Run:
    """A queued submission's run from its part of the stream (and, stopped at its deadline, the test it was in)."""
    part = progress.parts[key]
    done = _finished(progress.collected, part)
    if stopped is not None and stopped.test is not None:
        done[stopped.test] = _stopped_result(progress.collected, stopped)
    sandbox = part.isolation or {"protections": []}
    unfinished = verdicts.run_out_of_time(timeout)
    calls = {i: frozenset(e["calls"]) for i, e in part.results.items() if isinstance(e.get("calls"), list)}
    return Run(_complete(progress.collected, done, unfinished), {"mode": isolation, **sandbox}, in_force, calls)


_collected: dict[tuple, list[dict]] = {}  # a batch collects its lab first, and the kit's tests run many batches


def collect(lab: Lab) -> list[dict]:
    """The lab's tests with their tasks and points, without running them: a pytest process the first time,
    then, in the same process, again only if a file of the lab's folder changed (``_lab_files_sha256``)."""
    key = (str(lab.folder), tuple(map(str, lab.test_files)), _lab_files_sha256(lab))
    if key not in _collected:
        _collected[key] = _collect(lab)
    return [dict(test) for test in _collected[key]]


def _lab_files_sha256(lab: Lab) -> str:
    """The sha256 of every Python file of the lab's folder, its tests and the helpers they import."""
    digest = hashlib.sha256()
    for path in sorted(lab.folder.rglob("*.py")):
        if "__pycache__" not in path.parts:
            digest.update(f"{path.relative_to(lab.folder).as_posix()}\0".encode() + path.read_bytes())
    return digest.hexdigest()


def _collect(lab: Lab) -> list[dict]:
    with scratch.temporary("collect") as tmp:
        progress = tmp / "progress.jsonl"
        cmd = [sys.executable, "-m", "pytest", *_pytest_args(lab, ["--collect-only"])]
        env = _child_env(lab, Implementation("ref", None), progress, "in-process")
        proc = subprocess.run(cmd, cwd=KIT_ROOT, env=env, capture_output=True, text=True, timeout=120)
        collected = ProgressReader(progress).poll().collected
        if collected is None:
            raise GradingError(
                f"the tests of lab {lab.id} could not be collected:\n{(proc.stdout + proc.stderr)[-3000:]}"
            )
        return collected

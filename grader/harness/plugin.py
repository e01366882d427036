"""pytest plugin (registered as the ``labkit`` entry point): points, tasks and verdicts for lab tests.

For every test marked ``graded`` it attaches to pytest-json-report's entry the test's
task, points and a verdict: an outcome in the report's vocabulary, a one-paragraph
message and a hint. With ``LABKIT_PROGRESS`` set it also streams the collected test
list and each test's start to that file, so the grader knows what was running if the
process dies. Outside lab tests it does nothing.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import traceback
from pathlib import Path

import pytest

from grader.env import LAB_ENV, PARENT_ENV, PROGRESS_ENV, QUEUE_ENV
from grader.harness.failures import SubmissionError, WorkerFailure
from grader.harness.seam import code_under_test_files, isolation_from_env, sync, under_test
from grader.testing.checks import LabCheckFailure

MESSAGE_LIMIT = 600
PR_SET_PDEATHSIG = 1  # linux/prctl.h

_progress_key = pytest.StashKey[object]()
_verdict_key = pytest.StashKey[dict]()
_duration_key = pytest.StashKey[float]()
PASSED = {"outcome": "passed", "message": "", "hint": ""}


def test_id(item) -> str:
    """A report id without paths: the test's name and its parameters."""
    return item.nodeid.split("::", 1)[-1]


def graded_info(item) -> dict | None:
    marker = item.get_closest_marker("graded")
    if marker is None:
        return None
    return {"task": marker.kwargs["task"], "points": marker.kwargs["points"], "hint": marker.kwargs.get("hint", "")}


def _emit(config, event: dict):
    stream = config.stash.get(_progress_key, None)
    if stream is not None:
        stream.write(json.dumps(event) + "\n")
        stream.flush()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "graded(task, points, hint=''): a lab test worth `points` in `task`; `hint` is shown on failure"
    )
    lab_id = os.environ.get(LAB_ENV)
    if lab_id and isolation_from_env() == "worker":
        under_test(lab_id)  # its worker starts now, while pytest collects the tests
    path = os.environ.get(PROGRESS_ENV)
    if path:
        _die_with_the_grader()
        config.stash[_progress_key] = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in unconfigure


def _die_with_the_grader() -> None:
    """A grader killed outright (kill -9, a lost CI runner) must not leave this session grading on.

    The grader starts pytest in a new session, out of reach of the terminal's Ctrl-C, so
    on Linux the kernel is asked to kill this process when its parent dies.
    """
    parent = os.environ.get(PARENT_ENV)
    if not parent or not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return
    if os.getppid() != int(parent):  # the grader died before the request took effect
        os._exit(1)


def pytest_unconfigure(config):
    stream = config.stash.get(_progress_key, None)
    if stream is not None:
        stream.close()


def pytest_collection_finish(session):
    tests = []
    for item in session.items:
        info = graded_info(item)
        if info is None:
            if Path(str(item.fspath)).name == "test_lab.py":
                raise pytest.UsageError(f"{item.nodeid} has no @graded(task, points) marker: every lab test counts")
            continue
        tests.append({"id": test_id(item), "nodeid": item.nodeid, "task": info["task"], "points": info["points"]})
        # The grader words its own verdicts (classify): pytest's formatted traceback of a failed
        # lab test would cost milliseconds per test and never be read.
        item.repr_failure = _exception_line
    _emit(session.config, {"event": "collected", "tests": tests})


def _exception_line(excinfo) -> str:
    return f"{excinfo.typename}: {str(excinfo.value)[:MESSAGE_LIMIT]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    for key in (_verdict_key, _duration_key):  # a queue runs every test once per submission
        if key in item.stash:
            del item.stash[key]
    _emit(item.config, {"event": "start", "id": test_id(item)})
    yield
    if graded_info(item) is not None:
        verdict = item.stash.get(_verdict_key, None) or PASSED
        duration = round(item.stash.get(_duration_key, 0.0), 6)
        _emit(item.config, {"event": "result", "id": test_id(item), "duration_s": duration, **verdict})


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    if graded_info(item) is not None:
        sync()  # an error in the test's last operations behind the wall belongs to this test
    return result


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if graded_info(item) is not None and isolation_from_env() == "worker":
        from grader import wall

        wall.end_test()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """With a queue, run every collected test once per submission, each behind its own wall."""
    queue_path = os.environ.get(QUEUE_ENV)
    if not queue_path or session.config.option.collectonly:
        return None
    from grader import wall
    from grader.harness import seam

    queue = json.loads(Path(queue_path).read_text(encoding="utf-8"))
    items = session.items
    for entry in queue:
        seam.select_submission(Path(entry["path"]))
        _emit(session.config, {"event": "submission", "key": entry["key"]})
        for i, item in enumerate(items):
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=items[i + 1] if i + 1 < len(items) else None)
        if wall.active() is not None:
            _emit(session.config, _isolation_event(wall.active()))
        wall.close()
        _emit(session.config, {"event": "submission_done", "key": entry["key"]})
    return True


def _isolation_event(wall_session) -> dict:
    return {"event": "isolation", "level": wall_session.box.level, "protections": wall_session.protections}


def pytest_sessionfinish(session):
    if isolation_from_env() == "worker":
        from grader import wall
        from grader.harness import seam

        if wall.active() is not None:
            _emit(session.config, _isolation_event(wall.active()))
        wall.close()
        seam.close_sandboxes()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    info = graded_info(item)
    if info is None:
        return
    item.stash[_duration_key] = item.stash.get(_duration_key, 0.0) + report.duration
    if _verdict_key in item.stash:
        return  # the first failure is the one that explains the test
    if report.skipped:
        item.stash[_verdict_key] = {"outcome": "not_run", "message": "skipped", "hint": ""}
    elif call.excinfo is not None:
        item.stash[_verdict_key] = classify(call.excinfo.value, info["hint"])


def _where(exc: BaseException) -> str:
    """'starter.py:42 in backward' for the innermost frame of the code under test, if any."""
    remote = getattr(exc, "labkit_where", None)
    if remote is not None:  # raised behind the wall: the worker located it
        return remote
    files = code_under_test_files()
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in files:
            found = frame
    if found is None:
        return ""
    return f"{Path(found.filename).name}:{found.lineno} in {found.name}"


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def classify(exc: BaseException, static_hint: str) -> dict:
    """The report's outcome, message and hint for an exception raised by a graded test."""
    if isinstance(exc, LabCheckFailure):
        return {"outcome": "failed", "message": _clip(exc.message), "hint": exc.hint or static_hint}
    if isinstance(exc, SubmissionError):
        return {"outcome": "error", "message": _clip(exc.message), "hint": exc.hint}
    if isinstance(exc, WorkerFailure):
        return {"outcome": exc.outcome, "message": _clip(exc.message), "hint": exc.hint or static_hint}
    where = _where(exc)
    at = f" ({where})" if where else ""
    if isinstance(exc, pytest.fail.Exception) and str(exc).startswith("Timeout (>"):
        limit = str(exc)[len("Timeout (>") :].split("s)")[0]
        stuck = f"; it was running {where}" if where else ""
        return {
            "outcome": "timeout",
            "message": f"timeout: the test ran longer than its limit of {limit} s{stuck}",
            "hint": "look for a loop that never ends, or work that grows too fast (e.g. a graph visited many times)",
        }
    if isinstance(exc, NotImplementedError):
        return {"outcome": "failed", "message": _clip(f"not implemented yet: {exc}{at}"), "hint": static_hint}
    if isinstance(exc, AssertionError):
        return {"outcome": "failed", "message": _clip(str(exc) or "assertion failed"), "hint": static_hint}
    return {"outcome": "error", "message": _clip(f"{type(exc).__name__}: {exc}{at}"), "hint": static_hint}


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    info = graded_info(item)
    if info is None or call.when != "teardown":
        return {}
    verdict = item.stash.get(_verdict_key, None) or PASSED
    return {"labkit": {"task": info["task"], "points": info["points"], "verdict": verdict}}

"""pytest plugin (registered as the ``labkit`` entry point): points, tasks and verdicts for lab tests.

For every test marked ``graded`` it decides a verdict (grader.verdicts.classify): an
outcome in the report's vocabulary, a one-paragraph message and a hint. The grader learns
them from the progress stream (grader.progress), the one channel from this process
to the grader: the collected tests, each test's start and result, the protections behind
the wall, and the end of the session. Run by hand with ``--json-report``, the same
verdicts are attached to pytest-json-report's entries for other tools. Run by a person
(no stream), a failed test's report is pytest's own, traceback and all, below the verdict;
the grader's runs keep the one-line form. An order to grade one task deselects the other
tasks' tests, which the collected list still names. Outside lab tests it does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import os
import signal
import sys
from pathlib import Path

import pytest
import pytest_timeout

from grader import labs, verdicts
from grader.harness import calls, handles, incoming, state
from grader.harness.module_data import ModuleData
from grader.limits import Limits
from grader.progress import Stream

PR_SET_PDEATHSIG = 1  # linux/prctl.h

_verdict_key = pytest.StashKey[dict]()
_duration_key = pytest.StashKey[float]()
_stream_key = pytest.StashKey[Stream]()
# In-process: the shorter limit a test runs under after a timeout (None: the lab's own).
_shorter_limit_key = pytest.StashKey["float | None"]()
# Every test collected, in the report's order, before an order to grade one task deselected some.
_collected_key = pytest.StashKey[list]()


def _hidden_relpath(item) -> str | None:
    """For a test of a lab's hidden tests (labs/<id>/hidden/), its file's path in the lab's folder."""
    return _hidden_relpath_of(str(item.path))


@functools.lru_cache(maxsize=64)  # asked twice a test; resolving a path is an lstat a folder
def _hidden_relpath_of(path: str) -> str | None:
    try:
        relpath = Path(path).resolve().relative_to(labs.KIT_ROOT).as_posix()
    except ValueError:
        return None
    return relpath.split("/", 2)[2] if labs.is_hidden_file(relpath) else None


def tier(item) -> str:
    """labs.TIERS: hidden for a test from the lab's hidden/ folder, visible for the rest."""
    return labs.HIDDEN if _hidden_relpath(item) else "visible"


def test_id(item) -> str:
    """A report id: the test's name and its parameters; a hidden test's is prefixed with its file's path in the
    lab's folder (``hidden/test_hidden.py::test_x``), so that no id is both a visible and a hidden test."""
    name = item.nodeid.split("::", 1)[-1]
    hidden = _hidden_relpath(item)
    return f"{hidden}::{name}" if hidden else name


def graded_info(item) -> dict | None:
    marker = item.get_closest_marker("graded")
    if marker is None:
        return None
    return {"task": marker.kwargs["task"], "points": marker.kwargs["points"], "hint": marker.kwargs.get("hint", "")}


def _stream(config) -> Stream:
    return config.stash[_stream_key]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "graded(task, points, hint=''): a lab test worth `points` in `task`; `hint` is shown on failure"
    )
    config.addinivalue_line(
        "markers", "searching: a test that searches many cases; a run that stops at its first failure runs it last"
    )
    session = state.start(config)
    if session.parent is not None:
        _die_with_the_grader(session.parent)
    config.stash[_stream_key] = Stream.open(session.progress)
    if session.lab_id and session.behind_the_wall:
        handles.under_test(session.lab_id)  # its sandbox starts now, while pytest collects the tests


def _die_with_the_grader(parent: int) -> None:
    """A grader killed outright (kill -9, a lost CI runner) must not leave this session grading on.

    The grader starts pytest in a new session, out of reach of the terminal's Ctrl-C, so
    on Linux the kernel is asked to kill this process when its parent dies.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        return
    if os.getppid() != parent:  # the grader died before the request took effect
        os._exit(1)


def pytest_unconfigure(config):
    # pytest unconfigures a plugin whose configure failed too: its error, not a missing stream, is the news.
    stream = config.stash.get(_stream_key, None)
    if stream is not None:
        stream.close()


@pytest.hookimpl(trylast=True)  # after pytest's own -k and --deselect
def pytest_collection_modifyitems(session, config, items):
    run = config.stash[state.SESSION_KEY]
    if run.lab_id is not None:
        _task_by_task(items, run.lab(run.lab_id))
    config.stash[_collected_key] = list(items)  # the report's order
    _hidden_last(items)  # the order they run in
    task = run.task
    if task is None:
        return
    others = [item for item in items if (graded_info(item) or {}).get("task", task) != task]
    if others:
        items[:] = [item for item in items if (graded_info(item) or {}).get("task", task) == task]
        config.hook.pytest_deselected(items=others)


def _task_by_task(items: list, lab: labs.Lab) -> None:
    """The tests task by task, in the lab's order (test_lab.py is written so), each task's hidden tests right
    after its visible ones: the order of the report, and of the run without hidden tests."""
    order = {task.id: i for i, task in enumerate(lab.tasks)}
    items.sort(key=lambda item: order.get((graded_info(item) or {}).get("task"), len(order)))  # stable


def _hidden_last(items: list) -> None:
    """Every visible test before any hidden one, each set still task by task. The code under test sees the
    hidden tests' inputs (it computes with them), and a child that ends a test cleanly serves the next: run
    before a visible test, a hidden test's cases could come back in that test's message, which the student
    is shown (a security review did it through a `Value.__init__` that logged its arguments and a
    `Tensor.__init__` that raised them). Run last, nothing they hand over can reach a visible result."""
    items.sort(key=lambda item: _hidden_relpath(item) is not None)  # stable


def pytest_collection_finish(session):
    tests = []
    for_the_grader = session.config.stash[state.SESSION_KEY].for_the_grader
    for item in session.config.stash.get(_collected_key, session.items):
        info = graded_info(item)
        if info is None:
            if Path(str(item.path)).name == "test_lab.py" or _hidden_relpath(item):
                raise pytest.UsageError(f"{item.nodeid} has no @graded(task, points) marker: every lab test counts")
            continue
        tests.append(
            {
                "id": test_id(item),
                "nodeid": item.nodeid,
                "task": info["task"],
                "points": info["points"],
                "tier": tier(item),
            }
        )
        if for_the_grader:
            # The grader words its own verdicts (classify): pytest's formatted traceback of a failed
            # lab test would cost milliseconds per test and never be read.
            item.repr_failure = _exception_line
    _stream(session.config).collected(tests)


def _exception_line(excinfo) -> str:
    return f"{excinfo.typename}: {str(excinfo.value)[: verdicts.MESSAGE_LIMIT]}"


# First: pytest-timeout's own wrapper sets its timer (pytest_timeout_set_timer, below) as the protocol starts, and
# must not read the limit the last submission of a queue had for this test.
@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    for key in (_verdict_key, _duration_key, _shorter_limit_key):  # a queue runs every test once per submission
        if key in item.stash:
            del item.stash[key]
    stream = _stream(item.config)
    stream.start(test_id(item), _shorter_limit(item))
    recorder = _call_recorder(item)
    if recorder is not None:
        recorder.start()
    try:
        yield
    finally:
        calls = recorder.stop() if recorder is not None else None
    if graded_info(item) is not None:
        verdict = item.stash.get(_verdict_key, None) or verdicts.PASSED
        stream.result(test_id(item), round(item.stash.get(_duration_key, 0.0), 6), verdict, calls)


def _call_recorder(item) -> calls.CallRecorder | None:
    """For a queue entry that asks (in-process: behind the wall the code runs in another process), a recorder
    of the functions of the code under test that this test calls."""
    grading = item.config.stash[state.SESSION_KEY]
    if not grading.record_calls or grading.behind_the_wall or graded_info(item) is None:
        return None
    files = grading.code_under_test_files()
    if grading.selected is not None:
        files.add(str(grading.selected))  # as the loader compiled it, which may not be its resolved path
    return calls.CallRecorder(files)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    result = yield
    if graded_info(item) is not None:
        state.current().sync()  # an error in the test's last operations behind the wall belongs to this test
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """A queue entry that asks to stop at its first failure (grader mutants: one lost point kills a mutant)
    skips its remaining graded tests once one has failed, and one that asks for some tests only (a mutant:
    the tests that reach its edit, grader.kit.reach) skips the others; a skip in setup leaves pytest's
    fixtures consistent."""
    grading = item.config.stash[state.SESSION_KEY]
    if graded_info(item) is None:
        return
    if grading.only is not None and test_id(item) not in grading.only:
        item.stash[_verdict_key] = verdicts.NOT_SELECTED
        pytest.skip(verdicts.NOT_SELECTED["message"])
    if grading.stop_at_first_failure and grading.submission_failed:
        pytest.skip("not run: an earlier test of this submission failed")


def _shorter_limit(item) -> float | None:
    """The shorter time limit of a test that runs after one of the submission's timed out; None for the lab's
    own. Behind the wall the wall's session applies it to every later test (the wall's import has its own
    limit); in-process pytest-timeout does, but a test that imports the code under test keeps the lab's
    limit. Decided once a test, when it starts: the stream says it, for the runner's watchdog (in-process)
    and the live lines (both modes)."""
    if _shorter_limit_key in item.stash:
        return item.stash[_shorter_limit_key]
    grading = item.config.stash[state.SESSION_KEY]
    short = None
    if grading.timed_out and grading.lab_id is not None and (grading.behind_the_wall or not _imports_code(item)):
        chosen = Limits.from_lab(grading.lab(grading.lab_id).limits)
        after = chosen.after_a_timeout().test_seconds
        short = after if after < chosen.test_seconds else None
    item.stash[_shorter_limit_key] = short
    return short


def _imports_code(item) -> bool:
    """In-process, whether the test will import the code under test: its module's lab handle has not yet."""
    module = getattr(item, "module", None)
    found = [v for v in vars(module).values() if isinstance(v, handles.LabHandle)] if module is not None else []
    return any(handle.will_import() for handle in found)


def _shorter_timer(item) -> float | None:
    """pytest-timeout's shorter limit for this test: in-process ``_shorter_limit``; behind the wall None, for
    there pytest-timeout is the trusted side's backstop, at the lab's limit, and the wall's session times the
    test (and says in its own message that an earlier test timed out)."""
    return None if item.config.stash[state.SESSION_KEY].behind_the_wall else _shorter_limit(item)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_timeout_set_timer(item, settings):
    """pytest-timeout's timer, at the shorter limit after a timeout (``_shorter_timer``)."""
    short = _shorter_timer(item)
    if short is None or not settings.timeout:
        return None
    return pytest_timeout.pytest_timeout_set_timer(item, settings._replace(timeout=min(settings.timeout, short)))


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    if graded_info(item) is not None:
        item.config.stash[state.SESSION_KEY].end_test()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """With a queue, run every collected test once per submission, each behind its own wall."""
    grading = session.config.stash[state.SESSION_KEY]
    if not grading.queue or session.config.option.collectonly:
        return None
    stream = _stream(session.config)
    items = session.items
    # The test modules' data as collected: each submission starts from it (grader.harness.module_data).
    data = ModuleData({item.module for item in items if getattr(item, "module", None) is not None})
    for number, entry in enumerate(incoming.entries()):
        if number:
            data.restore()
        grading.select(Path(entry["path"]))
        grading.stop_at_first_failure = bool(entry.get("stop_at_first_failure"))
        grading.only = frozenset(entry["only"]) if entry.get("only") is not None else None
        grading.record_calls = bool(entry.get("record_calls"))
        grading.submission_failed = False
        stream.submission(entry["key"])
        order = _cheapest_first(items) if grading.stop_at_first_failure else items
        for i, item in enumerate(order):
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=order[i + 1] if i + 1 < len(order) else None)
            verdict = item.stash.get(_verdict_key, verdicts.PASSED)
            if graded_info(item) is not None and verdict["outcome"] not in ("passed", "not_run"):
                grading.submission_failed = True
        _end_submission(grading, stream)
        stream.submission_done(entry["key"])
        drop_kept_reports(session.config)
    return True


def drop_kept_reports(config) -> None:
    """Drop the reports pytest's terminal reporter keeps for its summary, three for every test: a queue's
    session grew by about 0.3 MiB a student with them. The grader reads the stream, never the summary."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.stats.clear()


def _cheapest_first(items: list) -> list:
    """The tests in their order, the searching ones (random graphs) moved last: in a run that stops at
    its first failure, a cheaper test that fails ends it sooner. The verdict is the same."""
    return sorted(items, key=lambda item: item.get_closest_marker("searching") is not None)


def _end_submission(grading: state.Session, stream: Stream) -> None:
    """Say what protected the submission just graded, and close its wall session."""
    if grading.wall is not None:
        stream.isolation(grading.wall.box.level, grading.wall.protections)
    grading.close_wall()


def pytest_sessionfinish(session):
    grading = session.config.stash[state.SESSION_KEY]
    stream = _stream(session.config)
    if grading.behind_the_wall:
        _end_submission(grading, stream)
        grading.close()
    stream.finished()


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
        item.stash[_verdict_key] = verdicts.SKIPPED
    elif call.excinfo is not None:
        grading = item.config.stash[state.SESSION_KEY]
        verdict = verdicts.classify(call.excinfo.value, info["hint"], grading.code_under_test_files())
        if verdict["outcome"] == "timeout" and grading.lab_id is not None:  # a grading run's (its orders name the lab)
            if _shorter_timer(item) is not None:  # pytest-timeout's shorter timer fired
                verdict = {**verdict, "message": verdicts.after_an_earlier_timeout(verdict["message"])}
            grading.a_test_timed_out()
        item.stash[_verdict_key] = verdict
        if not grading.for_the_grader and report.longrepr is not None:
            report.longrepr = VerdictAbove(verdict, report.longrepr)


class VerdictAbove:
    """pytest's own report of a failed test (its traceback into the student's code), below the
    grader's verdict: what a person running pytest reads. Anything else pytest asks of the report
    (the crash line of --tb=line and of the short summary) is the original's."""

    def __init__(self, verdict: dict, longrepr):
        self.verdict = verdict
        self.longrepr = longrepr

    def __getattr__(self, name):  # only for what the instance lacks
        if name == "longrepr":  # not set yet (a copy being made): lacked, not looked up on itself
            raise AttributeError(name)
        return getattr(self.longrepr, name)

    def _lines(self) -> list[str]:
        said = [f"labkit: {self.verdict['message']}"]
        return said + ([f"hint: {self.verdict['hint']}"] if self.verdict["hint"] else [])

    def toterminal(self, tw) -> None:
        for i, line in enumerate(self._lines()):
            tw.line(line, bold=i == 0, red=i == 0)
        if hasattr(self.longrepr, "toterminal"):
            self.longrepr.toterminal(tw)
        else:
            tw.line(str(self.longrepr))

    def __str__(self) -> str:
        return "\n".join(self._lines()) + "\n" + str(self.longrepr)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    info = graded_info(item)
    if info is None or call.when != "teardown":
        return {}
    verdict = item.stash.get(_verdict_key, None) or verdicts.PASSED
    return {"labkit": {"task": info["task"], "points": info["points"], "tier": tier(item), "verdict": verdict}}

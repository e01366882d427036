"""The pytest plugin (grader.harness.plugin) run on small test files with pytester, as the grader runs
it: the collected list in the progress stream (ids, tasks, points), each graded test's verdict
(passed, a failed assert, NotImplementedError with its location, a setup error, a skip),
``finished`` at the end; a lab's test_lab.py with an unmarked test is a usage error; with
pytest-json-report each graded test's entry carries metadata.labkit. Also the session's orders
(grader.harness.state.Session.from_environment) read from every variable of grader.env.

Each pytester run is a fresh `python -m pytest` (about half a second): the plugin's session
state is per process, and this process's own session must not be disturbed. Like the grader's
runner, the runs turn off entry-point autoloading and name the plugin with -p; one test checks
that a plain `pytest` loads it through the ``labkit`` entry point instead.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader import env, labs
from grader.harness import ahead, handles
from grader.harness.state import Session
from grader.progress import ProgressReader

pytest_plugins = ["pytester"]

PLUGIN = ("-p", "grader.harness.plugin")

UNITS = """
import pytest

from grader.testing import graded
from engine import backward


@pytest.fixture
def broken():
    raise RuntimeError("setup broke")


@graded(task="t", points=2)
def test_passes():
    assert 1 + 1 == 2


@graded(task="t", points=2)
def test_fails_an_assert():
    assert 1 == 2, "one is not two"


@graded(task="u", points=1.5, hint="write backward first")
def test_not_implemented():
    backward()


@graded(task="u", points=1)
def test_skipped():
    pytest.skip("needs a GPU")


@pytest.mark.skipif(True, reason="never here")
@graded(task="u", points=1)
def test_skipped_by_marker():
    pass


@graded(task="u", points=0.5)
def test_setup_error(broken):
    pass


@graded(task="v", points=0.25)
@pytest.mark.parametrize("x", [1, 2], ids=["one", "two"])
def test_param(x):
    assert x == 1, f"x is {x}"


def test_not_graded():
    pass
"""

ENGINE = """\
def backward():
    raise NotImplementedError("Task 2 - implement backward")
"""


@pytest.fixture
def orders(monkeypatch, pytester):
    """A clean environment with none of the grader's orders but a progress stream; returns its path."""
    for name in env.RUN_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    progress = pytester.path / "progress.jsonl"
    monkeypatch.setenv(env.PROGRESS_ENV, str(progress))
    return progress


def test_the_progress_stream_of_a_run(pytester, monkeypatch, orders):
    pytester.makepyfile(test_units=UNITS, engine=ENGINE)
    monkeypatch.setenv(env.IMPL_ENV, str(pytester.path / "engine.py"))  # engine.py is the code under test
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=3, skipped=2, errors=1)

    reader = ProgressReader(orders).poll()
    assert reader.collected == [
        {"id": "test_passes", "nodeid": "test_units.py::test_passes", "task": "t", "points": 2, "tier": "visible"},
        {
            "id": "test_fails_an_assert",
            "nodeid": "test_units.py::test_fails_an_assert",
            "task": "t",
            "points": 2,
            "tier": "visible",
        },
        {
            "id": "test_not_implemented",
            "nodeid": "test_units.py::test_not_implemented",
            "task": "u",
            "points": 1.5,
            "tier": "visible",
        },
        {"id": "test_skipped", "nodeid": "test_units.py::test_skipped", "task": "u", "points": 1, "tier": "visible"},
        {
            "id": "test_skipped_by_marker",
            "nodeid": "test_units.py::test_skipped_by_marker",
            "task": "u",
            "points": 1,
            "tier": "visible",
        },
        {
            "id": "test_setup_error",
            "nodeid": "test_units.py::test_setup_error",
            "task": "u",
            "points": 0.5,
            "tier": "visible",
        },
        {
            "id": "test_param[one]",
            "nodeid": "test_units.py::test_param[one]",
            "task": "v",
            "points": 0.25,
            "tier": "visible",
        },
        {
            "id": "test_param[two]",
            "nodeid": "test_units.py::test_param[two]",
            "task": "v",
            "points": 0.25,
            "tier": "visible",
        },
    ]  # the unmarked test outside a lab's test_lab.py is not graded
    verdicts = {i: (r["outcome"], r["message"], r["hint"]) for i, r in reader.part.results.items()}
    assert verdicts == {
        "test_passes": ("passed", "", ""),
        "test_fails_an_assert": ("failed", "one is not two\nassert 1 == 2", ""),
        "test_not_implemented": (
            "failed",
            "not implemented yet: Task 2 - implement backward (engine.py:2 in backward)",
            "",  # a stub: no hint at a bug
        ),
        "test_skipped": ("not_run", "skipped", ""),
        "test_skipped_by_marker": ("not_run", "skipped", ""),
        "test_setup_error": ("error", "RuntimeError: setup broke", ""),
        "test_param[one]": ("passed", "", ""),
        "test_param[two]": ("failed", "x is 2\nassert 2 == 1", ""),
    }
    assert all(isinstance(r["duration_s"], float) and 0 <= r["duration_s"] < 5 for r in reader.part.results.values())
    assert reader.part.started == [t["id"] for t in reader.collected[:6]] + ["test_param[one]", "test_param[two]"] + [
        "test_not_graded"  # every test says it started; only graded ones have a result
    ]
    assert reader.finished is True
    assert reader.running == "test_not_graded"
    # the grader words its own verdicts: pytest's report shows one line, not a traceback (a person gets it)
    result.stdout.fnmatch_lines(["*AssertionError: one is not two*"])
    result.stdout.no_fnmatch_line("*def test_fails_an_assert*")


def test_plain_pytest_run_by_a_person_shows_the_verdict_then_pytests_traceback(pytester, monkeypatch, orders):
    monkeypatch.delenv(env.PROGRESS_ENV)  # no stream: not the grader's run
    pytester.makepyfile(test_units=UNITS, engine=ENGINE)
    monkeypatch.setenv(env.IMPL_ENV, str(pytester.path / "engine.py"))
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider", "--tb=long")
    result.assert_outcomes(passed=3, failed=3, skipped=2, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*_ test_not_implemented _*",
            "labkit: not implemented yet: Task 2 - implement backward (engine.py:2 in backward)",
            "*def test_not_implemented():*",
            "*def backward():*",  # the student's own code, with its line
            '>       raise NotImplementedError("Task 2 - implement backward")',
            "E       NotImplementedError: Task 2 - implement backward",
            "engine.py:2: NotImplementedError",
        ]
    )
    result.stdout.fnmatch_lines(["labkit: one is not two", "*def test_fails_an_assert():*"])
    result.stdout.fnmatch_lines(
        ["*ERROR at setup of test_setup_error*", "labkit: RuntimeError: setup broke", "*def broken():*"]
    )
    # --tb=line and the short summary keep pytest's crash line
    short = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider", "--tb=line", "-rf")
    short.stdout.fnmatch_lines(["*engine.py:2: NotImplementedError: Task 2 - implement backward"])
    short.stdout.fnmatch_lines(["FAILED test_units.py::test_not_implemented - NotImplementedError: Task 2*"])


def test_an_order_to_grade_one_task_runs_its_tests_and_still_lists_every_test(pytester, monkeypatch, orders):
    pytester.makepyfile(test_units=UNITS, engine=ENGINE)
    monkeypatch.setenv(env.IMPL_ENV, str(pytester.path / "engine.py"))
    monkeypatch.setenv(env.TASK_ENV, "v")
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)  # test_not_graded has no task: it runs, as it would with no order
    reader = ProgressReader(orders).poll()
    assert [t["id"] for t in reader.collected] == [
        "test_passes",
        "test_fails_an_assert",
        "test_not_implemented",
        "test_skipped",
        "test_skipped_by_marker",
        "test_setup_error",
        "test_param[one]",
        "test_param[two]",
    ]  # the grader's trusted list: every graded test, to report the others as not run
    assert list(reader.part.results) == ["test_param[one]", "test_param[two]"]


def test_a_run_that_does_not_finish_says_so(pytester, orders):
    pytester.makepyfile(
        test_units="""
        import os
        from grader.testing import graded

        @graded(task="t", points=1)
        def test_first():
            pass

        @graded(task="t", points=1)
        def test_exits():
            os._exit(3)
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN)
    assert result.ret == 3
    reader = ProgressReader(orders).poll()
    assert [t["id"] for t in reader.collected] == ["test_first", "test_exits"]
    assert list(reader.part.results) == ["test_first"]
    assert (reader.finished, reader.running) == (False, "test_exits")


def test_a_lab_test_without_a_graded_marker_is_a_usage_error(pytester, orders):
    pytester.makepyfile(
        test_lab="""
        from grader.testing import graded

        @graded(task="t", points=1)
        def test_counted():
            pass

        def test_forgotten():
            pass
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: test_lab.py::test_forgotten has no @graded(task, points) marker: every lab test counts"]
    )
    assert ProgressReader(orders).poll().collected is None  # the grader gets no list to score


def test_json_report_carries_each_graded_verdict(pytester, orders):
    pytester.makepyfile(
        test_units="""
        from grader.testing import graded

        @graded(task="t", points=2)
        def test_passes():
            pass

        @graded(task="u", points=0.5, hint="check the sign")
        def test_fails():
            assert False, "wrong sign"

        def test_plain():
            pass
        """
    )
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        *PLUGIN, "-p", "pytest_jsonreport.plugin", "--json-report", f"--json-report-file={report}"
    )
    result.assert_outcomes(passed=2, failed=1)
    entries = {t["nodeid"]: t for t in json.loads(report.read_text())["tests"]}
    assert entries["test_units.py::test_passes"]["metadata"] == {
        "labkit": {
            "task": "t",
            "points": 2,
            "tier": "visible",
            "verdict": {"outcome": "passed", "message": "", "hint": "", "line": None},
        }
    }
    assert entries["test_units.py::test_fails"]["metadata"] == {
        "labkit": {
            "task": "u",
            "points": 0.5,
            "tier": "visible",
            "verdict": {
                "outcome": "failed",
                "message": "wrong sign\nassert False",
                "hint": "check the sign",
                "line": None,  # the test's own assert: no line of the code under test
            },
        }
    }
    assert "labkit" not in entries["test_units.py::test_plain"].get("metadata", {})
    assert ProgressReader(orders).poll().finished  # the stream is written all the same


def test_plain_pytest_loads_the_plugin_through_its_entry_point(pytester, monkeypatch, orders):
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    pytester.makepyfile(
        test_units="""
        from grader.testing import graded

        @graded(task="t", points=3)
        def test_passes():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")  # no -p for the plugin: `labkit` loads it
    result.assert_outcomes(passed=1)
    reader = ProgressReader(orders).poll()
    assert reader.collected == [
        {"id": "test_passes", "nodeid": "test_units.py::test_passes", "task": "t", "points": 3, "tier": "visible"}
    ]
    assert reader.part.results["test_passes"]["outcome"] == "passed" and reader.finished


# -- the session's orders ------------------------------------------------------------------
@pytest.fixture
def no_orders(monkeypatch):
    for name in env.RUN_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_without_orders_the_session_grades_mine_in_process(no_orders):
    session = Session.from_environment()
    assert (session.impl, session.isolation, session.lab_id, session.limits) == ("mine", "in-process", None, None)
    assert (session.sandbox_level, session.progress, session.parent) == (None, None, None)
    assert session.queue is False
    assert session.cpu is None
    assert session.behind_the_wall is False
    assert (session.handles, session.selected, session.wall) == ([], None, None)


def test_the_session_reads_every_order(no_orders, tmp_path):
    orders = {
        env.IMPL_ENV: str(tmp_path / "alice.py"),
        env.ISOLATION_ENV: "worker",
        env.LAB_ENV: "ch06",
        env.LIMITS_ENV: '{"test_seconds": 2, "memory_mb": 512}',
        env.PARENT_ENV: "4242",
        env.PROGRESS_ENV: str(tmp_path / "progress.jsonl"),
        env.QUEUE_ENV: "1",
        env.SANDBOX_LEVEL_ENV: "kernel",
        env.TASK_ENV: "value",
        env.CPU_ENV: "1",
        env.TIMED_OUT_ENV: "1",
    }
    assert set(orders) == env.RUN_ENV  # a new variable of grader.env needs a line here
    for name, value in orders.items():
        no_orders.setenv(name, value)
    session = Session.from_environment()
    assert session.impl == str(tmp_path / "alice.py")
    assert session.isolation == "worker" and session.behind_the_wall is True
    assert session.lab_id == "ch06"
    assert session.limits == {"test_seconds": 2, "memory_mb": 512}
    assert session.parent == 4242
    assert session.progress == tmp_path / "progress.jsonl"
    assert session.queue is True
    assert session.sandbox_level == "kernel"
    assert session.task == "value"
    assert session.cpu == 1
    assert session.timed_out is True
    assert session.code_under_test_files() == {str((tmp_path / "alice.py").resolve())}


@pytest.mark.parametrize("name", sorted(env.RUN_ENV - {env.IMPL_ENV, env.ISOLATION_ENV}))
def test_an_empty_order_is_no_order(no_orders, name):
    no_orders.setenv(name, "")
    assert Session.from_environment() == Session()


def test_empty_impl_and_isolation_mean_the_defaults(no_orders):
    no_orders.setenv(env.IMPL_ENV, "")
    no_orders.setenv(env.ISOLATION_ENV, "")
    assert (Session.from_environment().impl, Session.from_environment().isolation) == ("mine", "in-process")


def test_the_ordered_limits_apply_to_the_runs_lab_only(no_orders):
    other = labs.get("lesson1_3")  # cached before the orders: what lab.toml says
    no_orders.setenv(env.LAB_ENV, "ch06")
    no_orders.setenv(env.LIMITS_ENV, '{"test_seconds": 2}')
    session = Session.from_environment()
    ch06 = session.lab("ch06")
    assert ch06.limits == {"test_seconds": 2}  # the grader's decision, whole: not merged again with lab.toml
    assert ch06.id == "ch06" and ch06.public == labs.get("ch06").public
    assert session.lab("lesson1_3") is other
    assert session.lab("06").limits == {"test_seconds": 2}  # the run's lab by any of its names
    no_orders.delenv(env.LIMITS_ENV)
    assert Session.from_environment().lab("ch06") is labs.get("ch06")


def test_which_files_are_the_code_under_test(no_orders):
    mine = Session(impl="mine").code_under_test_files()
    assert {str(labs.get("ch06").starter), str(labs.get("lesson1_3").starter)} <= mine
    assert {Path(p).name for p in mine} == {"starter.py"}  # every lab's starter, nothing else
    reference = Session(impl="ref").code_under_test_files()
    assert str(labs.REFERENCE_DIR / "ch06" / "tensor.py") in reference
    assert all(Path(p).suffix == ".py" and Path(p).is_relative_to(labs.REFERENCE_DIR) for p in reference)
    queued = Session(impl="ref", selected=Path("/q/../q/bob.py"))
    assert queued.code_under_test_files() == {"/q/bob.py"}  # a queue's current submission, whatever IMPL says


def test_a_queue_session_drops_the_reports_pytest_keeps_for_its_summary_after_each_submission():
    """pytest's terminal reporter keeps every report (three a test) for the summary the grader never reads:
    a job's session grew by about 0.3 MiB a student with them (71 MiB after 40 students, 63 MiB without)."""
    from types import SimpleNamespace

    from grader.harness import plugin

    reporter = SimpleNamespace(stats={"passed": [object()] * 270, "failed": [object()] * 3})
    config = SimpleNamespace(pluginmanager=SimpleNamespace(get_plugin={"terminalreporter": reporter}.get))
    plugin.drop_kept_reports(config)
    assert reporter.stats == {}
    plugin.drop_kept_reports(SimpleNamespace(pluginmanager=SimpleNamespace(get_plugin={}.get)))  # no reporter: nothing


@pytest.fixture
def sandbox_starts(no_orders, monkeypatch, tmp_path):
    """The orders of a run behind the wall of lesson1_3's starter; every sandbox started, in order."""
    from grader.wall import sandbox

    submission = tmp_path / "starter.py"
    submission.write_text((labs.get("lesson1_3").folder / "starter.py").read_text())
    no_orders.setenv(env.IMPL_ENV, str(submission))
    no_orders.setenv(env.ISOLATION_ENV, "worker")
    no_orders.setenv(env.LAB_ENV, "lesson1_3")
    started, start = [], sandbox.start

    def counting(*args, **kwargs):
        started.append(start(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(sandbox, "start", counting)
    yield started
    ahead.discard()
    for box in started:
        box.close()


def test_a_run_behind_the_wall_takes_the_sandbox_started_with_its_orders(sandbox_starts):
    ahead.start(os.environ)  # what grader.harness.main does with the orders, while pytest and numpy load
    assert len(sandbox_starts) == 1 and sandbox_starts[0].alive
    session = Session.from_environment()
    handle = handles.RemoteLab(session, "lesson1_3")  # what the plugin's configure makes (handles.under_test)
    try:
        assert handle.sandbox() is sandbox_starts[0]
        assert len(sandbox_starts) == 1  # none started again
        assert session.wall is not None and session.wall.box is sandbox_starts[0]
    finally:
        session.close()


def test_a_sandbox_started_for_other_limits_is_stopped_not_used(sandbox_starts, no_orders):
    ahead.start(os.environ)
    no_orders.setenv(env.LIMITS_ENV, json.dumps({**labs.get("lesson1_3").limits, "test_seconds": 3}))
    session = Session.from_environment()  # the orders it was not started with
    handle = handles.RemoteLab(session, "lesson1_3")
    try:
        assert len(sandbox_starts) == 2 and handle.sandbox() is sandbox_starts[1]
        assert not sandbox_starts[0].alive
    finally:
        session.close()


def test_a_sandbox_started_ahead_that_nobody_took_is_stopped(sandbox_starts):
    ahead.start(os.environ)
    ahead.discard()  # pytest stopped before its configure
    assert len(sandbox_starts) == 1 and not sandbox_starts[0].alive


def test_no_sandbox_starts_ahead_in_process(sandbox_starts, no_orders):
    no_orders.setenv(env.ISOLATION_ENV, "in-process")
    ahead.start(os.environ)
    assert sandbox_starts == []


def test_the_sandbox_starts_from_the_orders_without_numpy_or_pytest(tmp_path):
    """grader.harness.main starts it while another thread imports them: it must not wait for either."""
    submission = tmp_path / "starter.py"
    submission.write_text((labs.get("lesson1_3").folder / "starter.py").read_text())
    orders = {env.IMPL_ENV: str(submission), env.ISOLATION_ENV: "worker", env.LAB_ENV: "lesson1_3"}
    script = (
        "import sys\n"
        "from grader import labs\n"
        "from grader.harness import ahead\n"
        "from grader.limits import Limits\n"
        f"ahead.start({orders!r})\n"
        "lab = labs.get('lesson1_3')\n"
        "box = ahead.take(ahead.key(lab, Limits.from_lab(lab.limits), None))\n"
        "print(box.alive, sorted({'numpy', 'pytest'} & set(sys.modules)))\n"
        "box.close()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=labs.KIT_ROOT)
    assert done.stdout.splitlines() == ["True []"], done.stderr


def test_a_session_that_cannot_start_says_why_not_that_it_has_no_stream(pytester, monkeypatch, orders):
    """A failure in the plugin's configure (here an unknown lab behind the wall) is what the output shows:
    pytest still unconfigures the plugin, which once failed again on the stream it never opened (a KeyError)."""
    pytester.makepyfile(test_units="def test_x():\n    pass\n")
    monkeypatch.setenv(env.ISOLATION_ENV, "worker")
    monkeypatch.setenv(env.LAB_ENV, "nope")
    result = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider")
    output = result.stdout.str() + result.stderr.str()
    assert "unknown lab 'nope'" in output
    assert "KeyError" not in output

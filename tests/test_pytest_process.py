"""The pytest process started ahead of time: taken when it can grade the run, never when it
cannot, gone when no one needs it; and a grading process that ends as soon as its tests do."""

import os
import subprocess
import sys
import time

import pytest

from grader import labs
from grader.env import IMPL_ENV, QUEUE_ENV, RUN_ENV
from grader.grading import pytest_process, runner
from grader.implementation import Implementation

pytestmark = pytest.mark.real_processes  # how the product starts its pytest processes (tests/forked_grading.py)


@pytest.fixture
def spawned(monkeypatch):
    """Every process pytest_process starts, in order."""
    started = []
    spawn = pytest_process.spawn

    def counting(env):
        proc = spawn(env)
        started.append(proc)
        return proc

    monkeypatch.setattr(pytest_process, "spawn", counting)
    yield started
    pytest_process.discard_spare()  # a test that failed half-way leaves no spare to the next


def _reference_run(lab_id="lesson1_3"):
    lab = labs.get(lab_id)
    return runner.run_tests(lab, Implementation.parse("ref", lab))


def _passed(run):
    return all(r.outcome == "passed" for r in run.results)


def test_a_run_takes_the_spare_instead_of_starting_a_process(spawned):
    pytest_process.prestart()
    assert len(spawned) == 1
    assert _passed(_reference_run())
    assert len(spawned) == 1 and spawned[0].returncode == 0


def test_a_spare_started_in_another_environment_is_not_used_and_leaves(spawned, monkeypatch):
    pytest_process.prestart()
    monkeypatch.setenv("LABKIT_TEST_SOMETHING_ELSE", "1")  # read at start-up, for all the spare knows
    assert _passed(_reference_run())
    assert len(spawned) == 2
    assert spawned[0].wait(timeout=60) == 0  # its orders' pipe closed: it left without grading


def test_a_spare_that_died_is_replaced(spawned):
    pytest_process.prestart()
    spawned[0].kill()
    spawned[0].wait()
    assert _passed(_reference_run())
    assert len(spawned) == 2


def test_variables_a_run_is_told_by_never_come_from_the_graders_own_environment(monkeypatch):
    # A shell's IMPL, or a queue's order left in the environment, must not change what a run grades.
    monkeypatch.setenv(IMPL_ENV, "mine")
    monkeypatch.setenv(QUEUE_ENV, "1")
    assert not RUN_ENV & set(pytest_process.base_env())
    assert _passed(_reference_run())


def test_its_kit_root_is_the_labs():
    assert str(labs.KIT_ROOT) == pytest_process.KIT_ROOT  # it avoids importing grader.labs to start sooner


def test_a_grader_that_stops_early_leaves_no_pytest_process(tmp_path):
    marker = f"labkit-test-{os.getpid()}-{time.monotonic_ns()}"
    env = dict(os.environ, LABKIT_TEST_MARKER=marker)
    done = subprocess.run(
        [sys.executable, "-m", "grader", "run", "--lab", "nosuch"], cwd=labs.KIT_ROOT, env=env, capture_output=True
    )
    assert done.returncode == 2
    deadline = time.monotonic() + 60
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []


def _processes_with(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker.encode() in f.read():
                    found.append(pid)
        except OSError:  # gone, or not ours to read
            pass
    return found


LINGERING = """
import atexit, threading, time


def test_leaves_a_thread_and_an_atexit_hook():
    threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
    atexit.register(time.sleep, 3600)
"""


def test_code_under_test_cannot_hold_the_process_open_after_its_tests(tmp_path):
    # A forgotten thread or atexit hook in a student's own code, graded in-process: the process
    # ends with its tests (before os._exit, the interpreter waited for both, for an hour).
    assert "1 passed" in _passing_run(tmp_path, "lingering_check.py", LINGERING)


def _passing_run(tmp_path, name: str, source: str) -> str:
    """What a grading pytest process printed running the test file ``source``, all of whose tests must pass."""
    (tmp_path / name).write_text(source)
    args = [str(tmp_path / name), "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path)]
    proc = pytest_process.start(args, pytest_process.base_env(), tmp_path / "out.txt")
    try:
        assert proc.wait(timeout=120) == 0, (tmp_path / "out.txt").read_text()
    finally:
        proc.kill()
    return (tmp_path / "out.txt").read_text()


def test_a_process_that_cannot_import_pytest_or_numpy_says_so_in_its_output(tmp_path):
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "numpy.py").write_text("raise ImportError('a numpy broken on purpose')\n")
    env = dict(pytest_process.base_env(), PYTHONPATH=str(shadow))
    proc = pytest_process.start(["--version"], env, tmp_path / "out.txt")
    assert proc.wait(timeout=120) != 0
    output = (tmp_path / "out.txt").read_text()
    assert "could not import pytest and numpy" in output and "a numpy broken on purpose" in output


BLAS_CHECK = """
import os


def test_one_blas_thread():
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    import numpy as np

    assert np.__config__.CONFIG["Build Dependencies"]["blas"]["openblas configuration"].startswith("OpenBLAS")
    threads = os.listdir("/proc/self/task")
    assert len(threads) == 1, threads  # OpenBLAS starts a thread per core unless told one
"""


def test_a_grading_process_starts_with_one_blas_thread_whatever_the_graders_environment(tmp_path, monkeypatch):
    """As the worker behind the wall does: the same arithmetic in both modes, and no BLAS threads to start."""
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    assert pytest_process.base_env()["OPENBLAS_NUM_THREADS"] == "1"
    assert "1 passed" in _passing_run(tmp_path, "blas_check.py", BLAS_CHECK)

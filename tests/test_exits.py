"""grader.exits: a process's exit seen when it happens, with a plain wait where there is no pidfd."""

import os
import subprocess
import sys

import pytest

from grader import exits


@pytest.fixture(params=["pidfd", "polling"])
def way(request, monkeypatch):
    if request.param == "polling":  # an older kernel, or not Linux
        monkeypatch.delattr(os, "pidfd_open")
    return request.param


def _python(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code])


def test_an_exit_within_the_time_gives_its_status(way):
    proc = _python("import sys; sys.exit(3)")
    assert exits.wait(proc, 60) == 3
    assert proc.returncode == 3  # reaped


def test_a_process_still_running_gives_none_and_is_left_running(way):
    proc = _python("import time; time.sleep(60)")
    try:
        assert exits.wait(proc, 0.2) is None
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_a_process_already_reaped_gives_its_status_again(way):
    proc = _python("pass")
    proc.wait()
    assert exits.wait(proc, 0) == 0


def test_a_process_killed_gives_the_signal_as_popen_does(way):
    proc = _python("import time; time.sleep(60)")
    proc.kill()
    assert exits.wait(proc, 60) == -9

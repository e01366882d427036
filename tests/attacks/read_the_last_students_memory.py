# A ch06 "student" graded right after another in one sandbox (a batch job), with the worker's Python
# guards off. It reads its own memory, as any process may (/proc/self/maps and numpy's view of an address,
# no file of anyone else's, no system call the kernel refuses), for text of the file graded before it:
# a security review's found the last student's docstrings, constants and names there, left in the memory of
# the zygote that compiled every file and forked every child. tests/test_sandbox_kernel.py fills in the mark's
# two halves: this file's text never holds it whole, its memory holds it as its own search (counted alike
# after any file).
import json

import numpy as np

MARK = "@FIRST_HALF@" + "@SECOND_HALF@"


class _Memory:
    """An address range as numpy sees an array: no copy, no system call."""

    def __init__(self, start, size):
        self.__array_interface__ = {"data": (start, True), "shape": (size,), "typestr": "|u1", "version": 3}


def _readable_regions():
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            span, perms, name = fields[0], fields[1], fields[5] if len(fields) > 5 else ""
            if perms[0] != "r" or name in ("[vvar]", "[vvar_vclock]", "[vsyscall]") or name.startswith("/dev/"):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            yield start, end - start


def find():
    wanted = MARK.encode()
    found = 0
    for start, size in _readable_regions():
        found += np.asarray(_Memory(start, size)).tobytes().count(wanted)
    return {"found": found}


def Value(*args):  # the name the lab's tests look for: calling it runs the search
    return json.dumps(find())

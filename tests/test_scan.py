"""The static scan of a submission (grader.grading.scan): every kind of flag it raises, with its
code, line and words; what it leaves alone (honest engines, the kit's own starters and
references); and what it does with files that do not parse, are not UTF-8 or are not there.

The flags go into the report for an instructor to read, so each case asserts the whole
list of flags as a person would see it, not just that some flag was raised."""

import pytest

from grader import labs
from grader.grading import scan
from grader.grading.scan import Flag, scan_file, scan_source

ALLOWED = ("math", "numpy")  # what ch06 and lesson1_3 allow


def flags(source: str, allowed=ALLOWED) -> list[tuple[str, int, str]]:
    return [(f.code, f.line, f.message) for f in scan_source(source, allowed)]


def not_allowed(line: int, what: str) -> tuple[str, int, str]:
    return ("disallowed-import", line, f"imports {what}, which this lab does not allow")


# One small source per thing the scanner looks for, and exactly the flags it must raise.
CASES = {
    # -- imports against the lab's allow-list ----------------------------------------------------
    "import os\n": [not_allowed(1, "os")],
    "import os.path\n": [not_allowed(1, "os.path")],
    "import math, subprocess as sp\n": [not_allowed(1, "subprocess")],
    "from os import path\n": [not_allowed(1, "from os")],
    "from importlib import import_module\n": [not_allowed(1, "from importlib")],
    "import importlib\nimportlib.import_module('os')\n": [not_allowed(1, "importlib")],
    "from . import helper\n": [not_allowed(1, "from .")],
    "from ..engine import Value\n": [not_allowed(1, "from ..engine")],
    "from .numpy import array\n": [not_allowed(1, "from .numpy")],  # relative: not the allowed numpy
    # -- code the scan cannot see ----------------------------------------------------------------
    "eval('1')\n": [("dynamic-code", 1, "uses eval, which runs code the scan cannot see")],
    "exec('x = 1')\n": [("dynamic-code", 1, "uses exec, which runs code the scan cannot see")],
    "c = compile('1', 'f', 'eval')\n": [("dynamic-code", 1, "uses compile, which runs code the scan cannot see")],
    "m = __import__('os')\n": [("dynamic-code", 1, "uses __import__, which runs code the scan cannot see")],
    "f = eval\n": [("dynamic-code", 1, "uses eval, which runs code the scan cannot see")],  # named, not called
    # -- files -----------------------------------------------------------------------------------
    "open('/etc/passwd')\n": [("file-access", 1, "opens files")],
    "import numpy as np\nw = np.load('w.npy')\n": [("file-access", 2, "uses .load, which reads or writes files")],
    "import numpy as np\nnp.savetxt('out.txt', [1])\n": [
        ("file-access", 2, "uses .savetxt, which reads or writes files")
    ],
    "f(3, dir_fd=4)\n": [("file-access", 1, "uses dir_fd, a way around path checks")],
    # -- a person at the keyboard, or leaving early -----------------------------------------------
    "x = input()\n": [("interactive", 1, "calls input(), which waits for a person")],
    "breakpoint()\n": [("interactive", 1, "calls breakpoint(), which waits for a person")],
    "exit(0)\n": [("exit", 1, "uses exit")],
    "quit()\n": [("exit", 1, "uses quit")],
    "raise SystemExit(3)\n": [("exit", 1, "uses SystemExit")],
    "import sys\nsys.exit(1)\n": [not_allowed(1, "sys"), ("exit", 2, "calls .exit()")],
    # -- introspection and the dunder ways around the sandbox --------------------------------------
    "g = globals()\n": [("introspection", 1, "uses globals()")],
    "v = vars()\n": [("introspection", 1, "uses vars()")],
    "b = __builtins__\n": [("introspection", 1, "uses __builtins__")],
    "s = __spec__\n": [("introspection", 1, "uses __spec__")],
    "().__class__.__base__.__subclasses__()\n": [
        ("introspection", 1, "reaches for .__subclasses__, a way around the sandbox")
    ],
    "def f():\n    pass\n\n\nf.__globals__\n": [
        ("introspection", 5, "reaches for .__globals__, a way around the sandbox")
    ],
    "import math\nimp = math.__loader__\n": [("introspection", 2, "reaches for .__loader__, a way around the sandbox")],
    "import math\nmath.__builtins__\n": [("introspection", 2, "reaches for .__builtins__, a way around the sandbox")],
    "import math\nmath.__import__\n": [("introspection", 2, "reaches for .__import__, a way around the sandbox")],
    "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame.f_back\n": [
        ("introspection", 4, "reaches for .f_back, a way around the sandbox"),
        ("introspection", 4, "reaches for .tb_frame, a way around the sandbox"),
        ("introspection", 4, "reaches for .__traceback__, a way around the sandbox"),
    ],
    # the same frames reached by names the scan must read in a string, or cannot (a security review's)
    "def up(tb):\n    return getattr(tb, 'tb_frame')\n": [
        ("introspection", 2, "reaches for .tb_frame, a way around the sandbox")
    ],
    "def up(frame):\n    return getattr(frame, 'f' + '_back')\n": [
        ("introspection", 2, "calls getattr() with a name made at run time")
    ],
    "def patch(loops, name, f):\n    setattr(loops, name, f)\n": [
        ("introspection", 2, "calls setattr() with a name made at run time")
    ],
    "def read(t):\n    return getattr(t, 'data', None)\n": [],  # a name written out, and no way around anything
    "import sys\nframe = sys._getframe()\n": [
        not_allowed(1, "sys"),
        ("introspection", 2, "reaches for ._getframe, a way around the sandbox"),
    ],
    "import sys\nm = sys.modules\n": [not_allowed(1, "sys"), ("introspection", 2, "uses sys.modules")],
    "import numpy as np\nm = np.sys.modules\n": [("introspection", 2, "uses sys.modules")],  # reached through numpy
    # -- the environment and other processes --------------------------------------------------------
    "import os\nhome = os.environ['HOME']\n": [
        not_allowed(1, "os"),
        ("environment", 2, "reads or writes the environment (.environ)"),
    ],
    "import os\nt = os.getenv('TOKEN')\n": [
        not_allowed(1, "os"),
        ("environment", 2, "reads or writes the environment (.getenv)"),
        ("suspicious-string", 2, "mentions 'TOKEN', which a lab submission has no use for"),
    ],
    "import numpy as np\nnp.lib.os.environ\n": [("environment", 2, "reads or writes the environment (.environ)")],
    "import numpy as np\nnp.lib.os.system('sh')\n": [
        ("process", 2, "calls .system, which starts, stops or replaces processes")
    ],
    "import numpy as np\nnp.lib.os._exit(0)\n": [
        ("process", 2, "calls ._exit, which starts, stops or replaces processes")
    ],
    # -- patching a module for everyone ---------------------------------------------------------
    "import numpy as np\nnp.allclose = lambda *a, **k: True\n": [
        ("monkeypatch", 2, "assigns np.allclose, changing a module for everyone")
    ],
    "import math\nmath.pi += 1\n": [("monkeypatch", 2, "assigns math.pi, changing a module for everyone")],
    "import numpy as np\nnp.testing.assert_allclose = print\n": [
        ("monkeypatch", 2, "assigns np.testing.assert_allclose, changing a module for everyone")
    ],
    "import numpy as np\ninner = np.core.numeric\ninner.isclose = max\n": [
        ("monkeypatch", 3, "assigns inner.isclose, changing a module for everyone")  # a name for a module's insides
    ],
    "import numpy as np\nsetattr(np, 'allclose', None)\n": [("monkeypatch", 2, "setattr() on the module np")],
    "delattr(builtins, 'len')\n": [("monkeypatch", 1, "delattr() on the module builtins")],
    # -- strings that only make sense to someone gaming the grader ----------------------------------
    "x = 'GITHUB_OUTPUT'\n": [("suspicious-string", 1, "mentions 'GITHUB_', which a lab submission has no use for")],
    "print('Total: 100/100  (76 passed)')\n": [
        ("suspicious-string", 1, "mentions 'Total:', which a lab submission has no use for")  # the first one only
    ],
    "raise ValueError('the gradient passed to backward() has the wrong shape')\n": [],  # a sentence, no count
    "n = 3\nx = f'{n} passed'\n": [
        ("suspicious-string", 2, "mentions ' passed', which a lab submission has no use for")
    ],
    "p = '/proc/self/environ'\n": [
        ("suspicious-string", 1, "mentions '/proc/', which a lab submission has no use for")
    ],
    "p = 'labs/ch06/test_lab.py'\n": [
        ("suspicious-string", 1, "mentions 'test_lab', which a lab submission has no use for")
    ],
}


@pytest.mark.parametrize("source", list(CASES))
def test_each_trick_raises_its_flag(source):
    assert flags(source) == CASES[source]


def test_flags_are_sorted_by_line_then_code_and_said_once_per_line():
    source = "x = eval(eval('1'))\nimport os\nopen(os.environ)\n"
    assert flags(source) == [
        ("dynamic-code", 1, "uses eval, which runs code the scan cannot see"),  # twice on line 1: said once
        not_allowed(2, "os"),
        ("environment", 3, "reads or writes the environment (.environ)"),
        ("file-access", 3, "opens files"),
    ]


def test_the_same_trick_on_two_lines_is_two_flags():
    assert flags("eval('1')\neval('2')\n") == [
        ("dynamic-code", 1, "uses eval, which runs code the scan cannot see"),
        ("dynamic-code", 2, "uses eval, which runs code the scan cannot see"),
    ]


def test_the_allow_list_is_the_labs():
    assert flags("import os\nimport json\n", allowed=["os", "json"]) == []
    assert flags("import numpy\n", allowed=[]) == [not_allowed(1, "numpy")]
    assert flags("import numpy\n", allowed=["numpy.linalg"]) == [not_allowed(1, "numpy")]  # top-level names only


def test_a_flag_is_a_plain_record():
    (flag,) = scan_source("import os\n", ALLOWED)
    assert flag == Flag("disallowed-import", 1, "imports os, which this lab does not allow")
    assert flag.as_dict() == {
        "code": "disallowed-import",
        "line": 1,
        "message": "imports os, which this lab does not allow",
    }


HONEST = '''"""An honest scalar engine: math for the scalar functions, numpy for arrays."""

import math

import numpy as np
from numpy.linalg import norm


class Value:
    """A scalar that remembers how it was computed."""

    def __init__(self, data, _parents=()):
        self.data = float(data)
        self.grad = 0.0
        self._parents = _parents
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,))

        def backward():
            self.grad += (1 - t**2) * out.grad

        out._backward = backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for p in v._parents:
                    visit(p)
                order.append(v)

        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()


def numerical_grad(f, x, eps=1e-6):
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = f(x)
        x[i] = old - eps
        down = f(x)
        x[i] = old
        g[i] = (up - down) / (2 * eps)
    return g


def size(g):
    return float(norm(g))


if __name__ == "__main__":
    print(Value(2.0).tanh().data)
'''


def test_an_honest_engine_raises_no_flag():
    assert flags(HONEST) == []


PUBLICS = {lab.id: lab.public for lab in labs.discover().values()}


@pytest.mark.parametrize("lab_id", ["ch06", "lesson1_3"])
def test_the_kits_own_starters_and_reference_modules_raise_no_flag(lab_id):
    lab = labs.get(lab_id)
    assert scan_file(lab.starter, lab.allowed_imports) == []
    assert scan_file(lab.starter, lab.allowed_imports, lab_id, PUBLICS) == []  # its own lab's file
    modules = [p for p in sorted(lab.reference_dir.glob("*.py")) if p.name != "__init__.py"]
    assert modules, f"no reference modules for {lab_id}"
    found = {p.name: [f.as_dict() for f in scan_file(p, lab.allowed_imports)] for p in modules}
    # the reference is a package: its modules import each other relatively, which a single-file
    # submission may not; nothing else in it is a flag
    assert {name: [f for f in fl if not f["message"].startswith("imports from .")] for name, fl in found.items()} == {
        name: [] for name in found
    }


def test_the_scan_is_by_name_so_an_honest_list_remove_reads_as_file_access():
    # The scan cannot know types: `.remove`, `.replace` and `.load` are flagged wherever they
    # appear, so an honest submission can carry file-access flags (which never change the score).
    assert flags("seen = [1, 2]\nseen.remove(1)\nname = 'a'.replace('a', 'b')\n") == [
        ("file-access", 2, "uses .remove, which reads or writes files"),
        ("file-access", 3, "uses .replace, which reads or writes files"),
    ]
    assert flags("class A:\n    pass\n\n\nA.load = 1\n") == []  # storing to such a name is not a use


@pytest.mark.parametrize(
    "source",
    ["def broken(:\n    pass\n", "import os\nx = (\n", "import os\n\x00\n", "import os\n    indented = 1\n"],
)
def test_a_source_that_does_not_parse_gets_no_flag(source):
    # its SyntaxError is the verdict; flags would point at lines of a file that is not Python
    assert scan_source(source, ALLOWED) == []


def test_scan_file_reads_utf8(tmp_path):
    path = tmp_path / "sub.py"
    path.write_text("# café: ünïcode is fine\nimport os\n", encoding="utf-8")
    assert [(f.code, f.line) for f in scan_file(path, ALLOWED)] == [("disallowed-import", 2)]


def test_scan_file_reads_a_declared_encoding_as_python_does(tmp_path):
    path = tmp_path / "latin1.py"
    # caf\xe9 is an identifier: read as UTF-8 with replacement characters, the file would not parse
    path.write_bytes(b"# -*- coding: latin-1 -*-\ncaf\xe9 = 'cr\xe8me'\nimport os\n")
    assert [(f.code, f.line, f.message) for f in scan_file(path, ALLOWED)] == [not_allowed(3, "os")]


@pytest.mark.parametrize(
    "data",
    [b"# caf\xe9 in latin-1, undeclared\nimport os\n", b"import os\n\xff\xfe = 1\n", b"import os\n\x00\n", b""],
    ids=["not-utf8", "not-utf8-either", "binary", "empty"],
)
def test_scan_file_gives_no_flag_for_a_file_intake_refuses(tmp_path, data):
    # its refusal is the verdict, as a SyntaxError is
    path = tmp_path / "refused.py"
    path.write_bytes(data)
    assert scan_file(path, ALLOWED) == []


def test_scan_file_gives_no_flag_for_a_missing_file_or_a_folder(tmp_path):
    assert scan_file(tmp_path / "absent.py", ALLOWED) == []
    assert scan_file(tmp_path, ALLOWED) == []


def test_a_file_nested_deeper_than_the_parser_goes_is_flagged_not_fatal():
    deep = "x = " + "a + " * 3000 + "a\n"  # Python's parser raises RecursionError on it
    assert scan_source(deep, ["numpy"]) == [
        Flag("unscanned", 1, "nests expressions too deeply for the static scan to read: nothing in it was scanned")
    ]


@pytest.mark.parametrize(
    "graded_as, starter_of, expected",
    [
        ("ch06", "ch06", []),
        ("lesson1_3", "lesson1_3", []),
        (
            "ch06",
            "lesson1_3",
            [
                (
                    "another-lab",
                    1,
                    "looks like lab lesson1_3's file: it defines 6 of lab lesson1_3's 6 names and 1 of lab ch06's 5; "
                    "was it meant for lab lesson1_3?",
                )
            ],
        ),
        (
            "lesson1_3",
            "ch06",
            [
                (
                    "another-lab",
                    1,
                    "looks like lab ch06's file: it defines 5 of lab ch06's 5 names and 1 of lab lesson1_3's 6; "
                    "was it meant for lab ch06?",
                )
            ],
        ),
    ],
)
def test_another_labs_file_is_flagged_with_whose_it_looks_like(graded_as, starter_of, expected):
    source = labs.get(starter_of).starter.read_text(encoding="utf-8")
    found = scan_source(source, ALLOWED, graded_as, PUBLICS)
    assert [(f.code, f.line, f.message) for f in found] == expected
    assert scan_source(source, ALLOWED) == []  # no lab given: no such question asked


def test_a_file_with_few_of_any_labs_names_is_not_said_to_be_another_labs():
    own_work = "class Value:\n    pass\n\n\ndef fit_line(xs, ys):\n    return 0.0, 0.0\n"  # 1 of 5, 2 of 6
    assert scan_source(own_work, ALLOWED, "ch06", PUBLICS) == []


def test_a_file_of_many_flags_lists_some_of_each_and_counts_the_rest():
    """A security review: a 1 MiB file of `open` under `if 0:` made 172,178 flags (16 MB in each record and
    report, 1.45 GB in the batch that graded four such files)."""
    source = "if 0:\n" + "    open\n" * 5000 + "    eval\n"
    flags = scan_source(source, ["math", "numpy"])
    by_code = {}
    for flag in flags:
        by_code.setdefault(flag.code, []).append(flag)
    opened = by_code.pop(next(code for code in by_code if len(by_code[code]) > 1))
    assert len(opened) == scan.FLAGS_OF_A_KIND + 1
    assert opened[-1].message == "and 4980 more like it from this line on (not listed)" and opened[-1].line == 22
    assert [len(rest) for rest in by_code.values()] == [1]  # the other code, once

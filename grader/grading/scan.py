"""A static scan of a submission: what the lab's allow-list forbids, the tricks used to escape,
and whether the file is another lab's.

The scan never runs the file. Its findings are flags in the report, for an instructor
to review; they do not change the score (what the wall blocks simply fails). A file that
looks like another lab's is still graded (the labs share names such as ``Value``, and what
passes earns its points), and the flag says whose it looks like, in the words the batch's
reasons use (grader.verdicts.looks_like_lab).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from grader import intake, parsing, verdicts
from grader.verdicts import SubmissionError

DYNAMIC_CODE = {"eval", "exec", "compile", "__import__"}
INTERACTIVE = {"input", "breakpoint", "help"}
EXITS = {"exit", "quit"}
INTROSPECTION_NAMES = {"globals", "locals", "vars"}
ESCAPE_ATTRIBUTES = {
    "__subclasses__",
    "__globals__",
    "__builtins__",
    "__code__",
    "__closure__",
    "__bases__",
    "__mro__",
    "__loader__",
    "__spec__",
    "__import__",
    "f_globals",
    "f_locals",
    "f_back",
    "f_builtins",
    "gi_frame",
    "tb_frame",
    "co_code",
    "_getframe",
    "__traceback__",  # an exception's way to the frames that called in: the worker's own code
    "cr_frame",
    "ag_frame",
}
# Reading, writing or testing an attribute by a name held in a string: the scan reads the name if it is
# written out, and flags one made at run time ("tb" + "_frame"), which it cannot read.
ATTRIBUTE_FUNCTIONS = ("getattr", "setattr", "delattr", "hasattr")
FILE_ATTRIBUTES = {
    "open", "mkdir", "makedirs", "mkfifo", "mknod", "remove", "unlink", "rename", "replace", "truncate",
    "rmdir", "chmod", "chown", "symlink", "link", "loadtxt", "genfromtxt", "fromfile", "load", "memmap",
    "save", "savez", "savez_compressed", "savetxt", "tofile", "listdir", "scandir", "walk",
}  # fmt: skip
# pytest's count of passed tests (" passed)", " passed in 0.4s", f"{n} passed"), not the word in a sentence
# ("the gradient passed to backward()", which an honest engine's error message may say).
PASSED_COUNT = re.compile(r" passed(?!\s+(?!in\b)[a-z])")
SUSPICIOUS_STRINGS = (
    "Total:",
    "PASSED",
    "GITHUB_",
    "ACTIONS_",
    "RUNNER_",
    "TOKEN",
    "conftest",
    "pytest.ini",
    "sitecustomize",
    "test_lab",
    "test_hidden",
    "reference/",
    "reference.",
    "labkit",
    "/proc/",
    ".ssh",
    "results.json",
    "report.json",
)


FLAGS_OF_A_KIND = 20  # listed of each code; the rest are counted in one more
UNSCANNED = "nests expressions too deeply for the static scan to read: nothing in it was scanned"


@dataclass(frozen=True)
class Flag:
    code: str
    line: int
    message: str

    def as_dict(self) -> dict:
        return asdict(self)


class _Scanner(ast.NodeVisitor):
    def __init__(self, allowed: set[str]):
        self.allowed = allowed
        self.flags: list[Flag] = []
        self.module_aliases: set[str] = set()

    def flag(self, code: str, node: ast.AST, message: str) -> None:
        self.flags.append(Flag(code, getattr(node, "lineno", 0), message))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            self.module_aliases.add((alias.asname or alias.name).split(".")[0])
            if top not in self.allowed:
                self.flag("disallowed-import", node, f"imports {alias.name}, which this lab does not allow")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".")[0]
        if node.level or top not in self.allowed:
            name = "." * node.level + (node.module or "")
            self.flag("disallowed-import", node, f"imports from {name}, which this lab does not allow")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in DYNAMIC_CODE:
            self.flag("dynamic-code", node, f"uses {node.id}, which runs code the scan cannot see")
        elif node.id == "open":
            self.flag("file-access", node, "opens files")
        elif node.id in INTERACTIVE:
            self.flag("interactive", node, f"calls {node.id}(), which waits for a person")
        elif node.id in EXITS or node.id == "SystemExit":
            self.flag("exit", node, f"uses {node.id}")
        elif node.id in INTROSPECTION_NAMES:
            self.flag("introspection", node, f"uses {node.id}()")
        elif node.id in ("__builtins__", "__loader__", "__spec__"):
            self.flag("introspection", node, f"uses {node.id}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == "exit":
            self.flag("exit", node, "calls .exit()")
        elif node.attr in FILE_ATTRIBUTES and not isinstance(node.ctx, ast.Store):
            self.flag("file-access", node, f"uses .{node.attr}, which reads or writes files")
        elif node.attr == "modules" and isinstance(node.value, ast.Attribute) and node.value.attr == "sys":
            self.flag("introspection", node, "uses sys.modules")
        if node.attr in ESCAPE_ATTRIBUTES:
            self.flag("introspection", node, f"reaches for .{node.attr}, a way around the sandbox")
        elif node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys":
            self.flag("introspection", node, "uses sys.modules")
        elif node.attr in ("environ", "getenv", "putenv"):
            self.flag("environment", node, f"reads or writes the environment (.{node.attr})")
        elif node.attr in ("system", "popen", "fork", "kill", "_exit", "spawnv", "execv"):
            self.flag("process", node, f"calls .{node.attr}, which starts, stops or replaces processes")
        self.generic_visit(node)

    def _patched_module(self, target: ast.AST) -> str | None:
        base = target
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(target, ast.Attribute) and isinstance(base, ast.Name) and base.id in self.module_aliases:
            return ast.unparse(target)
        return None

    def _rooted_in_module(self, value: ast.AST) -> bool:
        while isinstance(value, (ast.Attribute, ast.Subscript)):
            value = value.value
        return isinstance(value, ast.Name) and value.id in self.module_aliases

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, (ast.Attribute, ast.Subscript)) and self._rooted_in_module(node.value):
            # a name for a module's insides (np.core.numeric.builtins) patches as much as the module
            self.module_aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for target in node.targets:
            patched = self._patched_module(target)
            if patched:
                self.flag("monkeypatch", node, f"assigns {patched}, changing a module for everyone")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        patched = self._patched_module(node.target)
        if patched:
            self.flag("monkeypatch", node, f"assigns {patched}, changing a module for everyone")
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg == "dir_fd":
            self.flag("file-access", node, "uses dir_fd, a way around path checks")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") and node.args:
            first = node.args[0]
            if isinstance(first, ast.Name) and first.id in self.module_aliases | {"builtins", "__builtins__"}:
                self.flag("monkeypatch", node, f"{node.func.id}() on the module {first.id}")
        if isinstance(node.func, ast.Name) and node.func.id in ATTRIBUTE_FUNCTIONS and len(node.args) >= 2:
            name = node.args[1]
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                self.flag("introspection", node, f"calls {node.func.id}() with a name made at run time")
            elif name.value in ESCAPE_ATTRIBUTES:
                self.flag("introspection", node, f"reaches for .{name.value}, a way around the sandbox")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            hits = [s for s in SUSPICIOUS_STRINGS if s in node.value]
            if PASSED_COUNT.search(node.value):
                hits.append(" passed")
            if hits:
                self.flag("suspicious-string", node, f"mentions {hits[0]!r}, which a lab submission has no use for")


def scan_source(
    source: str, allowed_imports, lab_id: str | None = None, publics: Mapping[str, Iterable[str]] | None = None
) -> list[Flag]:
    """The flags for ``source``; a file that does not parse gets none (its error is reported instead).

    Given the lab graded (``lab_id``) and every lab's public names (``publics``), a file that looks
    like another lab's is flagged too."""
    scanner = _Scanner(set(allowed_imports))
    try:
        tree = parsing.parsed(source)
        scanner.visit(tree)
    except (SyntaxError, ValueError):
        return []
    except (RecursionError, MemoryError):  # nested deeper than the parser (or this visitor) can follow
        return [
            Flag("unscanned", 1, "nests expressions too deeply for the static scan to read: nothing in it was scanned")
        ]
    unique = {(f.code, f.line, f.message): f for f in scanner.flags}
    flags = _at_most_some_of_each(sorted(unique.values(), key=lambda f: (f.line, f.code)))
    if lab_id is not None and publics:
        flags += _another_lab(names_bound(tree), lab_id, publics)
    return flags


def _at_most_some_of_each(flags: list[Flag]) -> list[Flag]:
    """The first FLAGS_OF_A_KIND flags of each code, and one that counts the rest: a review's 1 MiB file of
    `open` under `if 0:` made 172,178 flags, 16 MB in each record and report and 1.45 GB in the batch."""
    kept, left_out, counted = [], {}, Counter()
    for flag in flags:
        counted[flag.code] += 1
        if counted[flag.code] <= FLAGS_OF_A_KIND:
            kept.append(flag)
        else:
            left_out.setdefault(flag.code, []).append(flag)
    for code, rest in left_out.items():
        kept.append(Flag(code, rest[0].line, f"and {len(rest)} more like it from this line on (not listed)"))
    return kept


def scan_file(
    path: Path, allowed_imports, lab_id: str | None = None, publics: Mapping[str, Iterable[str]] | None = None
) -> list[Flag]:
    """The flags for the file, read as intake reads it; one intake refuses gets none (its report says why)."""
    try:
        source = intake.read(path).text
    except SubmissionError:
        return []
    return scan_source(source, allowed_imports, lab_id, publics)


# -- whose lab's file -----------------------------------------------------------------------
LOOKS_LIKE_SHARE = 0.5  # another lab's file defines at least half of that lab's names


def _bodies(node: ast.AST) -> Iterable[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        yield getattr(node, name, [])
    for handler in getattr(node, "handlers", []):
        yield handler.body
    for case in getattr(node, "cases", []):
        yield case.body


def _bound(target: ast.AST) -> Iterable[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound(element)
    elif isinstance(target, ast.Starred):
        yield from _bound(target.value)


def names_bound(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level (also inside a top-level if, try, with or for).
    What ``exec`` or ``globals()`` would add is not seen."""
    names: set[str] = set()
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
        elif isinstance(node, ast.Assign):
            names |= {n for target in node.targets for n in _bound(target)}
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            names |= set(_bound(node.target))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            names |= {n for item in node.items if item.optional_vars for n in _bound(item.optional_vars)}
        for body in _bodies(node):
            todo.extend(body)
    return names


def looks_like(names: set[str], lab_id: str, publics: Mapping[str, Iterable[str]]) -> str | None:
    """The other lab whose file this seems to be: the one whose public names ``names`` cover the
    largest share of, if that share is at least half and larger than ``lab_id``'s own."""

    def share(lab: str) -> float:
        public = set(publics[lab])
        return len(public & names) / len(public) if public else 0.0

    own = share(lab_id)
    best = max(sorted(lab for lab in publics if lab != lab_id), key=share, default=None)
    if best is not None and share(best) >= LOOKS_LIKE_SHARE and share(best) > own:
        return best
    return None


def _another_lab(names: set[str], lab_id: str, publics: Mapping[str, Iterable[str]]) -> list[Flag]:
    other = looks_like(names, lab_id, publics)
    if other is None:
        return []
    theirs, own = set(publics[other]), set(publics[lab_id])
    said = verdicts.another_labs_file(lab_id, other, (len(theirs & names), len(theirs)), (len(own & names), len(own)))
    return [Flag("another-lab", 1, said)]

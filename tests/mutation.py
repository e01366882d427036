"""Mutants: realistic student bugs, written as small edits of a lab's reference.

Each lab's catalogue is ``MUTANTS`` in ``labs/<id>/instructor/mutants.py`` (tests/instructor.py).

Each mutant edits the one-file form of the reference (grader.kit.starters.assemble with
strip=False) inside one named function, and records which lab tests must catch it.
"""

from __future__ import annotations

import ast
import fcntl
import functools
import io
import json
import os
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from grader import labs
from grader.kit import reach as kit_reach
from grader.kit import starters
from tests import instructor


@dataclass(frozen=True)
class Mutant:
    name: str
    bug: str  # what the student did, in words
    within: str  # qualified name of the function the edit is in, e.g. "Tensor.__add__"
    old: str  # text that occurs exactly once in that function
    new: str
    caught_by: frozenset[str] = field(default_factory=frozenset)  # the lab test ids that fail
    # The bug it models, a kind of grader.testing.bugs.BUGS, and whether the first failing test's
    # message and hint name it (recorded as measured; when not, they must name no other bug).
    kind: str = ""
    named: bool = True
    # It once gave different verdicts in-process and behind the wall: tests/test_mutants.py grades it in
    # both modes whatever its place in the catalogue.
    diverged_once: bool = False

    def __post_init__(self):
        object.__setattr__(self, "caught_by", frozenset(self.caught_by))


def _span(tree: ast.AST, qualname: str) -> tuple[int, int]:
    parts = qualname.split(".")
    scope = tree.body
    node = None
    for part in parts:
        matches = [n for n in scope if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part]
        if len(matches) != 1:
            raise LookupError(f"{qualname}: no single definition of {part!r}")
        node = matches[0]
        scope = node.body
    return node.lineno, node.end_lineno


def apply(source: str, mutant: Mutant) -> str:
    """The source with the mutant's edit made; LookupError if the edit does not apply exactly once."""
    first, last = _span(ast.parse(source), mutant.within)
    lines = source.splitlines(keepends=True)
    body = "".join(lines[first - 1 : last])
    count = body.count(mutant.old)
    if count != 1:
        raise LookupError(f"mutant {mutant.name}: {mutant.old!r} occurs {count} times in {mutant.within}")
    mutated = "".join(lines[: first - 1]) + body.replace(mutant.old, mutant.new) + "".join(lines[last:])
    if mutated == source:
        raise LookupError(f"mutant {mutant.name} changes nothing")
    return mutated


def reference_source(lab_id: str) -> str:
    return starters.assemble(labs.get(lab_id), strip=False)


def solution_lines(min_length: int = 1) -> set[str]:
    """Lines inside the reference's solution regions that no other file of the kit shows (handouts,
    lab tests, grader; not the labs' instructor folders, whose mutants and submissions are the
    solution, nor their hidden tests, which must not hold it either): what a copy of the kit without
    the reference must not contain."""
    inside, elsewhere = set(), set()
    for path in labs.REFERENCE_DIR.rglob("*.py"):
        in_region = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.match(r"\s*# (BEGIN|END) SOLUTION", line):
                in_region = "BEGIN" in line
            else:
                (inside if in_region else elsewhere).add(line.strip())
    for path in [*labs.KIT_ROOT.glob("labs/**/*"), *labs.KIT_ROOT.glob("grader/**/*.py")]:
        relpath = path.relative_to(labs.KIT_ROOT).as_posix()
        instructors = labs.is_instructor_file(relpath) or labs.is_hidden_file(relpath)
        if path.is_file() and path.name != "starter.py" and not instructors:
            elsewhere |= {line.strip() for line in path.read_text(errors="replace").splitlines()}
    return {line for line in inside - elsewhere if len(line) >= min_length and not line.startswith("#")}


@functools.cache
def reach(lab_id: str, shared: Path) -> kit_reach.Reach:
    """What each visible test of the lab calls in its reference (grader.kit.reach), measured once per run of
    the kit's tests: the first process to need it (an xdist worker) writes it in ``shared``, a folder every
    worker of the run sees, where the others read it."""
    path = shared / f"reach-{lab_id}.json"
    with open(shared / f"reach-{lab_id}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the others wait for the first
        if not path.exists():
            measured = kit_reach.measure(labs.get(lab_id).visible_only(), reference_source(lab_id))
            document = {
                "calls": {t: sorted(c) for t, c in measured.calls.items()},
                "functions": sorted(measured.functions),
            }
            path.write_text(json.dumps(document), encoding="utf-8")
    document = json.loads(path.read_text(encoding="utf-8"))
    return kit_reach.Reach({t: frozenset(c) for t, c in document["calls"].items()}, frozenset(document["functions"]))


def shared_folder(tmp_path_factory) -> Path:
    """A folder every xdist worker of this run of the kit's tests sees (the run's own, without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def catalogue(lab_id: str) -> list[Mutant]:
    """The lab's mutants (labs/<id>/instructor/mutants.py); MissingMaterial naming that file if it has none."""
    return instructor.mutants(lab_id)


# The names a student who copies ch06's engine renames first: its helpers, and the upstream gradient.
CH06_RENAMES = {"_arr": "as_array", "_sum_to_shape": "unbroadcast", "_canonical_axes": "normal_axes", "g": "upstream"}


def renamed(text: str, renames: dict[str, str]) -> str:
    """``text`` with the names in ``renames`` changed, token by token (strings and comments untouched)."""
    tokens = [
        (t.type, renames.get(t.string, t.string) if t.type == tokenize.NAME else t.string)
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
    ]
    return tokenize.untokenize(tokens)

"""Mutants generated from a lab's reference: small syntax-tree edits that model real student bugs.

Why our own generator and not mutmut or cosmic-ray: both mutate modules of a package in place and
run the package's own test command on them (mutmut 3 even rewrites each function into a trampoline
that its runner switches by an environment variable). Here a mutant must be a whole submission file,
graded like a student's by the lab's tests behind the wall (grader.grading.runner.run_queue), and
only the code a student writes (the ``# BEGIN SOLUTION`` regions) may change. Their operators are
also generic (strings, comparisons), not the autodiff bugs below (``.T`` for ``swapaxes``, a
missing ``keepdims``, ``+=`` for ``=``). So this module keeps a small generator of its own.

Each mutant's id is ``qualname:operator:hash``: the function it is in, the operator, and a short
hash of the line(s) it changes and their new text, so it stays the same when other lines move.
"""

from __future__ import annotations

import ast
import copy
import difflib
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

OPERATORS = (
    "augassign_to_assign",  # self.grad += g  ->  self.grad = g
    "assign_to_augassign",  # p.grad = g  ->  p.grad += g
    "swap_operands",  # a - b  ->  b - a (non-commutative operations only)
    "drop_term",  # a + b  ->  a, or b
    "double_term",  # x.grad += g  ->  x.grad += 2 * g
    "flip_sign",  # -a -> a; a + b <-> a - b
    "transpose",  # .T <-> .swapaxes(-1, -2)
    "drop_keepdims",  # sum(..., keepdims=True) -> sum(...); np.expand_dims(x, a) -> x
    "range_off_by_one",  # range(n) -> range(n - 1), range(n + 1)
    "constant",  # 0 -> 1, 1 -> 0, c -> c + 1 (or 2 * c for a float)
    "early_return",  # a return before the function's last step
    "drop_reset",  # x = 0.0, x = np.zeros...(...) removed
)

NON_COMMUTATIVE = (ast.Sub, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)
ZEROS = {"zeros", "zeros_like"}


@dataclass(frozen=True)
class GeneratedMutant:
    id: str
    qualname: str
    operator: str
    line: int  # first changed line, in the reference's one-file form
    source: str  # the whole mutated file

    def diff(self, original: str) -> str:
        """The unified diff from the reference to this mutant."""
        lines = difflib.unified_diff(
            original.splitlines(keepends=True), self.source.splitlines(keepends=True), "reference", self.id, n=2
        )
        return "".join(lines)


def solution_lines(source: str) -> set[int]:
    """The line numbers (1-based) inside ``# BEGIN SOLUTION`` / ``# END SOLUTION`` regions."""
    inside, lines = False, set()
    for number, text in enumerate(source.splitlines(), start=1):
        if re.match(r"\s*# (BEGIN|END) SOLUTION", text):
            inside = "BEGIN" in text
        elif inside:
            lines.add(number)
    return lines


@dataclass(frozen=True)
class _Edit:
    """Replace lines first..last's text from (first, col) to (last, end_col) with ``text``."""

    qualname: str
    operator: str
    first: int
    col: int
    last: int
    end_col: int
    text: str


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _call_name(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _expression_edits(node: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    """(operator, replacement) for one expression node."""
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, NON_COMMUTATIVE):
            yield "swap_operands", ast.BinOp(node.right, node.op, node.left)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            yield "drop_term", node.left
            if isinstance(node.op, ast.Add):
                yield "drop_term", node.right
            flipped = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            yield "flip_sign", ast.BinOp(node.left, flipped, node.right)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        yield "flip_sign", node.operand
    elif isinstance(node, ast.Attribute) and node.attr == "T":
        yield "transpose", ast.Call(ast.Attribute(node.value, "swapaxes"), [ast.Constant(-1), ast.Constant(-2)], [])
    elif isinstance(node, ast.Call):
        name = _call_name(node)
        if name == "swapaxes" and isinstance(node.func, ast.Attribute):
            yield "transpose", ast.Attribute(node.func.value, "T")
        if name == "expand_dims" and node.args:
            yield "drop_keepdims", node.args[0]
        if any(keyword.arg == "keepdims" for keyword in node.keywords):
            kept = [keyword for keyword in node.keywords if keyword.arg != "keepdims"]
            yield "drop_keepdims", ast.Call(node.func, node.args, kept)
        if name == "range" and isinstance(node.func, ast.Name) and node.args:
            stop_at = 0 if len(node.args) == 1 else 1
            for change in (ast.Sub(), ast.Add()):
                args = list(node.args)
                args[stop_at] = ast.BinOp(args[stop_at], change, ast.Constant(1))
                yield "range_off_by_one", ast.Call(node.func, args, node.keywords)
    elif isinstance(node, ast.Constant) and _number(node.value):
        value = node.value
        if value == 0:
            changed = type(value)(1)
        elif value == 1:
            changed = type(value)(0)
        else:
            changed = value + 1 if isinstance(value, int) else value * 2
        yield "constant", ast.Constant(changed)


def _statement_edits(statement: ast.stmt) -> Iterator[tuple[str, str]]:
    """(operator, replacement text) for one statement."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add):
        yield "augassign_to_assign", ast.unparse(ast.Assign([statement.target], statement.value, lineno=0))
        doubled = ast.BinOp(ast.Constant(2), ast.Mult(), statement.value)
        yield "double_term", ast.unparse(ast.AugAssign(statement.target, ast.Add(), doubled))
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            yield "assign_to_augassign", ast.unparse(ast.AugAssign(target, ast.Add(), statement.value))
        value = statement.value
        zero = isinstance(value, ast.Constant) and _number(value.value) and value.value == 0
        if zero or _call_name(value) in ZEROS:
            yield "drop_reset", "pass"


class _Collector(ast.NodeVisitor):
    """Every edit of the solution lines, with the qualified name of the function it is in."""

    def __init__(self, editable: set[int]):
        self.editable = editable
        self.scope: list[str] = []
        self.edits: list[_Edit] = []

    def _inside(self, node: ast.AST) -> bool:
        return all(line in self.editable for line in range(node.lineno, node.end_lineno + 1))

    def _add(self, node: ast.AST, operator: str, text: str) -> None:
        qualname = ".".join(self.scope) or "<module>"
        self.edits.append(
            _Edit(qualname, operator, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text)
        )

    def visit_ClassDef(self, node):
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node):
        self.scope.append(node.name)
        self._early_returns(node)
        self.generic_visit(node)
        self.scope.pop()

    def _early_returns(self, function: ast.FunctionDef) -> None:
        """A return before the last step: ``return`` in a function that returns nothing, else a return of
        the returned name right after it is first assigned (the steps in between skipped)."""
        body = [statement for statement in function.body if self._inside(statement)]
        if len(body) < 2:
            return
        last = body[-1]
        if not isinstance(last, ast.Return) and not any(isinstance(n, ast.Return) for n in ast.walk(function)):
            self._insert_before(last, "return")
        elif isinstance(last, ast.Return) and isinstance(last.value, ast.Name):
            name = last.value.id
            for index, statement in enumerate(body[:-2]):
                assigned = isinstance(statement, ast.Assign) and any(
                    isinstance(target, ast.Name) and target.id == name for target in statement.targets
                )
                if assigned:
                    self._insert_before(body[index + 1], f"return {name}")
                    break

    def _insert_before(self, statement: ast.stmt, text: str) -> None:
        """A line of its own before ``statement``: an empty span at its start, the statement kept as written."""
        qualname = ".".join(self.scope)
        line, col = statement.lineno, statement.col_offset
        self.edits.append(_Edit(qualname, "early_return", line, col, line, col, f"{text}\n{' ' * col}"))

    def generic_visit(self, node):
        if isinstance(node, ast.stmt) and self._inside(node):
            for operator, text in _statement_edits(node):
                self._add(node, operator, text)
        if isinstance(node, ast.expr) and self._inside(node):
            for operator, replacement in _expression_edits(node):
                self._add(node, operator, ast.unparse(ast.fix_missing_locations(copy.deepcopy(replacement))))
        super().generic_visit(node)


def _apply(lines: list[str], edit: _Edit) -> tuple[str, str]:
    """The mutated source, and the text the id's hash covers: the changed lines before and after."""
    before = lines[edit.first - 1 : edit.last]
    head, tail = before[0][: edit.col], before[-1][edit.end_col :]
    after = head + edit.text + tail  # a statement's indentation is in head
    source = "".join(lines[: edit.first - 1]) + after + "".join(lines[edit.last :])
    return source, "".join(before) + "\0" + after


def generate(source: str) -> list[GeneratedMutant]:
    """Every mutant of ``source``'s solution regions that compiles and differs from the others."""
    collector = _Collector(solution_lines(source))
    collector.visit(ast.parse(source))
    lines = source.splitlines(keepends=True)
    mutants, seen_sources, seen_ids = [], {source}, set()
    for edit in collector.edits:
        mutated, changed = _apply(lines, edit)
        if mutated in seen_sources:  # the same file as the reference or another mutant: redundant
            continue
        try:
            compile(mutated, "mutant.py", "exec")
        except SyntaxError:
            continue
        seen_sources.add(mutated)
        digest = hashlib.sha256(changed.encode()).hexdigest()[:8]
        mutant_id = f"{edit.qualname}:{edit.operator}:{digest}"
        suffix = 2
        while mutant_id in seen_ids:  # the same edit of the same line at another place in it
            mutant_id = f"{edit.qualname}:{edit.operator}:{digest}-{suffix}"
            suffix += 1
        seen_ids.add(mutant_id)
        mutants.append(GeneratedMutant(mutant_id, edit.qualname, edit.operator, edit.first, mutated))
    return mutants

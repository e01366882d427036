"""A submission read as text, never run: does it parse, which names it defines, what its code is.

A batch keeps these facts in each graded student's record (``code``), so that the gradebook
can say why a score is low (grader.batch.reasons) and who handed in the same code
(grader.batch.identical) from the output folder alone, after a resume or a merge of shards.
Everything here is a static read with ``ast``: a submission is imported only behind the wall.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import itertools
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from grader import intake, parsing
from grader.grading.scan import looks_like, names_bound
from grader.labs import Lab
from grader.verdicts import SubmissionError

# Python's parser gives up on code nested too deeply (RecursionError, MemoryError): so does Python's
# import, so for a grade such a file does not parse either.
UNPARSABLE = (SyntaxError, ValueError, RecursionError, MemoryError)


def parse(source: str) -> tuple[ast.Module | None, int | None]:
    """The source's tree and None, or None and the line of its first syntax error (0 if Python names none)."""
    try:
        return parsing.parsed(source), None
    except UNPARSABLE as exc:
        return None, getattr(exc, "lineno", None) or 0


def syntax_error_line(source: str) -> int | None:
    """The line of the first syntax error (0 if Python names none); None if the source parses."""
    return parse(source)[1]


def top_level_names(source: str) -> set[str]:
    """The names a module binds at its top level (grader.grading.scan.names_bound); empty if it does not parse."""
    tree, _ = parse(source)
    return names_bound(tree) if tree is not None else set()


DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)  # whose body may open with a docstring
HASHED_TOKENS = 4096  # tokens joined into one update of the hash: fewer calls, and bounded memory


def _canonical(tree: ast.AST) -> Iterator[str]:
    """The tree, node by node in pre-order, without the docstrings: without recursion, which a deep
    expression would exhaust (``ast.dump`` does), and without positions, so comments and layout do not
    count. The tree is only read: a batch scans the same tree (grader.parsing.parsed)."""
    stack: list = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.AST):
            yield type(item).__name__
            fields = [getattr(item, name, None) for name in item._fields]
            if isinstance(item, DOCUMENTED) and ast.get_docstring(item, clean=False) is not None:
                fields[item._fields.index("body")] = item.body[1:]
            stack.extend(reversed(fields))
        elif isinstance(item, list):
            item = [x for x in item if not _does_nothing(x)]
            yield f"[{len(item)}"
            stack.extend(reversed(item))
        else:
            yield repr(item)


def _does_nothing(node) -> bool:
    """A statement that changes nothing: `pass`, or an expression alone made only of constants, names and
    operators on them (`0`, `-0`, `...`, a string, `x`, `(1, [])`). A security review's copy of a classmate's
    file, every name in parentheses (which no tree keeps) and a `pass` added, was no longer the same code; nor
    with `;0` after each line, nor (a second review) with `-0`."""
    if isinstance(node, ast.Pass):
        return True
    if not isinstance(node, ast.Expr):
        return False
    stack = [node.value]  # without recursion: an expression may be nested deeper than Python's stack
    while stack:
        part = stack.pop()
        if isinstance(part, (ast.Constant, ast.Name)):
            continue
        if not isinstance(part, WITHOUT_EFFECTS):  # a call, an attribute, a subscript, a yield, ...
            return False
        stack.extend(child for child in ast.iter_child_nodes(part) if not isinstance(child, IGNORED_IN_EFFECTS))
    return True


# Expressions that compute nothing a program could see, when their parts do not either.
WITHOUT_EFFECTS = (
    ast.UnaryOp,
    ast.BinOp,
    ast.BoolOp,
    ast.Compare,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.JoinedStr,
    ast.FormattedValue,
)
IGNORED_IN_EFFECTS = (ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.expr_context)


@functools.lru_cache(maxsize=4)  # the lab's starter, once per student: kept
def code_digest(source: str) -> str | None:
    """A hash of the code up to comments, whitespace, parentheses, docstrings, quoting style and statements that
    do nothing (of the module's syntax tree without them); None if the source does not parse. A tree's fields can
    change between Python versions: compare digests made by one Python."""
    tree, _ = parse(source)
    return tree_digest(tree) if tree is not None else None


def tree_digest(tree: ast.Module) -> str:
    """``code_digest`` of a parsed module: the sha256 of its canonical tokens, each followed by a NUL."""
    digest = hashlib.sha256()
    tokens = _canonical(tree)
    while chunk := list(itertools.islice(tokens, HASHED_TOKENS)):
        digest.update(("\0".join(chunk) + "\0").encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def describe(source: str, lab_id: str, publics: Mapping[str, Iterable[str]], starter: str | None) -> dict:
    """What a record keeps of a submission graded for lab ``lab_id``: ``publics`` maps each lab of the
    kit to its public names, ``starter`` is the text of the lab's starter.py (None if there is none)."""
    tree, error_line = parse(source)  # once: a parse costs milliseconds, for every student of a class
    names = names_bound(tree) if tree is not None else set()
    digest = tree_digest(tree) if tree is not None else None
    untouched = starter is not None and (source == starter or (digest is not None and digest == code_digest(starter)))
    return {
        "parses": error_line is None,
        "syntax_error_line": error_line or None,
        "code_sha256": digest,
        "starter": untouched,
        "public_names": len(list(publics[lab_id])),
        "missing_names": [name for name in publics[lab_id] if name not in names],
        "looks_like": looks_like(names, lab_id, publics),
    }


def describe_file(path: Path, lab: Lab, kit_labs: Iterable[Lab]) -> dict | None:
    """``describe`` of the file at ``path`` as intake decodes it (a declared encoding too), against
    the kit's labs as discovered; None if intake refuses it (its report says why)."""
    try:
        source = intake.read(path).text
    except SubmissionError:
        return None
    starter = lab.starter.read_text(encoding="utf-8") if lab.starter.is_file() else None
    return describe(source, lab.id, {other.id: other.public for other in kit_labs}, starter)

"""Generate a lab's starter from its reference, so the two cannot drift apart.

The reference marks each piece of the exercise with ``# BEGIN SOLUTION <task>`` and
``# END SOLUTION``. The starter is the reference modules of ``[starter] sources``
concatenated into one file, each marked region replaced by a ``NotImplementedError``
that names the task, the method and the handout. Signatures, docstrings and the
provided helpers (such as a complete ``gradcheck``) are copied as they are. What the
reference does only to be fast, which a student need not write (a class's ``__slots__``),
sits between ``# BEGIN REFERENCE ONLY`` and ``# END REFERENCE ONLY`` and is left out whole.
"""

from __future__ import annotations

import ast
import re
import sys

from grader.labs import Lab

BEGIN = re.compile(r"^(?P<indent>\s*)# BEGIN SOLUTION (?P<task>\w+)\s*$")
END = re.compile(r"^\s*# END SOLUTION\s*$")
REFERENCE_ONLY = re.compile(r"^\s*# BEGIN REFERENCE ONLY\s*$")
END_REFERENCE_ONLY = re.compile(r"^\s*# END REFERENCE ONLY\s*$")


def _function_spans(tree: ast.AST) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function, innermost last."""
    spans = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    spans.append((child.lineno, child.end_lineno, name))
                walk(child, name + ".")

    walk(tree, "")
    return spans


def stub_message(lab: Lab, task_id: str, qualname: str) -> str:
    task = lab.task(task_id)
    return f"{task.title} - implement {qualname} (handout: labs/{lab.id}/README.md)"


def strip_solutions(source: str, lab: Lab) -> str:
    """Replace every marked solution region of ``source`` with a NotImplementedError naming its task."""
    spans = _function_spans(ast.parse(source))
    lines, out, i = source.splitlines(), [], 0
    while i < len(lines):
        if REFERENCE_ONLY.match(lines[i]):
            i = _past_end(lines, i, END_REFERENCE_ONLY, "BEGIN REFERENCE ONLY without END REFERENCE ONLY")
            continue
        begin = BEGIN.match(lines[i])
        if not begin:
            if END.match(lines[i]):
                raise ValueError(f"line {i + 1}: END SOLUTION without BEGIN")
            out.append(lines[i])
            i += 1
            continue
        enclosing = [name for first, last, name in spans if first <= i + 1 <= last]
        if not enclosing:
            raise ValueError(f"line {i + 1}: a solution region must be inside a function")
        message = stub_message(lab, begin["task"], enclosing[-1])
        out.append(f"{begin['indent']}raise NotImplementedError({message!r})")
        i = _past_end(lines, i, END, "BEGIN SOLUTION without END SOLUTION")
    return "\n".join(out) + "\n"


def _past_end(lines: list[str], begin: int, end: re.Pattern, unterminated: str) -> int:
    """The index of the line after the first ``end`` line following line ``begin``; ValueError if none."""
    i = begin + 1
    while i < len(lines) and not end.match(lines[i]):
        i += 1
    if i == len(lines):
        raise ValueError(unterminated)
    return i + 1


def _split_header(source: str) -> tuple[list[str], str]:
    """A module's absolute import lines, and its body after the docstring and imports."""
    tree = ast.parse(source)
    lines = source.splitlines()
    imports, body_start = [], 0
    for index, node in enumerate(tree.body):
        is_docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if is_docstring:
            body_start = node.end_lineno
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if not (isinstance(node, ast.ImportFrom) and node.level):  # sibling modules become one file
                imports.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
            body_start = node.end_lineno
        else:
            break
    return imports, "\n".join(lines[body_start:]).strip("\n")


def assemble(lab: Lab, *, strip: bool) -> str:
    """One file from the lab's reference modules: the starter (strip=True) or the whole solution."""
    stdlib, third_party, bodies = [], [], []
    for name in lab.starter_sources:
        source = (lab.reference_dir / name).read_text(encoding="utf-8")
        if strip:
            source = strip_solutions(source, lab)
        imports, body = _split_header(source)
        for line in imports:
            top = line.split()[1].split(".")[0]
            group = stdlib if top in sys.stdlib_module_names else third_party
            if line not in group:
                group.append(line)
        bodies.append(body)
    docstring = lab.starter_docstring if strip else f"Reference solution of lab {lab.id}, as one file.\n"
    import_block = "\n\n".join("\n".join(group) for group in (stdlib, third_party) if group)
    return f'"""{docstring}"""\n\n{import_block}\n\n\n' + "\n\n\n".join(bodies) + "\n"

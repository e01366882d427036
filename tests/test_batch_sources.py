"""The static read of a submission (grader.batch.sources): whether it parses, the names it binds at
the top level, its code up to comments and whitespace, whose lab's file it looks like, and
whether it is the lab's starter untouched. Pure functions on hand-written sources."""

import ast

import pytest

from grader import labs
from grader.batch import sources
from grader.grading import scan
from tests import instructor
from tests.mutation import reference_source

PUBLICS = {"ch06": ["Value", "Tensor", "gradcheck"], "lesson1_3": ["Value", "fit_line", "softmax_cross_entropy"]}
STARTER = '''"""The lab's starter."""
import math


class Value:
    """A number."""

    def __init__(self, data):
        raise NotImplementedError("Task 1")
'''


def test_describe_a_file_of_the_lab():
    assert sources.describe(
        STARTER.replace("raise NotImplementedError", "self.data = float"), "ch06", PUBLICS, STARTER
    ) == {
        "parses": True,
        "syntax_error_line": None,
        "code_sha256": sources.code_digest(STARTER.replace("raise NotImplementedError", "self.data = float")),
        "starter": False,
        "public_names": 3,
        "missing_names": ["Tensor", "gradcheck"],
        "looks_like": None,
    }


def test_the_starter_is_recognised_through_comments_whitespace_and_docstrings():
    touched_up = STARTER.replace('"""A number."""', "# my notes\n\n").replace("(self, data)", "( self,data )")
    assert sources.describe(touched_up, "ch06", PUBLICS, STARTER)["starter"] is True
    assert sources.describe(STARTER, "ch06", PUBLICS, STARTER)["starter"] is True
    assert sources.describe(STARTER.replace("Task 1", "Task one"), "ch06", PUBLICS, STARTER)["starter"] is False
    assert sources.describe(STARTER, "ch06", PUBLICS, None)["starter"] is False  # a lab without one


def test_code_digest_sees_through_parentheses_and_statements_that_do_nothing():
    """A security review: a classmate's file with every name in parentheses and a `pass` added (or `;0` after
    each line) was neither the same file nor the same code, and scored 0.12 / 0.09 against it in similarity."""
    original = instructor.submission_text("ch06", "correct_alt_style")
    tree = ast.parse(original)
    names = sorted(
        {(n.lineno, n.col_offset, n.end_col_offset) for n in ast.walk(tree) if isinstance(n, ast.Name)}, reverse=True
    )
    lines = original.split("\n")
    for row, start, end in names:
        line = lines[row - 1]
        lines[row - 1] = f"{line[:start]}({line[start:end]}){line[end:]}"
    wrapped = "\n".join(lines) + "\npass\n"
    padded = ast.parse(original)  # `0` after every statement, as `;0` at each line's end
    for node in ast.walk(padded):
        if isinstance(getattr(node, "body", None), list):
            node.body = [kept for statement in node.body for kept in (statement, ast.Expr(ast.Constant(0)))]
    padded = ast.unparse(ast.fix_missing_locations(padded))
    negated = ast.parse(original)  # `-0` after every statement (a second review's: `0` alone was seen through)
    for node in ast.walk(negated):
        if isinstance(getattr(node, "body", None), list):
            nothing = ast.Expr(ast.UnaryOp(ast.USub(), ast.Constant(0)))
            node.body = [kept for statement in node.body for kept in (statement, nothing)]
    negated = ast.unparse(ast.fix_missing_locations(negated))
    assert ast.dump(ast.parse(wrapped)) != ast.dump(tree)  # a `pass` more
    digests = {sources.code_digest(text) for text in (original, wrapped, padded, negated)}
    assert digests == {sources.code_digest(original)} and None not in digests
    assert sources.code_digest(original.replace("1.0", "2.0", 1)) != sources.code_digest(original)


def test_code_digest_ignores_comments_layout_docstrings_and_quotes_but_not_code():
    one = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    same = "def f(x):\n    # nothing\n\n    return (x+1)\n"
    assert sources.code_digest(one) == sources.code_digest(same)
    assert sources.code_digest("s = 'a'\n") == sources.code_digest('s = "a"\n')
    assert sources.code_digest(one) != sources.code_digest(one.replace("x + 1", "x + 2"))
    assert sources.code_digest("x = 1\ny = 2\n") != sources.code_digest("y = 2\nx = 1\n")
    assert sources.code_digest("def f(:\n") is None


def test_a_deeply_nested_file_is_read_without_running_out_of_stack():
    deep = "x = " + "a + " * 1500 + "a\n"
    with pytest.raises(RecursionError):
        ast.dump(ast.parse(deep))  # what a recursive reading of the tree would meet
    assert sources.code_digest(deep) is not None and sources.top_level_names(deep) == {"x"}
    hopeless = "x = " + "-" * 500_000 + "1\n"  # Python's parser gives up (MemoryError): so does the import
    assert sources.describe(hopeless, "ch06", PUBLICS, None)["parses"] is False


def test_top_level_names_are_bound_at_the_top_level_only():
    source = (
        "import numpy as np, os.path\nfrom math import exp as e, sqrt\nfrom x import *\n"
        "A, (B, *C) = 1, (2, 3)\nD: int = 4\n"
        "try:\n    import torch\nexcept ImportError:\n    torch = None\nelse:\n    E = 1\n"
        "if True:\n    def F(): G = 1\nwith open('f') as H:\n    pass\nfor I in []:\n    pass\n"
        "class J:\n    K = 1\n"
    )
    assert sources.top_level_names(source) == {
        "np",
        "os",
        "e",
        "sqrt",
        "A",
        "B",
        "C",
        "D",
        "torch",
        "E",
        "F",
        "H",
        "I",
        "J",
    }
    assert sources.top_level_names("def broken(:\n") == set()


@pytest.mark.parametrize(
    "names, expected",
    [
        ({"Value", "fit_line", "softmax_cross_entropy"}, "lesson1_3"),  # all of lesson1_3's, 1 of ch06's 3
        ({"Value", "fit_line"}, "lesson1_3"),  # 2 of 3 beats 1 of 3
        ({"Value", "Tensor", "fit_line"}, None),  # 2 of 3 each: not clearly another lab's
        ({"fit_line"}, None),  # a third of lesson1_3's: too little to say
        (set(), None),
    ],
)
def test_looks_like_names_the_lab_whose_names_the_file_clearly_has(names, expected):
    assert scan.looks_like(names, "ch06", PUBLICS) == expected


def test_syntax_error_line():
    assert sources.syntax_error_line("x = 1\n\n\ndef broken(:\n") == 4
    assert sources.syntax_error_line("x = 1\n") is None
    assert sources.syntax_error_line("x = '\0'\n".replace("'\0'", "\0")) == 0  # null bytes: no line


def test_describe_file_reads_the_file_as_intake_decodes_it(tmp_path):
    lab = labs.get("ch06")
    declared = tmp_path / "latin.py"
    declared.write_bytes(
        "# -*- coding: latin-1 -*-\nclass Value:  # café\n    pass\nna\u00efve = 1\n".encode("latin-1")
    )
    code = sources.describe_file(declared, lab, labs.discover().values())
    assert code["parses"] is True and "Value" not in code["missing_names"]
    assert code["code_sha256"] == sources.code_digest("class Value:\n    pass\nna\u00efve = 1\n")
    binary = tmp_path / "binary.py"
    binary.write_bytes(b"\0\1\2")
    assert sources.describe_file(binary, lab, labs.discover().values()) is None  # intake refuses it
    starter = sources.describe_file(lab.starter, lab, labs.discover().values())
    assert starter["starter"] is True and starter["missing_names"] == []


def test_the_digest_leaves_the_tree_as_it_was_for_the_scan_that_shares_it():
    """grader.parsing.parsed hands the scan and the record one tree: the digest skips the docstrings as it
    reads, and changes nothing (it once cut them out of the tree)."""
    source = reference_source("ch06")
    tree = ast.parse(source)
    before = ast.dump(tree)
    assert sources.tree_digest(tree) == sources.code_digest(source)
    assert ast.dump(tree) == before
    assert sources.tree_digest(tree) == sources.tree_digest(ast.parse(source))  # the same twice


def test_the_digest_is_the_one_earlier_batches_recorded():
    """A record's code_sha256 is compared with later ones (identical files, a resume, a merge of shards): a
    change to how the tree is read must give the same digest. Computed by the digest of 2026-12-07."""
    source = (
        'class Value:\n    """A number."""\n\n'
        '    def __init__(self, data):\n        """Doc."""\n        self.data = float(data)  # a float\n'
    )
    assert sources.code_digest(source) == "bcdaba709309c5385f5fd46d3f0e693efdee83407691b83aee03f9682c8258bb"

"""Why a student lost points (grader.batch.reasons), from hand-made reports, and the static read of
a file it uses (grader.batch.sources): pure functions, exact expected values.

A report's messages are made with grader.verdicts' own functions, so a change of their words
that the reasons would no longer read fails here."""

import pytest

from grader import labs, verdicts
from grader.batch import reasons, sources
from tests.handmade import report, test_row

TASKS = [("value", "Task 1: Value"), ("tensor", "Task 2: Tensor"), ("xor", "Task 3: XOR")]
PUBLICS = {"ch06": ["Value", "Tensor", "gradcheck"], "lesson1_3": ["Value", "fit_line", "softmax_cross_entropy"]}
NOT_YET = "not implemented yet: Task 2: Tensor - implement Tensor.__init__ (alice.py:142 in __init__)"


def graded(*rows, name="alice.py"):
    """A report of ``rows`` on the three tasks, for a file called ``name``."""
    return report(rows, tasks=TASKS, implementation={"kind": "submission", "name": name, "sha256": "0" * 64})


def everything(outcome, message):
    return [test_row(f"test_{i}", task, outcome, 0, 2, message) for i, task in enumerate(("value", "tensor", "xor"))]


FULL = graded(test_row("test_a", "value", "passed", 2, 2), test_row("test_b", "xor", "passed", 1, 1))


def test_full_marks_have_no_reason_whatever_the_file():
    assert reasons.reason(FULL) == ""
    assert reasons.reason(FULL, {"parses": True, "starter": True, "missing_names": ["Tensor"]}) == ""


def test_a_file_that_does_not_parse_says_the_line_from_the_static_read_or_the_report():
    broken = graded(*everything("error", verdicts.syntax_error("dave.py", 4, "invalid syntax").message), name="dave.py")
    assert reasons.reason(broken, {"parses": False, "syntax_error_line": 12}) == "does not parse (line 12)"
    assert reasons.reason(broken) == "does not parse (line 4)"  # an older record, without a static read
    assert reasons.reason(broken, {"parses": False, "syntax_error_line": None}) == "does not parse"
    unknown = graded(*everything("error", verdicts.syntax_error("dave.py", None, "null bytes").message), name="dave.py")
    assert reasons.reason(unknown) == "does not parse"


def test_the_untouched_starter_is_said_alone():
    starter = graded(*everything("failed", NOT_YET))
    assert reasons.reason(starter, {"parses": True, "starter": True}) == "the starter, unchanged"


def test_an_import_failures_own_words_cannot_make_it_a_syntax_error():
    """A second review: a file raised ValueError("lab.py does not parse: ...") while being imported; the verdict
    is the file's (about_the_file), and the name-blind pattern read the raised words as a syntax error at the line
    the student wrote. The patterns now hold the file's own name."""
    raised = "importing alice.py raised ValueError at line 527: lab.py does not parse: SyntaxError at line 1: x"
    said = reasons.reason(graded(*everything("error", raised)), {"parses": True})
    assert said == "import failed: ValueError at line 527: lab.py does not parse: SyntaxError at line 1: x", said


def test_a_message_worded_as_the_kits_is_the_tests_own_failure():
    """A security review: an AssertionError "lab.py does not parse: SyntaxError at line 1: invalid syntax" made
    the reason "does not parse (line 1)" for a file that parses, and a message "the code under test does not
    define ..." one of lacking a name: only the verdicts the kit marks as the file's are read so."""
    spoofed = graded(
        test_row(
            "test_a",
            "value",
            "failed",
            0,
            2,
            verdicts.syntax_error("lab.py", 1, "invalid syntax").message,
            about_the_file=False,
        ),
        test_row(
            "test_b",
            "xor",
            "failed",
            0,
            1,
            verdicts.missing_name(labs.get("ch06"), "Tensor").message,
            about_the_file=False,
        ),
    )
    said = reasons.reason(spoofed, {"parses": True})
    assert not said.startswith(("does not parse", "lacks")) and said.startswith("1 test failed in task 1: lab.py"), said


@pytest.mark.parametrize(
    "made, said",
    [
        (
            verdicts.import_failed("imp.py", "ValueError", 611, "boom 12"),
            "import failed: ValueError at line 611: boom 12",
        ),
        (verdicts.import_failed("imp.py", "SystemExit", 3, "0"), "import failed: called exit() at line 3"),
        (verdicts.import_timed_out("imp.py", 10), "import failed: did not finish within 10 s"),
        (verdicts.import_over_cpu("imp.py", 2), "import failed: used more than the CPU limit of 2 s"),
        (
            verdicts.import_failed("imp.py", "ModuleNotFoundError", None, "No module named 'torch'"),
            "import failed: ModuleNotFoundError: No module named 'torch'",
        ),
    ],
)
def test_an_import_failure_is_said_alone_without_the_file_name(made, said):
    assert reasons.reason(graded(*everything("error", made.message), name="imp.py")) == said


def test_another_labs_file_lacks_the_names_and_says_whose_it_looks_like():
    lou = graded(
        test_row("test_value", "value", "passed", 2, 2),
        test_row("test_tensor", "tensor", "error", 0, 2, verdicts.missing_name(labs.get("ch06"), "Tensor").message),
        test_row("test_check", "xor", "error", 0, 2, verdicts.missing_name(labs.get("ch06"), "gradcheck").message),
    )
    code = sources.describe(
        "class Value: ...\ndef fit_line(): ...\ndef softmax_cross_entropy(): ...\n", "ch06", PUBLICS, ""
    )
    assert code["missing_names"] == ["Tensor", "gradcheck"] and code["looks_like"] == "lesson1_3"
    assert (
        reasons.reason(lou, code) == "lacks 2 of the lab's 3 names: Tensor, gradcheck (looks like lab lesson1_3's file)"
    )
    assert reasons.reason(lou) == "lacks Tensor, gradcheck"  # without a static read: the names the tests met
    nothing = sources.describe("def fit_line(): ...\n", "ch06", PUBLICS, "")
    assert reasons.reason(lou, nothing) == "defines none of the lab's names"  # 1 of lesson1_3's 3: not clearly its file


def test_a_partly_correct_file_counts_failures_per_task_the_most_points_lost_first():
    partly = graded(
        test_row("test_v1", "value", "failed", 0, 1, "Value(3).data should be a float, got int"),
        test_row("test_v2", "value", "passed", 1, 1),
        test_row("test_t1", "tensor", "failed", 0, 2, "grad of a has shape (2, 3), expected (3,)"),
        test_row("test_t2", "tensor", "failed", 0, 2, "grad of b has shape (4,), expected (1, 4)"),
        test_row("test_t3", "tensor", "error", 0, 2, "TypeError: bad operand (alice.py:12 in __add__)"),
        test_row("test_x", "xor", "passed", 3, 3),
    )
    assert reasons.reason(partly, {"parses": True, "starter": False, "missing_names": []}) == (
        "3 tests failed in task 2: grad of a has shape (2, 3), expected (3,); "
        "1 test failed in task 1: Value(3).data should be a float, got int"
    )


def test_timeouts_and_crashes_come_before_failures_and_not_run_last():
    stuck = graded(
        test_row("test_v", "value", "failed", 0, 1, "wrong"),
        test_row("test_t1", "tensor", "timeout", 0, 1, verdicts.test_timeout_message(10)),
        test_row("test_x1", "xor", "timeout", 0, 1, verdicts.test_timeout_message(10)),
        test_row("test_x2", "xor", "crashed", 0, 1, verdicts.test_process_died(-9)),
        test_row("test_x3", "xor", "not_run", 0, 5, verdicts.run_out_of_time(300)),
        test_row("test_x4", "xor", "not_run", 0, 5, verdicts.run_out_of_time(300)),
    )
    assert reasons.reason(stuck) == (
        "timeout in tasks 2, 3; crashed in task 3; 1 test failed in task 1: wrong; "
        "2 tests not run: the lab's tests used up their time limit of 300 s"
    )


def test_a_reason_is_one_short_line():
    many = graded(
        *[test_row(f"t{i}", task, "failed", 0, 1, f"{'x' * 150}\nsecond line") for i, task in enumerate(["value"] * 3)],
        test_row("u", "tensor", "failed", 0, 1, "y" * 300),
        test_row("w", "xor", "failed", 0, 1, "z"),
    )
    said = reasons.reason(many)
    assert len(said) == reasons.REASON_CHARS and said.endswith("...") and "\n" not in said
    assert said.startswith("3 tests failed in task 1: " + "x" * 50)

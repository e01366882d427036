"""The words of every verdict (grader.verdicts): how ``classify`` turns a graded test's exception
into an outcome, a message and a hint (each branch, the "(file.py:LINE in func)" location,
clipping at MESSAGE_LIMIT), and the fixed sentences for a file that does not import, a
missing name, a timeout, a run out of time and a dead test process, and those sentences read
back (import_problem, missing_name_in) as a batch's reasons read them. Also the in-process
loader (grader.harness.loader): its description of an import failure, and that ``load``
words a failing import exactly as the wall does, through the same functions."""

import sys
from pathlib import Path

import pytest

from grader import labs, verdicts
from grader.harness import loader
from grader.implementation import Implementation
from grader.testing.checks import LabCheckFailure
from grader.verdicts import LOOP_HINT, MESSAGE_LIMIT, SubmissionError, WorkerCrashed, WorkerTimeout, classify

STARTER = "/x/starter.py"  # a fake file name: frames compiled with it stand for the code under test
CODE = {STARTER}
STATIC = "the test's own hint"


def raised(source: str, call: str, filename: str = STARTER, **names) -> BaseException:
    """The exception ``call()`` raises, with functions compiled from ``source`` as if from ``filename``."""
    namespace = dict(names)
    exec(compile(source, filename, "exec"), namespace)
    try:
        namespace[call]()
    except BaseException as exc:  # noqa: BLE001 - SystemExit and pytest's outcomes too
        return exc
    raise AssertionError(f"{call}() raised nothing")


def caught(exc: BaseException) -> BaseException:
    """``exc`` with a traceback (raised here, in this test file: not the code under test)."""
    try:
        raise exc
    except BaseException as e:  # noqa: BLE001
        return e


BACKWARD = """\
class Value:
    def backward(self):
        raise NotImplementedError("Task 1 - implement Value.backward")


def run():
    Value().backward()
"""


# -- classify: the kit's own exceptions -------------------------------------------------------
def test_a_failed_check_keeps_its_message_and_its_own_hint():
    exc = caught(LabCheckFailure("x.grad is 3.0, expected 4.0", "add (+=) into .grad"))
    assert classify(exc, STATIC, CODE) == {
        "outcome": "failed",
        "message": "x.grad is 3.0, expected 4.0",  # without the "\nhint: ..." its str() carries
        "hint": "add (+=) into .grad",
        "line": None,  # raised by the test, handling nothing the code under test raised
    }


def test_a_failed_check_without_a_hint_gets_the_tests():
    exc = caught(LabCheckFailure("x.grad is 3.0, expected 4.0"))
    assert classify(exc, STATIC, CODE) == {
        "outcome": "failed",
        "message": "x.grad is 3.0, expected 4.0",
        "hint": STATIC,
        "line": None,
    }


def test_a_failed_check_raised_in_the_code_under_test_has_no_location():
    exc = raised("def f():\n    raise E('wrong shape')\n", "f", E=LabCheckFailure)
    assert classify(exc, STATIC, CODE)["message"] == "wrong shape"


def test_a_submission_error_is_an_error_with_its_own_hint_only():
    exc = caught(SubmissionError("the code under test does not define Tensor", "define it at the top level"))
    assert classify(exc, STATIC, CODE) == {
        "outcome": "error",
        "message": "the code under test does not define Tensor",
        "hint": "define it at the top level",
        "line": None,
        "about_the_file": True,  # the kit's mark: readers ask it, not the message
    }
    # A message a submission raised, worded as the kit's, is the test's own (a security review's took over the
    # reason and the statistics): an error, never marked.
    spoof = classify(caught(AssertionError("the code under test does not define Tensor")), STATIC, CODE)
    assert "about_the_file" not in spoof
    # the test's hint is about the test, not about a file that cannot be used
    assert classify(caught(SubmissionError("no file to grade at a.py")), STATIC)["hint"] == ""


@pytest.mark.parametrize(
    ("kind", "outcome"),
    [(WorkerTimeout, "timeout"), (WorkerCrashed, "crashed"), (verdicts.WorkerFailure, "crashed")],
)
def test_a_worker_failure_names_its_outcome(kind, outcome):
    message = "the worker stopped: it reached its memory limit of 1024 MiB"
    assert classify(caught(kind(message, "use less memory")), STATIC) == {
        "outcome": outcome,
        "message": message,
        "hint": "use less memory",
        "line": None,
    }
    assert classify(caught(kind(message)), STATIC)["hint"] == STATIC


# -- classify: pytest-timeout ---------------------------------------------------------------
def test_pytest_timeouts_failure_is_a_timeout_with_the_loop_hint():
    exc = raised(
        "def test():\n    pytest.fail('Timeout (>10.0s) from pytest-timeout.')\n",
        "test",
        "/x/test_lab.py",
        pytest=pytest,
    )
    assert classify(exc, STATIC, CODE) == {
        "outcome": "timeout",
        "message": "timeout: the test ran longer than its limit of 10 s",
        "hint": LOOP_HINT,
        "line": None,
    }
    assert LOOP_HINT == "look for a loop that never ends, or work that grows too fast (e.g. a graph visited many times)"


def test_a_timeout_in_the_code_under_test_says_where_it_was_running():
    source = "def backward():\n    while True:\n        pytest.fail('Timeout (>2.5s) from pytest-timeout.')\n"
    exc = raised(source, "backward", pytest=pytest)
    assert classify(exc, STATIC, CODE) == {
        "outcome": "timeout",
        "message": "timeout: the test ran longer than its limit of 2.5 s; it was running starter.py:3 in backward",
        "hint": LOOP_HINT,
        "line": 3,
    }


def test_pytest_fail_for_another_reason_is_not_a_timeout():
    exc = raised("def f():\n    pytest.fail('boom')\n", "f", pytest=pytest)
    assert classify(exc, STATIC, CODE) == {
        "outcome": "error",
        "message": "Failed: boom (starter.py:2 in f)",
        "hint": STATIC,
        "line": 2,
    }


# -- classify: the test's exception ---------------------------------------------------------
def test_not_implemented_names_the_stub_and_where_it_is_and_hints_at_no_bug():
    exc = raised(BACKWARD, "run")
    assert classify(exc, STATIC, CODE) == {
        "outcome": "failed",
        "message": "not implemented yet: Task 1 - implement Value.backward (starter.py:3 in backward)",
        "hint": "",  # the test's hint names a likely bug: a stub has none, its message says what to write
        "line": 3,
    }
    assert classify(exc, STATIC, set())["message"] == "not implemented yet: Task 1 - implement Value.backward"


def test_an_assertion_says_its_message():
    exc = caught(AssertionError("the loss did not go down: 0.69 then 0.71"))
    assert classify(exc, STATIC, CODE) == {
        "outcome": "failed",
        "message": "the loss did not go down: 0.69 then 0.71",
        "hint": STATIC,
        "line": None,
    }


def test_an_assertion_without_a_message_says_so():
    assert classify(caught(AssertionError()), STATIC, CODE) == {
        "outcome": "failed",
        "message": "assertion failed",
        "hint": STATIC,
        "line": None,
    }


def test_an_assertion_in_the_code_under_test_is_worded_without_its_location():
    exc = raised("def f():\n    assert 1 == 2, 'one is not two'\n", "f")
    assert classify(exc, STATIC, CODE)["message"] == "one is not two"
    assert classify(exc, STATIC, CODE)["line"] == 2  # but its line, for an annotation


def test_any_other_exception_is_an_error_naming_its_type_and_location():
    exc = raised("def f(x):\n    return 1 / x\n\n\ndef run():\n    return f(0)\n", "run")
    assert classify(exc, STATIC, CODE) == {
        "outcome": "error",
        "message": "ZeroDivisionError: division by zero (starter.py:2 in f)",  # the innermost frame of the code
        "hint": STATIC,
        "line": 2,
    }
    assert classify(exc, STATIC, set())["message"] == "ZeroDivisionError: division by zero"


def test_an_exception_names_its_own_class():
    class GradientMismatch(ValueError):
        pass

    assert classify(caught(GradientMismatch("dx differs")), STATIC)["message"] == "GradientMismatch: dx differs"
    assert classify(caught(KeyError("grad")), STATIC)["message"] == "KeyError: 'grad'"


def test_the_location_is_the_last_frame_of_the_code_under_test_not_a_library_below_it():
    library = "def check(x):\n    raise TypeError(f'not a float: {x!r}')\n"
    namespace = {}
    exec(compile(library, "/usr/lib/python3/somelib.py", "exec"), namespace)
    exc = raised("def tanh():\n    y = 1\n    return check('a')\n", "tanh", check=namespace["check"])
    assert classify(exc, STATIC, CODE)["message"] == "TypeError: not a float: 'a' (starter.py:3 in tanh)"


def test_an_exception_from_behind_the_wall_carries_its_location():
    exc = caught(ValueError("shapes (2,3) and (2,3) not aligned"))
    exc.labkit_where = "alice.py:41 in __matmul__"
    message = "ValueError: shapes (2,3) and (2,3) not aligned (alice.py:41 in __matmul__)"
    exc.labkit_line = 41  # checked against the file by the wall's session
    assert classify(exc, STATIC, set()) == {"outcome": "error", "message": message, "hint": STATIC, "line": 41}
    assert verdicts.where(exc, CODE) == "alice.py:41 in __matmul__"
    exc.labkit_where = ""  # the worker could not locate it: no suffix, and no guess from local frames
    assert classify(exc, STATIC, {__file__})["message"] == "ValueError: shapes (2,3) and (2,3) not aligned"


# -- the line a verdict points at -----------------------------------------------------------
def test_a_failed_check_points_at_the_line_that_raised_the_error_it_reports():
    """A check that caught the code's error and failed with its own words (``Value exp raised
    AttributeError ...``) points at the line of the code that raised it."""
    namespace = {}
    exec(compile("def mul(x, y):\n    z = 1\n    return x.data * y.data\n", STARTER, "exec"), namespace)

    def probe():
        try:
            namespace["mul"](None, 2.0)
        except AttributeError as error:
            raise LabCheckFailure(f"x * 2.0 raised {error}")  # noqa: B904 - as the checks raise it

    exc = raised("def run():\n    probe()\n", "run", "/x/test_lab.py", probe=probe)
    assert isinstance(exc, LabCheckFailure) and isinstance(exc.__context__, AttributeError)
    assert classify(exc, STATIC, CODE)["line"] == 3
    assert classify(exc, STATIC, set())["line"] is None  # no code under test in the chain


def test_a_failed_check_raised_through_the_code_under_test_does_not_point_at_the_call():
    """A check of the test's failing inside a callback the code under test called: the code's
    frame is a caller, not the cause."""
    namespace = {}
    exec(compile("def gradcheck(f):\n    return f()\n", STARTER, "exec"), namespace)

    def callback():
        raise LabCheckFailure("the loss is wrong")

    with pytest.raises(LabCheckFailure) as info:
        namespace["gradcheck"](callback)
    assert classify(info.value, STATIC, CODE)["line"] is None


def test_a_file_that_does_not_import_points_at_its_line():
    assert classify(caught(verdicts.syntax_error("a.py", 12, "invalid syntax")), STATIC)["line"] == 12
    assert classify(caught(verdicts.import_failed("a.py", "ValueError", 3, "boom")), STATIC)["line"] == 3
    assert classify(caught(verdicts.import_failed("a.py", "ValueError", None, "boom")), STATIC)["line"] is None


@pytest.mark.parametrize(
    ("claim", "kept"),
    [
        (1, 1),
        (30, 30),
        (31, None),
        (0, None),
        (-4, None),
        (True, None),
        (3.0, None),
        ("3", None),
        (None, None),
        (2**70, None),
        ([3], None),
    ],
)
def test_a_line_another_process_claims_is_kept_only_when_it_is_one_of_the_files(claim, kept):
    assert verdicts.line_in_file(claim, 30) == kept
    assert verdicts.line_in_file(claim, None) is None  # no file to check it against: none


# -- clipping -------------------------------------------------------------------------------
def test_clip_keeps_messages_up_to_the_limit_and_cuts_longer_ones():
    assert MESSAGE_LIMIT == 600
    assert verdicts.clip("  \n padded message \n\n") == "padded message"
    assert verdicts.clip("x" * MESSAGE_LIMIT) == "x" * MESSAGE_LIMIT
    assert verdicts.clip("x" * (MESSAGE_LIMIT + 1)) == "x" * (MESSAGE_LIMIT - 3) + "..."


@pytest.mark.parametrize(
    ("exc", "start"),
    [
        (LabCheckFailure("d" * 1000), "ddd"),
        (SubmissionError("s" * 1000), "sss"),
        (WorkerCrashed("w" * 1000), "www"),
        (NotImplementedError("n" * 1000), "not implemented yet: nnn"),
        (AssertionError("a" * 1000), "aaa"),
        (RuntimeError("r" * 1000), "RuntimeError: rrr"),
    ],
)
def test_every_message_is_clipped(exc, start):
    message = classify(caught(exc), STATIC, CODE)["message"]
    assert len(message) == MESSAGE_LIMIT and message.startswith(start) and message.endswith("...")


def test_a_long_message_keeps_its_location_through_the_clip():
    exc = raised("def f():\n    raise ValueError('v' * 1000)\n", "f")
    message = classify(exc, STATIC, CODE)["message"]
    location = " (starter.py:2 in f)"
    assert (
        message == "ValueError: " + "v" * (MESSAGE_LIMIT - 3 - len("ValueError: ") - len(location)) + "..." + location
    )
    assert len(message) == MESSAGE_LIMIT


def test_a_bare_not_implemented_error_reads_cleanly():
    assert classify(NotImplementedError(), STATIC, set())["message"] == "not implemented yet"


def test_an_exception_from_behind_the_wall_is_named_by_its_own_type():
    exc = ValueError("bad shape")  # the stand-in of the submission's `class Bad(ValueError)`
    exc.labkit_type, exc.labkit_where = "Bad", "alice.py:9 in f"
    assert classify(exc, STATIC, set())["message"] == "Bad: bad shape (alice.py:9 in f)"


def test_a_tests_own_failure_that_looks_like_a_timeout_is_not_one():
    with pytest.raises(pytest.fail.Exception) as info:
        pytest.fail("Timeout (>abc")
    assert classify(info.value, STATIC, set()) == {
        "outcome": "error",
        "message": "Failed: Timeout (>abc",
        "hint": STATIC,
        "line": None,
    }


# -- the code under test cannot be used -----------------------------------------------------
def test_import_failed_words_an_exit_and_an_exception():
    assert_error(
        verdicts.import_failed("alice.py", "SystemExit", 7, "0"),
        "alice.py called exit() while being imported at line 7",
        verdicts.EXIT_AT_IMPORT_HINT,
    )
    assert_error(
        verdicts.import_failed("alice.py", "SystemExit", None, "0"),
        "alice.py called exit() while being imported",
        "remove top-level code that exits; put experiments under `if __name__ == '__main__':`",
    )
    assert_error(
        verdicts.import_failed("alice.py", "ValueError", 3, "negative dimensions are not allowed"),
        "importing alice.py raised ValueError at line 3: negative dimensions are not allowed",
        verdicts.CLEAN_IMPORT_HINT,
    )
    assert_error(
        verdicts.import_failed("alice.py", "ModuleNotFoundError", None, "No module named 'torch'"),
        "importing alice.py raised ModuleNotFoundError: No module named 'torch'",
        "your file must import cleanly: keep experiments under `if __name__ == '__main__':`",
    )


def test_syntax_error_with_and_without_a_line():
    assert_error(
        verdicts.syntax_error("alice.py", 12, "invalid syntax"),
        "alice.py does not parse: SyntaxError at line 12: invalid syntax",
        "run `python -m py_compile` on your file to see the error in context",
    )
    assert_error(
        verdicts.syntax_error("alice.py", None, "source code cannot contain null bytes"),
        "alice.py does not parse: SyntaxError at an unknown line: source code cannot contain null bytes",
        verdicts.SYNTAX_HINT,
    )
    assert (
        verdicts.syntax_error("alice.py", 0, "x").message
        == "alice.py does not parse: SyntaxError at an unknown line: x"
    )


def test_missing_name_lists_the_labs_public_names():
    assert_error(
        verdicts.missing_name(labs.get("ch06"), "Tensor"),
        "the code under test does not define Tensor",
        "lab ch06 needs these names at the top level of your file: Value, Tensor, numerical_grad, gradcheck, "
        "GradcheckError",
    )


def test_the_other_ways_a_file_cannot_be_used():
    assert_error(verdicts.no_file("alice.py"), "no file to grade at alice.py", "check the path you gave")
    assert_error(
        verdicts.import_timed_out("alice.py", 10.0),
        "importing alice.py did not finish within 10 s",
        "top-level code runs when your file is imported: move experiments under `if __name__ == '__main__':`",
    )
    assert_error(
        verdicts.import_over_cpu("alice.py", 2),
        "importing alice.py used more than the CPU limit of 2 s",
        "top-level code runs when your file is imported: move experiments under `if __name__ == '__main__':`",
    )
    assert_error(
        verdicts.import_stopped_worker("alice.py", "killed by signal 9"),
        "importing alice.py stopped the worker: killed by signal 9",
        "remove top-level code that exits or crashes",
    )


def assert_error(exc: SubmissionError, message: str, hint: str) -> None:
    assert isinstance(exc, SubmissionError) and exc.outcome == "error"
    assert (exc.message, exc.hint, str(exc)) == (message, hint, message)


# -- a verdict read back --------------------------------------------------------------------
@pytest.mark.parametrize(
    "made, parses, line, cause",
    [
        (verdicts.syntax_error("alice.py", 12, "invalid syntax"), False, 12, "SyntaxError at line 12: invalid syntax"),
        (verdicts.syntax_error("my file.py", None, "x"), False, None, "SyntaxError at an unknown line: x"),
        (verdicts.import_failed("alice.py", "SystemExit", 7, "0"), True, 7, "called exit() at line 7"),
        (verdicts.import_failed("alice.py", "SystemExit", None, "0"), True, None, "called exit()"),
        (
            verdicts.import_failed("alice.py", "ValueError", 3, "shape: (2, 3)"),
            True,
            3,
            "ValueError at line 3: shape: (2, 3)",
        ),
        (
            verdicts.import_failed("a.py", "ModuleNotFoundError", None, "No module named 'torch'"),
            True,
            None,
            "ModuleNotFoundError: No module named 'torch'",
        ),
        (verdicts.import_timed_out("alice.py", 10.0), True, None, "did not finish within 10 s"),
        (verdicts.import_over_cpu("alice.py", 2), True, None, "used more than the CPU limit of 2 s"),
        (
            verdicts.import_stopped_worker("alice.py", "killed by signal 9"),
            True,
            None,
            "stopped the worker: killed by signal 9",
        ),
    ],
)
def test_import_problem_reads_back_every_import_verdict_without_the_file_name(made, parses, line, cause):
    assert verdicts.import_problem(made.message) == verdicts.ImportProblem(parses, line, cause)


@pytest.mark.parametrize(
    "message",
    [
        "Value(3).data should be a float, got int",
        "not implemented yet: Task 1 (alice.py:29 in __init__)",
        "ValueError: importing the data raised nothing",  # the words, but not the verdict's sentence
        verdicts.missing_name(labs.get("ch06"), "Tensor").message,
        "",
    ],
)
def test_import_problem_is_none_for_any_other_message(message):
    assert verdicts.import_problem(message) is None


def test_missing_name_in_reads_back_the_name():
    assert verdicts.missing_name_in(verdicts.missing_name(labs.get("ch06"), "GradcheckError").message) == (
        "GradcheckError"
    )
    assert verdicts.missing_name_in("Tensor is not defined the way the test expects") is None
    assert verdicts.missing_name_in(verdicts.import_timed_out("alice.py", 1).message) is None


# -- a test ran too long, or its process stopped --------------------------------------------
def test_test_timeout_message():
    assert verdicts.test_timeout_message(10) == "timeout: the test ran longer than its limit of 10 s"
    assert verdicts.test_timeout_message("10.0") == "timeout: the test ran longer than its limit of 10 s"
    assert (
        verdicts.test_timeout_message(2.5, "starter.py:9 in backward")
        == "timeout: the test ran longer than its limit of 2.5 s; it was running starter.py:9 in backward"
    )


def test_run_out_of_time_and_tests_out_of_time():
    assert verdicts.run_out_of_time(300) == "not run: the lab's tests used up their time limit of 300 s"
    assert verdicts.run_out_of_time(12.5) == "not run: the lab's tests used up their time limit of 12.5 s"
    assert verdicts.tests_out_of_time(299.7) == "timeout: the lab's tests did not finish within 300 s"


def test_test_process_died_names_a_signal_or_an_exit_status():
    assert (
        verdicts.test_process_died(-9)
        == "crashed: the test process died (killed by signal 9) while this test was running"
    )
    assert (
        verdicts.test_process_died(-11)
        == "crashed: the test process died (killed by signal 11) while this test was running"
    )
    assert verdicts.test_process_died(3) == "crashed: the test process died (exit status 3) while this test was running"
    assert verdicts.test_process_died(0) == "crashed: the test process died (exit status 0) while this test was running"


# -- the in-process loader ------------------------------------------------------------------
def test_describe_import_failure_of_a_syntax_error():
    exc = raised("def f():\n    compile('x = 1\\ny = (\\n', 'alice.py', 'exec')\n", "f", "/x/test.py")
    assert isinstance(exc, SyntaxError)
    assert_error(
        loader.describe_import_failure(exc, Path("alice.py")),
        "alice.py does not parse: SyntaxError at line 2: '(' was never closed",
        verdicts.SYNTAX_HINT,
    )


def test_describe_import_failure_finds_the_line_of_the_file_itself():
    module = "import math\n\n\ndef helper():\n    return math.log(-1)\n\n\nhelper()\n"
    exc = raised(
        f"def load():\n    exec(compile({module!r}, '/sub/alice.py', 'exec'), {{}})\n", "load", "/kit/loader.py"
    )
    assert_error(
        loader.describe_import_failure(exc, Path("/sub/alice.py")),
        "importing alice.py raised ValueError at line 5: math domain error",  # the last frame of the file
        verdicts.CLEAN_IMPORT_HINT,
    )
    assert (
        loader.describe_import_failure(exc, Path("/sub/bob.py")).message
        == "importing bob.py raised ValueError: math domain error"
    )


def test_describe_import_failure_of_an_exit():
    exc = raised(
        "def load():\n    exec(compile('x = 1\\nraise SystemExit(2)\\n', '/sub/alice.py', 'exec'), {})\n", "load"
    )
    assert_error(
        loader.describe_import_failure(exc, Path("/sub/alice.py")),
        "alice.py called exit() while being imported at line 2",
        verdicts.EXIT_AT_IMPORT_HINT,
    )


def test_describe_import_failure_ignores_a_library_file_with_a_name_ending_like_the_submissions():
    library = "def ones(n):\n    x = 1\n    raise ValueError('negative dimensions are not allowed')\n"
    namespace = {}
    exec(compile(library, "/site-packages/numpy/_core/numeric.py", "exec"), namespace)
    exc = raised("def load():\n    ones(-1)\n", "load", "/sub/numeric.py", ones=namespace["ones"])
    expected = "importing numeric.py raised ValueError at line 2: negative dimensions are not allowed"
    assert loader.describe_import_failure(exc, Path("/sub/numeric.py")).message == expected


def submission(tmp_path, name: str, source: str) -> Implementation:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return Implementation.parse(str(path), labs.get("ch06"))


@pytest.mark.parametrize(
    ("source", "same_as_the_wall"),
    [
        (
            "import numpy as np\n\nx = np.ones(-1)\n",
            verdicts.import_failed("alice.py", "ValueError", 3, "negative dimensions are not allowed"),
        ),
        ("import math\nraise SystemExit(2)\n", verdicts.import_failed("alice.py", "SystemExit", 2, "2")),
        ("x = 1\nexit()\n", verdicts.import_failed("alice.py", "SystemExit", 2, "None")),
        ("class Value:\n    def f(self:\n        pass\n", verdicts.syntax_error("alice.py", 2, "'(' was never closed")),
    ],
)
def test_load_words_a_failing_import_as_the_wall_does(tmp_path, source, same_as_the_wall):
    impl = submission(tmp_path, "alice.py", source)
    before = set(sys.modules)
    with pytest.raises(SubmissionError) as info:
        loader.load(labs.get("ch06"), impl)
    assert (info.value.message, info.value.hint) == (same_as_the_wall.message, same_as_the_wall.hint)
    assert set(sys.modules) == before  # the half-imported module is not left registered


def test_load_of_a_missing_file(tmp_path):
    with pytest.raises(SubmissionError) as info:
        loader.load(labs.get("ch06"), Implementation("submission", tmp_path / "gone.py"))
    assert (info.value.message, info.value.hint) == ("no file to grade at gone.py", "check the path you gave")


def test_load_of_a_file_that_imports_cleanly(tmp_path):
    module = loader.load(labs.get("ch06"), submission(tmp_path, "alice.py", "class Value:\n    pass\n"))
    assert module.Value.__module__ == module.__name__
    assert sys.modules.pop(module.__name__) is module

"""The `grader` command: exit statuses, one-line usage errors, and broken submissions reported, not fatal."""

import dataclasses
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs, verdicts
from grader.cli import main
from grader.grading import runner
from grader.implementation import Implementation
from tests.grading import SLEEPS
from tests.mutation import reference_source

KIT_ROOT = labs.KIT_ROOT


def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "--lab", "ch99"], "unknown lab 'ch99'; the labs are: ch06"),
        (["run", "--lab", "ch06", "--submission", "no/such/file.py"], "no such file: no/such/file.py"),
        (["run", "--lab", "ch06", "--submission", "."], "not a file: ."),
        (["run", "--lab", "ch06", "--impl", "ref", "--submission", "x.py"], "either --impl or --submission"),
        (
            ["run", "--lab", "ch06", "--task", "Value"],
            "unknown task 'Value' in lab ch06; its tasks are: value, tensor, gradcheck, exercises, xor",
        ),
    ],
)
def test_usage_errors_exit_2_with_one_line(args, expected):
    result = run_cli(*args)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grader: error:") and expected in lines[0], result.output


def test_no_sandbox_for_a_submission_is_one_line_before_any_heading(tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_SANDBOX", "bogus")  # as a machine that cannot make the one asked for
    (tmp_path / "alice.py").write_text(reference_source("ch06"))
    result = run_cli("run", "--lab", "ch06", "--submission", str(tmp_path / "alice.py"))
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        "grader: error: LABKIT_SANDBOX must be auto, bubblewrap, unprivileged-user, none; not 'bogus'"
    ]


def test_bad_option_value_exits_2():
    result = CliRunner().invoke(main, ["run", "--lab", "ch06", "--impl", "theirs"])
    assert result.exit_code == 2


def test_lab_names_people_type_are_accepted():
    assert labs.normalize_lab_id("06") == labs.normalize_lab_id("6") == labs.normalize_lab_id("CH06") == "ch06"


def test_python_dash_m_grader_works():
    proc = subprocess.run([sys.executable, "-m", "grader", "--help"], capture_output=True, text=True, cwd=KIT_ROOT)
    assert proc.returncode == 0 and "run" in proc.stdout and "list" in proc.stdout


def test_every_command_is_listed_and_each_lazy_one_loads_under_its_name():
    proc = subprocess.run([sys.executable, "-m", "grader", "--help"], capture_output=True, text=True, cwd=KIT_ROOT)
    with main.make_context("grader", ["--help"], resilient_parsing=True) as ctx:
        for name in main.list_commands(ctx):
            command = main.get_command(ctx, name)
            assert command is not None and command.name == name
            assert command.hidden or name in proc.stdout


def test_list_shows_labs_tasks_and_points():
    result = run_cli("list")
    assert result.exit_code == 0
    assert "ch06" in result.output and "120 points" in result.output
    assert "Task 1: Value, the scalar engine" in result.output


def test_reference_exits_0_and_writes_a_report_without_absolute_paths(tmp_path):
    out = tmp_path / "report.json"
    result = run_cli("run", "--lab", "ch06", "--impl", "ref", "--json", str(out))
    assert result.exit_code == 0, result.output
    assert "Total: 120/120" in result.output
    text = out.read_text()
    assert str(KIT_ROOT) not in text and str(tmp_path) not in text and "/home/" not in text
    assert json.loads(text)["score"] == 120


def test_a_reader_that_leaves_early_stops_neither_the_run_nor_its_report(tmp_path):
    """`grader run ... | head -1`: the pipe closes after the first line. The run goes on, writes its report, and
    exits with its own status (a review's finding: exit 1, "points lost", for the reference, and no report)."""
    out = tmp_path / "report.json"
    command = [sys.executable, "-m", "grader", "run", "--lab", "lesson1_3", "--impl", "ref", "--json", str(out)]
    proc = subprocess.Popen(command, cwd=KIT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().startswith(b"lesson1_3: ")  # the table's heading
    proc.stdout.close()  # as head does once it has its line
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr.decode()
    assert json.loads(out.read_text())["score"] == json.loads(out.read_text())["max_score"]


def test_starter_exits_1_saying_what_to_write_first_and_hinting_at_no_bug():
    result = run_cli("run", "--lab", "ch06", "--impl", "mine")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert "not implemented yet: Task 1: Value, the scalar engine - implement Value.__init__" in result.output
    assert not [line for line in lines if line.strip().startswith("hint:")]  # a stub is no bug
    assert len(lines) < 60  # not a row and a message per test: the tests a stub stops share one
    assert lines[-1] == (
        "next: Task 1: Value, the scalar engine: implement Value.__init__ (handout: labs/ch06/README.md)"
        " (starter.py:29 in __init__)"
    )
    assert run_cli("run", "--lab", "ch06", "--failures-only").output == result.output  # kept for old scripts


def test_one_task_is_graded_alone_and_its_status_is_the_tasks(tmp_path):
    out = tmp_path / "value.json"
    result = run_cli("run", "--lab", "ch06", "--impl", "ref", "--task", "value", "--json", str(out))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line.split("  ")[0] for line in lines if line.startswith("Task ")] == ["Task 1: Value, the scalar engine"]
    assert lines[-3:] == [
        "Total for Task 1: Value, the scalar engine only: 26/26  (30 passed); the other tasks were not run",
        "next: every test of Task 1: Value, the scalar engine passed; grade the whole lab to see the other tasks",
        f"report: {out}",
    ]
    document = json.loads(out.read_text())
    assert document["partial"] == {"task": "value"} and document["score"] == 26 and not document["all_passed"]
    mine = run_cli("run", "--lab", "ch06", "--impl", "mine", "--task", "tensor")
    assert mine.exit_code == 1 and "Total for Task 2: Tensor, the array engine only: 0/56" in mine.output


def grade_file(tmp_path, name, source, *extra):
    path = tmp_path / name
    path.write_text(source)
    out = tmp_path / "report.json"
    result = run_cli("run", "--lab", "ch06", "--submission", str(path), "--json", str(out), *extra)
    return result, json.loads(out.read_text())


# Broken at import: every test errors with one message; behind the wall (the default for a
# submission) and in-process alike, with what each mode says about the cause (the same, unless a
# second message is given for behind the wall).
BROKEN = {
    "syntax_error.py": ("class Value:\n    def __init__(self, data)\n        pass\n", "SyntaxError at line 2", None),
    "exits.py": ("import numpy as np\nexit(0)\n", "called exit() while being imported", None),
    "raises.py": ("import numpy as np\n\nx = 1 / 0\n", "raised ZeroDivisionError at line 3", None),
    "empty.py": (
        "",
        "empty.py is empty (0 bytes): save your code in it",
        None,
    ),  # as the batch words it (grader.intake)
    # The lab's allow-list, in both modes: what is refused is refused before Python looks for it.
    "missing_module.py": (
        "import torch_but_not_installed\n",
        "ImportError at line 1: labkit: this lab does not allow importing 'torch_but_not_installed'",
        None,
    ),
    "not_allowed.py": (
        "import numpy as np\nfrom collections import defaultdict\n",
        "ImportError at line 2: labkit: this lab does not allow importing 'collections' (allowed: math, numpy)",
        None,
    ),
}


@pytest.mark.parametrize("isolation", ["worker", "in-process"])
@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_submission_errors_every_test_with_one_clear_message(tmp_path, name, isolation):
    source, in_process, behind_the_wall = BROKEN[name]
    expected = (behind_the_wall or in_process) if isolation == "worker" else in_process
    result, report = grade_file(tmp_path, name, source, "--isolation", isolation)
    assert result.exit_code == 1
    assert report["score"] == 0 and report["isolation"]["mode"] == isolation
    assert len(report["tests"]) == len(runner.collect(labs.get("ch06")))  # every test reported, none skipped
    messages = {t["message"] for t in report["tests"]}
    assert all(t["outcome"] == "error" for t in report["tests"]), messages
    assert all(expected in m for m in messages), messages
    # on the terminal: the one message, its hint, the total; not a row per test
    said = result.output.split("ERROR in every test, for one reason:\n")[1].splitlines()
    assert expected in " ".join(line.strip() for line in said[: said.index("")])
    assert not any(t["id"] in result.output for t in report["tests"]), result.output
    assert said[said.index("") + 1] == f"Total: 0/120  ({len(report['tests'])} error)"
    assert said[-2] == "next: " + (report["tests"][0]["hint"] or report["tests"][0]["message"])  # then "report:"


def test_submission_missing_one_name_loses_only_what_needs_it(tmp_path):
    source = reference_source("ch06").split("class Tensor:")[0]  # Value only
    result, report = grade_file(tmp_path, "value_only.py", source)
    assert result.exit_code == 1
    by_task = {t["id"]: t for t in report["tasks"]}
    assert by_task["value"]["score"] == by_task["value"]["max_score"]
    tensor_tests = [t for t in report["tests"] if t["task"] == "tensor"]
    assert all(t["outcome"] == "error" and "does not define Tensor" in t["message"] for t in tensor_tests)


EXP = 'out = Value(math.exp(self.data), (self,), "exp")'
SPINS = {
    "spins": "while True: pass",
    # A loop in C, where no signal reaches Python code: in-process only the runner's watchdog stops it, by
    # killing the test process (the tests left then run in a fresh one, told that a test timed out).
    "in_c": "sum(range(10**15))",
}
TANH = "t = math.tanh(self.data)"


def test_crash_and_hang_in_one_operation_cost_only_their_tests(tmp_path, monkeypatch):
    source = reference_source("ch06")
    # The process ends as os._exit(3) would end it, without an import the lab's allow-list refuses.
    source = source.replace(
        'out = Value(math.log(self.data), (self,), "log")', "np.ctypeslib.ctypes.CDLL(None)._exit(3)"
    ).replace(EXP, SLEEPS)
    monkeypatch.setitem(labs.get("ch06").limits, "test_seconds", 3)
    result, report = grade_file(tmp_path, "crash_and_hang.py", source, "--isolation", "in-process")
    outcomes = {t["id"]: t["outcome"] for t in report["tests"]}
    assert outcomes["test_value_unary_functions[log]"] == "crashed"
    assert outcomes["test_value_unary_functions[exp]"] == "timeout"
    assert "exit status 3" in next(t["message"] for t in report["tests"] if t["outcome"] == "crashed")
    assert "crash_and_hang.py" in next(t["message"] for t in report["tests"] if t["id"].endswith("[exp]"))
    lost = {i for i, o in outcomes.items() if o != "passed"}
    assert lost == {
        "test_value_unary_functions[log]",
        "test_value_unary_functions[exp]",
        "test_value_unary_functions[chain]",
        "test_value_used_twice_gets_both_contributions",
        "test_value_random_graphs",  # its graphs use exp and log
        "hidden/test_hidden.py::test_hidden_value_operations_at_other_points",  # the lab's hidden tests too
    }
    assert outcomes["test_value_random_graphs"] in {"crashed", "timeout"}


def test_a_submission_is_graded_behind_the_wall_by_default(tmp_path):
    result, report = grade_file(tmp_path, "honest.py", reference_source("ch06"))
    assert result.exit_code == 0, result.output
    assert report["isolation"]["mode"] == "worker" and report["isolation"]["protections"]
    assert "(worker)" in result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--limit", "test_seconds"], "--limit takes NAME=NUMBER"),
        # Python's int() reads these as 10 and 3; a limit is written in plain digits
        (["--limit", "test_seconds=1_0"], "--limit test_seconds=1_0: test_seconds must be"),
        (["--limit", "test_seconds=\u0663"], "test_seconds must be"),
        (["--limit", "test_seconds=inf"], "test_seconds must be"),
        (["--impl", "ref", "--isolation", "worker"], "the reference is trusted"),
    ],
)
def test_bad_isolation_and_limit_options_exit_2(args, expected):
    result = run_cli("run", "--lab", "ch06", *args)
    assert result.exit_code == 2 and expected in result.output


def test_limits_can_be_lowered_from_the_command_line(tmp_path):
    source = reference_source("ch06").replace(EXP, SPINS["spins"])
    result, report = grade_file(tmp_path, "spins.py", source, "--limit", "test_seconds=1", "--limit", "cpu_seconds=1")
    spun = [t for t in report["tests"] if t["id"] == "test_value_unary_functions[exp]"][0]
    assert spun["outcome"] == "timeout" and "1 s" in spun["message"], spun


@pytest.mark.parametrize("loop", list(SPINS))
def test_after_a_timeout_each_later_test_has_the_shorter_limit_in_both_modes(tmp_path, monkeypatch, loop):
    """A loop that never ends in an operation many tests call costs the first of them test_seconds, and
    each later one test_seconds_after_timeout: every test still gets its verdict, the same in both modes."""
    monkeypatch.setattr(runner, "HANG_GRACE_SECONDS", 0.5)  # the watchdog's margin past a test's limit
    # Its import (0.7 s alone) takes longer than the shorter limit: an import keeps its own time (behind the
    # wall a fresh child's import_seconds; in-process a test that imports has the lab's test_seconds). It runs
    # again at every restart, and each limit is spent spinning: both are kept small, the whole test's cost.
    source = "SLOW_IMPORT = sum(range(2 * 10**7))\n" + reference_source("ch06").replace(EXP, SPINS[loop])
    # In-process the import counts in the test that makes it: room for it on a loaded machine (a slow
    # VM's `make test` took 1.8 s for it).
    limits = ["--limit", "test_seconds=3", "--limit", "test_seconds_after_timeout=0.3"]
    outcomes = {}
    for isolation in ("worker", "in-process"):
        _, report = grade_file(tmp_path, f"{loop}.py", source, "--task", "value", "--isolation", isolation, *limits)
        assert report["limits"]["test_seconds_after_timeout"] == 0.3
        value = [t for t in report["tests"] if t["task"] == "value"]
        timeouts = [t for t in value if t["outcome"] == "timeout"]
        first, later = timeouts[0], timeouts[1:]
        assert first["id"] == "test_value_unary_functions[exp]", timeouts
        assert "its limit of 3 s" in first["message"] and "earlier test timed out" not in first["message"], first
        if loop == "in_c" and isolation == "in-process":  # the watchdog's words: it knows no line
            assert "it was running" not in first["message"] + later[0]["message"], timeouts
        assert len(later) >= 3, timeouts  # [chain], the node used twice, the random graphs, the hidden test
        for test in later:
            if isolation == "in-process" and test["id"].startswith("hidden/"):  # the hidden tests' file imports it
                assert "its limit of 3 s" in test["message"] and "earlier" not in test["message"], test
                continue
            assert "its limit of 0.3 s" in test["message"], test
            assert test["message"].count("an earlier test timed out") == 1, test  # said once, by whoever timed it
            assert "test_seconds_after_timeout" in test["message"]
        unexpected = [(t["id"], t["outcome"], t["message"]) for t in value if t["outcome"] not in ("passed", "timeout")]
        assert not unexpected, (isolation, unexpected)  # none left unrun, none an error
        outcomes[isolation] = {t["id"]: t["outcome"] for t in value}
    assert outcomes["worker"] == outcomes["in-process"]


@pytest.mark.parametrize("isolation", ["worker", "in-process"])
def test_the_shorter_limit_after_a_timeout_is_each_submissions_own_in_a_queue(tmp_path, isolation):
    """A batch job's session (a `grader mutants` one in-process) grades the next student with the lab's limits,
    whatever the last one did: the second student's first hang is in a test that had the shorter limit for the
    first student (pytest-timeout's timer once read the last student's decision for it)."""
    hangs, hangs_in_tanh = tmp_path / "hangs.py", tmp_path / "hangs_in_tanh.py"
    hangs.write_text(reference_source("ch06").replace(EXP, SLEEPS))
    hangs_in_tanh.write_text(reference_source("ch06").replace(TANH, SLEEPS))
    lab = dataclasses.replace(
        labs.get("ch06"), limits={**labs.get("ch06").limits, "test_seconds": 1.5, "test_seconds_after_timeout": 0.5}
    )
    submissions = [Implementation("submission", hangs), Implementation("submission", hangs_in_tanh)]
    first, second = runner.run_many(lab, submissions, isolation=isolation)
    for run, hangs_first in [(first, "test_value_unary_functions[exp]"), (second, "test_value_unary_functions[tanh]")]:
        timeouts = [r for r in run.results if r.outcome == "timeout"]
        assert timeouts[0].id == hangs_first and "its limit of 1.5 s" in timeouts[0].message, timeouts[0]
        assert "earlier test" not in timeouts[0].message, timeouts[0]
        later = [r for r in timeouts[1:] if not (isolation == "in-process" and r.id.startswith("hidden/"))]
        assert all("its limit of 0.5 s" in r.message for r in later) and len(later) > 1, timeouts


def test_plain_pytest_keeps_its_own_timeout_after_a_timeout(tmp_path):
    """Run by hand (no grader's orders), pytest-timeout's limit is the one given, for every test: nothing shortens
    it, and no verdict says so."""
    spins = tmp_path / "spins.py"
    spins.write_text(reference_source("ch06").replace(EXP, SPINS["spins"]))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "labs/ch06/test_lab.py", "-q", "-p", "no:cacheprovider", "--timeout=1"]
        + ["-k", "unary_functions and (exp or chain)", "-rf"],
        cwd=KIT_ROOT,
        env=dict(os.environ, IMPL=str(spins)),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and proc.stdout.count("Timeout (>1.0s)") >= 2, proc.stdout[-3000:]
    assert "earlier test timed out" not in proc.stdout


def test_plain_pytest_reads_impl_from_the_environment():
    env = dict(os.environ, IMPL="ref")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "labs/ch06/test_lab.py", "-q", "-k", "value", "-p", "no:cacheprovider"],
        cwd=KIT_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_make_lab_without_a_lab_says_how():
    proc = subprocess.run(["make", "-s", "lab"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "make lab CH=06" in proc.stderr


def test_make_lab_grades_a_path_with_spaces_and_quotes(tmp_path):
    """A student's folder may be "My labs": make splits words at spaces, the kit's Makefile does not let it."""
    folder = tmp_path / "My labs"
    folder.mkdir()
    submission = folder / "Bob's lab 06.py"
    submission.write_text(reference_source("ch06"), encoding="utf-8")
    report = KIT_ROOT / "reports" / "ch06-Bob's_lab_06.json"
    try:
        proc = subprocess.run(
            ["make", "-s", "lab", "CH=06", f"IMPL={submission}"], cwd=KIT_ROOT, capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert json.loads(report.read_text())["score"] == 120
    finally:
        report.unlink(missing_ok=True)


@pytest.mark.parametrize(("impl", "status"), [("ref", 0), ("mine", 1), ("no/such/file.py", 2)])
def test_make_lab_exits_with_the_graders_status(impl, status):
    proc = subprocess.run(["make", "-s", "lab", "CH=06", f"IMPL={impl}"], cwd=KIT_ROOT, capture_output=True, text=True)
    assert proc.returncode == status, proc.stderr[-2000:]
    if status < 2:
        assert "Total: " in proc.stderr + proc.stdout


def test_reports_hold_no_absolute_paths_for_a_submission(tmp_path):
    result, report = grade_file(tmp_path, "syntax_error.py", BROKEN["syntax_error.py"][0])
    text = json.dumps(report)
    assert str(tmp_path) not in text and str(KIT_ROOT) not in text
    assert report["implementation"]["name"] == "syntax_error.py"


@pytest.mark.parametrize("isolation", ["worker", "in-process"])
def test_a_submission_named_without_py_is_graded_as_it_is_in_every_mode(tmp_path, isolation):
    path = tmp_path / "my_engine"
    path.write_text(reference_source("ch06"))
    out = tmp_path / "report.json"
    result = run_cli("run", "--lab", "ch06", "--submission", str(path), "--isolation", isolation, "--json", str(out))
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["score"] == 120


@pytest.mark.parametrize("what", ["missing", "a folder"])
def test_make_lab_without_the_starter_says_to_restore_it(tmp_path, monkeypatch, what):
    lab = dataclasses.replace(labs.get("ch06"), folder=tmp_path)
    if what == "a folder":
        (tmp_path / "starter.py").mkdir()
    monkeypatch.setattr("grader.cli.run.lab_named", lambda name: lab)
    result = run_cli("run", "--lab", "ch06", "--impl", "mine")
    assert result.exit_code == 2, result.output
    assert "labs/ch06/starter.py is missing: restore it (your work goes in it)" in result.output


def test_a_json_report_is_written_only_where_it_replaces_nothing_but_a_report(tmp_path):
    """--json is checked before any grading: never the file under test, a link, a pipe or a device,
    never where no file can be made; a usage error says which."""
    path = tmp_path / "mine.py"
    path.write_text(reference_source("ch06"))
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "link.json").symlink_to(tmp_path / "elsewhere.json")
    cases = {
        str(path): "is the file under test",
        str(tmp_path / "pipe"): "not a regular file",
        str(tmp_path / "link.json"): "not a regular file",
        "/dev/null": "not a regular file",
        str(path / "r.json"): "cannot be written",  # under a file
        "/proc/r.json": "cannot be written",  # even for root
        str(tmp_path / ("a" * 251 + ".json")): "more than the 255 a file name may have",  # make lab's, of a long name
    }
    for given, said in cases.items():
        result = run_cli("run", "--lab", "ch06", "--submission", str(path), "--json", given)
        assert result.exit_code == 2 and said in result.output, (given, result.output)
        assert "Task 1" not in result.output  # refused before grading
    assert path.read_text() == reference_source("ch06") and not (tmp_path / "elsewhere.json").exists()
    assert stat.S_ISFIFO((tmp_path / "pipe").stat().st_mode) and stat.S_ISCHR(Path("/dev/null").stat().st_mode)


def test_when_the_test_process_crashes_in_every_test_the_tests_left_say_so_not_a_time_limit(tmp_path):
    """In-process each crash costs its test and the rest run again in a fresh process, up to a limit of
    restarts: the tests never reached then say why, not that the lab's time ran out."""
    source = reference_source("ch06").replace(
        'out = Value(self.data + other.data, (self, other), "+")',
        "np.ctypeslib.ctypes.CDLL(None)._exit(0)",  # every Value addition ends the process
    )
    result, report = grade_file(tmp_path, "crashes.py", source, "--isolation", "in-process")
    crashed = [t for t in report["tests"] if t["outcome"] == "crashed"]
    not_run = [t for t in report["tests"] if t["outcome"] == "not_run"]
    assert len(crashed) == runner.MAX_RESTARTS + 1 and not_run, result.output
    assert {t["message"] for t in not_run} == {verdicts.too_many_crashes(runner.MAX_RESTARTS)}


def test_an_engine_of_float32_gets_the_same_verdicts_in_both_modes(tmp_path):
    """float32 everywhere: the checks fail alike in both modes, numerical_grad's among them, whose function runs
    beside the code (labs/ch06/loops.py) and whose float32 answer is refused on the trusted side."""
    source = reference_source("ch06").replace("np.float64", "np.float32")
    reports = []
    for mode in ("in-process", "worker"):
        (tmp_path / mode).mkdir()
        reports.append(grade_file(tmp_path / mode, "f32.py", source, "--isolation", mode)[1])
    outcomes = [{t["id"]: (t["outcome"], t.get("hint", "")) for t in report["tests"]} for report in reports]
    assert outcomes[0] == outcomes[1] and reports[0]["score"] == reports[1]["score"] < 120
    assert outcomes[1]["test_numerical_grad_agrees_with_your_engine"][0] == "failed"


def test_code_that_writes_a_file_gets_the_same_verdicts_in_both_modes(tmp_path):
    """Behind the wall the kernel refuses the code any new file; in-process the loader says the same, so
    a debugging log written from an operation costs the same tests, in the same words, in both modes."""
    add = 'out = Value(self.data + other.data, (self, other), "+")'
    source = reference_source("ch06").replace(add, f'open("labkit-trace.txt", "a").write("add\\n")\n        {add}')
    assert "labkit-trace.txt" in source
    reports = []
    for mode in ("in-process", "worker"):
        (tmp_path / mode).mkdir()
        reports.append(grade_file(tmp_path / mode, "trace.py", source, "--isolation", mode)[1])
    outcomes = [{t["id"]: (t["outcome"], t["message"]) for t in report["tests"]} for report in reports]
    assert outcomes[0] == outcomes[1] and reports[0]["score"] == reports[1]["score"] < 120
    lost = [message for outcome, message in outcomes[0].values() if outcome != "passed"]
    assert lost and all("may not create files or folders" in message for message in lost), lost
    assert not list(tmp_path.rglob("labkit-trace.txt")) and not (labs.KIT_ROOT / "labkit-trace.txt").exists()


def test_code_that_closes_its_standard_output_gets_the_same_verdicts_in_both_modes(tmp_path):
    """open(1).close() in an operation: in-process it closes the file pytest's capture put there for the
    test, not pytest's own output (without that capture the session stopped and the tests left were
    called out of time); behind the wall, the worker's."""
    relu = "def relu(self):"
    closes = "try:\n            open(1, 'w').close()\n        except OSError:\n            pass"
    source = reference_source("ch06").replace(relu, f"{relu}\n        {closes}", 1)
    assert source.count("open(1, 'w')") == 1
    reports = []
    for mode in ("in-process", "worker"):
        (tmp_path / mode).mkdir()
        reports.append(grade_file(tmp_path / mode, "closes.py", source, "--isolation", mode, "--task", "value")[1])
    outcomes = [{t["id"]: t["outcome"] for t in report["tests"] if t["task"] == "value"} for report in reports]
    assert outcomes[0] == outcomes[1] and set(outcomes[0].values()) == {"passed"}, outcomes


def test_an_engine_whose_shape_is_a_list_it_fills_in_later_gets_the_step_by_step_verdict(tmp_path):
    """A result's .shape is a list backward() fills in: when weighted() asks, it is empty. The check that
    reads everything at once takes the shape the code answered then (a copy, behind the wall kept in the
    worker), so the engine fails as it fails step by step (it scored 120 when the claim was read at the end)."""
    source = reference_source("ch06")
    start = source.index("class Tensor")
    tensor = source[start:].replace("self.shape", "self.data.shape").replace("other.shape", "other.data.shape")
    slots = '"_op", "_backward")'
    tensor = tensor.replace(slots, slots[:-1] + ', "_claim")')
    shape = 'def shape(self):\n        """The shape of ``data``."""\n        return self.data.shape'
    listed = (
        "def shape(self):\n        if self.grad is not None:\n            return list(self.data.shape)\n"
        "        if not hasattr(self, '_claim'):\n            self._claim = []\n        return self._claim"
    )
    fill = "        for node in reversed(order):  # consumers before their inputs"
    filled = (
        "        for node in order:\n            if hasattr(node, '_claim'):\n"
        "                node._claim[:] = node.data.shape\n"
    )
    assert shape in tensor and fill in tensor and '"_claim"' in tensor
    source = source[:start] + tensor.replace(shape, listed).replace(fill, filled + fill)
    reports = []
    for mode in ("in-process", "worker"):
        (tmp_path / mode).mkdir()
        reports.append(grade_file(tmp_path / mode, "listed.py", source, "--isolation", mode)[1])
    outcomes = [{t["id"]: t["outcome"] for t in report["tests"]} for report in reports]
    assert outcomes[0] == outcomes[1] and reports[0]["score"] == reports[1]["score"] < 100
    assert outcomes[0]["test_tensor_gradcheck[add_bias_broadcast]"] == "failed"

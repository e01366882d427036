"""The exports of the canonical report (JUnit, Gradescope, GitHub Classroom, job summary) and its JSON Schema."""

import copy
import json
import re
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from grader import labs
from grader.cli import main
from grader.grading import grade
from grader.implementation import Implementation
from grader.report import exports, schema
from grader.report.text import for_terminal, whole_points
from tests.handmade import report, test_row

GRADESCOPE_VISIBILITY = {"visible", "hidden", "after_due_date", "after_published"}
WEIRD = 'expected <tag a="1"> & "b" ]]> got \x00\x1b[31m | pipe\nline two\r\nline three'
WEIRD_HINT = "use `x | y` & <z>"
ODD_ID = "test_odd[a|b`c <d> & e]"


@pytest.fixture(scope="module")
def ref():
    lab = labs.get("ch06")
    return grade.grade(lab, Implementation.parse("ref", lab))


@pytest.fixture(scope="module")
def starter():
    lab = labs.get("ch06")
    return grade.grade(lab, Implementation.parse("mine", lab))


@pytest.fixture
def every_outcome():
    return report(
        [
            test_row("test_passes", "a", "passed", 0.25, 0.25),
            test_row("test_fraction", "a", "passed", 1.5, 1.5),
            test_row("test_fails", "a", "failed", 0, 0.333333, WEIRD, WEIRD_HINT),
            test_row("test_errors", "b", "error", 0, 1, "ZeroDivisionError: division by zero\n  at line 3"),
            test_row("test_hangs", "b", "timeout", 0, 2, "timeout: the test ran longer than its limit of 1 s"),
            test_row("test_dies", "b", "crashed", 0, 1, "crashed: the test process died (signal 9)"),
            test_row("test_never", "b", "not_run", 0, 1, "not run: the lab's tests used up their time limit of 5 s"),
            test_row(ODD_ID, "b", "failed", 0, 0.5, WEIRD, WEIRD_HINT),
        ],
        flags=[
            {"code": "disallowed-import", "line": 3, "message": "imports os, which this lab does not allow"},
            {"code": "dynamic-code", "line": 7, "message": "uses __import__ <script> | `x`"},
        ],
    )


@pytest.fixture
def no_tests():
    return report([])


@pytest.fixture(params=["ref", "starter", "every_outcome", "no_tests"])
def any_report(request):
    return request.getfixturevalue(request.param)


def _number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _visible(text):
    """How the exports show the control characters in WEIRD."""
    return text.replace("\x00", "\\x00").replace("\x1b", "\\x1b")


# Every export


@pytest.mark.parametrize(
    "export",
    [
        exports.junit_xml,
        exports.gradescope_results,
        exports.classroom_results,
        exports.job_summary_markdown,
    ],
)
def test_exports_are_deterministic_and_leave_the_report_alone(any_report, export):
    before = copy.deepcopy(any_report)
    assert export(any_report) == export(copy.deepcopy(any_report))
    assert any_report == before


def _strings(value):
    """Every string in an export: the text itself, or the keys and values of a JSON document."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.parametrize(
    "export", [exports.junit_xml, exports.gradescope_results, exports.classroom_results, exports.job_summary_markdown]
)
def test_no_export_carries_control_characters(every_outcome, export):
    strings = list(_strings(export(every_outcome)))
    assert any("\\x00" in text for text in strings)
    assert not any(re.search("[\x00-\x08\x0b\x0c\x0e-\x1f]", text) for text in strings)


# JUnit XML


def test_junit_parses_and_its_counts_match_the_report(any_report):
    root = ET.fromstring(exports.junit_xml(any_report))
    suite = root.find("testsuite")
    counts = any_report["counts"]
    expected = {
        "tests": len(any_report["tests"]),
        "failures": counts["failed"],
        "errors": counts["error"] + counts["timeout"] + counts["crashed"],
        "skipped": counts["not_run"],
    }
    for element in (root, suite):
        assert {k: int(element.get(k)) for k in expected} == expected
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        (f"{any_report['lab']}.{t['task']}", t["id"]) for t in any_report["tests"]
    ]
    assert len(suite.findall("testcase/failure")) == expected["failures"]
    assert len(suite.findall("testcase/error")) == expected["errors"]
    assert len(suite.findall("testcase/skipped")) == expected["skipped"]
    for case, test in zip(cases, any_report["tests"], strict=True):
        # Rounded to the millisecond: half a millisecond off at most, and float's own error on that half
        # (0.0095 is stored below it and rounds to 0.009, 0.0005000000000000004 away).
        assert float(case.get("time")) == pytest.approx(test["duration_s"], abs=5e-4 + 1e-9)


def test_junit_names_each_error_kind_and_carries_odd_text(every_outcome):
    suite = ET.fromstring(exports.junit_xml(every_outcome)).find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert {name: cases[name].find("error").get("type") for name in ("test_errors", "test_hangs", "test_dies")} == {
        "test_errors": "error",
        "test_hangs": "timeout",
        "test_dies": "crashed",
    }
    assert cases["test_never"].find("skipped") is not None
    assert list(cases["test_passes"]) == []
    failure = cases[ODD_ID].find("failure")
    # Markup, quotes and ]]> survive exactly; what XML 1.0 cannot carry is shown as an escape.
    assert failure.get("message") == WEIRD.replace("\x00", "\\x00").replace("\x1b", "\\x1b")
    assert "]]>" in failure.text and "<tag" in failure.text and f"hint: {WEIRD_HINT}" in failure.text
    assert "disallowed-import" in suite.find("system-out").text


def test_junit_of_a_report_without_tests_is_an_empty_suite(no_tests):
    suite = ET.fromstring(exports.junit_xml(no_tests)).find("testsuite")
    assert suite.get("tests") == "0" and suite.findall("testcase") == []


# Gradescope


def test_gradescope_results_follow_the_spec(any_report):
    results = exports.gradescope_results(any_report)
    assert json.loads(json.dumps(results)) == results
    assert _number(results["score"]) and results["score"] == any_report["score"]
    assert _number(results["execution_time"])
    assert isinstance(results["output"], str)
    assert results["visibility"] in GRADESCOPE_VISIBILITY and results["stdout_visibility"] == "hidden"
    assert len(results["tests"]) == len(any_report["tests"])
    by_id = {t["extra_data"]["id"]: t for t in results["tests"]}
    titles = {t["id"]: t["title"] for t in any_report["tasks"]}
    for test in any_report["tests"]:
        out = by_id[_visible(test["id"])]
        tier = test.get("tier", "visible")  # a report without tiers: every test is a visible one
        hidden = tier == "hidden"
        assert out["name"] == _visible(f"{titles[test['task']]}: {test['id']}" + " (hidden test)" * hidden)
        assert re.fullmatch(r"\d+\.\d+", out["number"]) and out["tags"] == [test["task"], *["hidden"] * hidden]
        assert _number(out["score"]) and _number(out["max_score"])
        assert out["status"] == ("passed" if test["outcome"] == "passed" else "failed")
        assert out["visibility"] == exports.GRADESCOPE_DEFAULT_VISIBILITY[tier]
        assert out["extra_data"] == {"id": _visible(test["id"]), "tier": tier, "outcome": test["outcome"]}
        assert _visible(test["message"]) in out["output"] and _visible(test["hint"]) in out["output"]
    assert sum(t["score"] for t in results["tests"]) == pytest.approx(any_report["score"])
    assert sum(t["max_score"] for t in results["tests"]) == pytest.approx(any_report["max_score"])


def test_gradescope_numbers_the_tests_by_task_in_the_labs_order(ref):
    results = exports.gradescope_results(ref)
    order = {task["id"]: i for i, task in enumerate(ref["tasks"])}  # by task, a task's hidden tests last
    ranked = sorted(ref["tests"], key=lambda t: (order[t["task"]], t["tier"] == "hidden"))
    assert [t["extra_data"]["id"] for t in results["tests"]] == [t["id"] for t in ranked]
    assert ranked == ref["tests"] and [t for t in ranked if t["tier"] == "hidden"]  # the order they ran in
    expected = []
    for number, task in enumerate(ref["tasks"], start=1):
        expected += [f"{number}.{i}" for i in range(1, task["tests"] + 1)]
    assert [t["number"] for t in results["tests"]] == expected
    assert results["tests"][0]["name"] == "Task 1: Value, the scalar engine: test_value_stores_float_data_and_zero_grad"


def test_gradescope_output_summarizes_score_and_flags_but_not_the_sandbox(every_outcome):
    output = exports.gradescope_results(every_outcome)["output"]
    assert (
        output.splitlines()[1] == "Score: 1.75/7.583333 (2 passed, 2 failed, 1 error, 1 timeout, 1 crashed, 1 not run)"
    )
    assert "disallowed-import" in output and "uses __import__" in output  # `grader run` shows the student these
    for protection in every_outcome["isolation"]["protections"]:
        assert protection not in output
    assert "namespace" not in output and "worker" not in output and "Isolation" not in output


def test_gradescope_instructor_notes_carry_the_isolation_and_its_protections(every_outcome):
    isolated = {**every_outcome, "isolation": {**every_outcome["isolation"], "level": "bubblewrap"}}
    notes = exports.gradescope_instructor_notes(isolated).splitlines()
    assert notes[0] == "Score: 1.75/7.583333 (2 passed, 2 failed, 1 error, 1 timeout, 1 crashed, 1 not run)"
    assert "Isolation: worker, bubblewrap sandbox" in notes
    assert "  protection: network namespace: no network" in notes and "  protection: PID namespace" in notes
    assert any(line.startswith("Limits: test_seconds=") for line in notes)
    assert "Flag: line 3 [disallowed-import] imports os, which this lab does not allow" in notes


def tiered(row: dict, tier: str) -> dict:
    return {**row, "tier": tier}


@pytest.fixture
def with_hidden():
    """Two tasks, each with visible tests and hidden ones, the hidden listed first as a run may give them."""
    return report(
        [
            tiered(test_row("test_secret_a", "a", "failed", 0, 4, "wrong: secret case"), "hidden"),
            test_row("test_a1", "a", "passed", 1, 1),
            tiered(test_row("test_a2", "a", "failed", 0, 2, "off by one"), "visible"),
            tiered(test_row("test_secret_b", "b", "passed", 3, 3), "hidden"),
            test_row("test_b1", "b", "passed", 0.5, 0.5),
            tiered(test_row("test_secret_b2", "b", "failed", 0, 1, "shape"), "hidden"),
        ],
        tasks=[("a", "Task 1: first"), ("b", "Task 2: second")],
    )


def test_gradescope_numbers_hidden_tests_after_their_tasks_visible_ones(with_hidden):
    tests = exports.gradescope_results(with_hidden)["tests"]
    assert [(t["number"], t["extra_data"]["id"], t["visibility"]) for t in tests] == [
        ("1.1", "test_a1", "visible"),
        ("1.2", "test_a2", "visible"),
        ("1.3", "test_secret_a", "after_due_date"),
        ("2.1", "test_b1", "visible"),
        ("2.2", "test_secret_b", "after_due_date"),
        ("2.3", "test_secret_b2", "after_due_date"),
    ]
    assert tests[2]["name"] == "Task 1: first: test_secret_a (hidden test)" and tests[2]["tags"] == ["a", "hidden"]
    assert tests[2]["output"] == "wrong: secret case" and tests[2]["score"] == 0 and tests[2]["max_score"] == 4


def test_gradescope_output_counts_hidden_tests_without_naming_them(with_hidden):
    results = exports.gradescope_results(with_hidden)
    assert results["output"].splitlines()[1:] == [
        "Score of the 3 tests shown now: 1.5/3.5 (2 passed, 1 failed)",
        "3 hidden tests (8 points), shown after the due date",
    ]
    assert "secret" not in results["output"] and results["score"] == 4.5  # the grade counts every test
    assert results["visibility"] == "visible"
    notes = exports.gradescope_instructor_notes(with_hidden).splitlines()
    assert "hidden tests: 3/8 (1 passed, 2 failed); students: after_due_date" in notes


@pytest.mark.parametrize("value", sorted(GRADESCOPE_VISIBILITY))
def test_gradescope_visibility_per_tier(with_hidden, value):
    results = exports.gradescope_results(with_hidden, visibility={"visible": value, "hidden": "hidden"})
    assert {t["extra_data"]["id"]: t["visibility"] for t in results["tests"]} == {
        "test_a1": value,
        "test_a2": value,
        "test_b1": value,
        "test_secret_a": "hidden",
        "test_secret_b": "hidden",
        "test_secret_b2": "hidden",
    }
    assert results["visibility"] == value
    lines = results["output"].splitlines()[1:]
    assert lines[-1] == "3 hidden tests (8 points), never shown to students"
    if value == "visible":
        assert lines[0] == "Score of the 3 tests shown now: 1.5/3.5 (2 passed, 1 failed)"
    else:  # no score at all until the visible tests are shown: the student's score would give the hidden away
        assert lines[0] == f"3 tests (3.5 points), {exports.SHOWN_WHEN[value]}" and "Score" not in results["output"]


def test_gradescope_shows_hidden_tests_when_asked_and_treats_an_unknown_tier_as_hidden(with_hidden):
    results = exports.gradescope_results(with_hidden, visibility={"hidden": "visible"})
    assert {t["visibility"] for t in results["tests"]} == {"visible"}
    assert results["output"].splitlines()[1] == "Score: 4.5/11.5 (3 passed, 3 failed)"
    odd = report(
        [tiered(test_row("test_bonus", "a", "passed", 1, 1), "bonus"), test_row("test_a1", "a", "passed", 1, 1)]
    )
    tests = exports.gradescope_results(odd)["tests"]
    assert [(t["extra_data"]["id"], t["visibility"]) for t in tests] == [
        ("test_a1", "visible"),
        ("test_bonus", "after_due_date"),
    ]


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        (
            {"visible": "public"},
            "visibility of visible tests must be one of visible, hidden, after_due_date, after_published",
        ),
        ({"bonus": "visible"}, "unknown test tier 'bonus': the tiers are visible, hidden"),
    ],
)
def test_gradescope_visibility_is_checked(ref, choice, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        exports.gradescope_results(ref, visibility=choice)


# GitHub Classroom


@pytest.mark.parametrize(("fixture", "points"), [("ref", (120, 120)), ("starter", (0, 120)), ("no_tests", (0, 0))])
def test_classroom_points_of_known_reports(request, fixture, points):
    """What the reporter's notice says, ``Points X/Y``: the tests' scores summed, over ``max_score`` (ch06 in
    this kit: 100 visible points and 20 hidden ones; a fork has only the visible ones)."""
    results = exports.classroom_results(request.getfixturevalue(fixture))
    assert (sum(t["score"] for t in results["tests"]), results["max_score"]) == points


def test_classroom_results_add_up_like_the_reporter_does(any_report):
    """One lab in whole points, the score rounded down: the tests' scores are whole and add up to it."""
    results = exports.classroom_results(any_report)
    assert json.loads(json.dumps(results)) == results
    assert results["version"] == 1 and results["max_score"] == whole_points(any_report["max_score"])
    assert sum(t["score"] for t in results["tests"]) == whole_points(any_report["score"])
    assert all(type(t["score"]) is int and t["score"] >= 0 for t in results["tests"])
    assert {t["status"] for t in results["tests"]} <= {"pass", "fail", "error"}
    for out, test in zip(results["tests"], any_report["tests"], strict=True):
        # printed in a job's log: as a terminal shows it (its CR LF a new line), never a workflow command
        assert out["name"] == test["id"] and for_terminal(test["message"]) in out["message"]
        assert re.fullmatch(r"\d+\.\d{3}s", out["execution_time"])
        assert out["line_no"] == (test.get("line") or 0)  # the reporter prints " - line N" when not 0
    assert (results["status"] == "pass") == any_report["all_passed"]


def test_classroom_scores_never_award_a_point_not_earned(every_outcome):
    """1.75 earned of 7.58: 1 of 7. A test's whole score is what its points complete in the running total."""
    results = exports.classroom_results(every_outcome)
    assert (results["max_score"], sum(t["score"] for t in results["tests"])) == (7, 1)
    assert [t["score"] for t in results["tests"]][:2] == [0, 1]  # 0.25, then 0.25 + 1.5 = 1.75
    assert sum([0.1] * 10) < 1 and whole_points(sum([0.1] * 10)) == 1  # ten tenths earned are a point
    assert whole_points(0.999) == 0 and whole_points(43.5) == 43


def test_classroom_results_point_at_the_students_line(starter):
    tests = exports.classroom_results(starter)["tests"]
    assert {t["filename"] for t in tests} == {"labs/ch06/starter.py"} and all(t["line_no"] > 0 for t in tests)


def test_classroom_statuses(ref, starter, every_outcome):
    assert exports.classroom_results(ref)["status"] == "pass"
    assert exports.classroom_results(starter)["status"] == "fail"
    statuses = {t["name"]: t["status"] for t in exports.classroom_results(every_outcome)["tests"]}
    assert statuses == {
        "test_passes": "pass",
        "test_fraction": "pass",
        "test_fails": "fail",
        "test_errors": "error",
        "test_hangs": "error",
        "test_dies": "error",
        "test_never": "error",
        ODD_ID: "fail",
    }


# Job summary


def _unescaped_pipes(line):
    return len(re.findall(r"(?<!\\)\|", line))


def test_job_summary_tables_keep_their_columns(any_report):
    markdown = exports.job_summary_markdown(any_report)
    assert "\x00" not in markdown
    table_width = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            table_width = None
            continue
        assert line.endswith("|"), line
        table_width = table_width or _unescaped_pipes(line)
        assert _unescaped_pipes(line) == table_width, line


def test_job_summary_of_the_starter_lists_tasks_and_lost_points(starter):
    markdown = exports.job_summary_markdown(starter)
    assert markdown.startswith("## ch06: ")
    assert "**Score: 0/120 (90 failed)**" in markdown and "isolation: in-process" in markdown
    for task in starter["tasks"]:
        assert f"| {task['title']} | 0/{task['max_score']} | 0/{task['tests']} |" in markdown
    assert "Tests that lost points (90)" in markdown
    assert "`test_value_stores_float_data_and_zero_grad`" in markdown
    assert "same as above" in markdown


def test_job_summary_of_the_reference_has_no_failures(ref):
    markdown = exports.job_summary_markdown(ref)
    assert "**Score: 120/120 (90 passed)**" in markdown and "lost points" not in markdown


def test_job_summary_escapes_odd_text_and_lists_flags(every_outcome):
    markdown = exports.job_summary_markdown(every_outcome)
    assert "\\<tag" in markdown and "<tag" not in markdown.replace("\\<tag", "")
    assert "line two<br>line three" in markdown
    assert "``test_odd[a\\|b`c <d> & e]``" in markdown
    assert "uses \\_\\_import\\_\\_" in markdown and "dynamic-code" in markdown
    assert "worker (network namespace: no network; PID namespace)" in markdown


def test_job_summary_of_a_report_without_tests(no_tests):
    markdown = exports.job_summary_markdown(no_tests)
    assert "No tests were collected." in markdown and "**Score: 0/0 (no tests)**" in markdown


# The report schema


def test_the_schema_is_valid_draft_2020_12_and_requires_every_key():
    document = schema.load_schema()
    Draft202012Validator.check_schema(document)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # only CI reports carry integrity, only a run of one task (grader run --task) partial
    assert set(document["required"]) == set(document["properties"]) - {"integrity", "partial"}


def test_the_schema_accepts_real_and_handmade_reports(ref, starter, every_outcome, no_tests):
    for document in (ref, starter, every_outcome, no_tests):
        assert schema.validate_report(document) == []


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda r: r.pop("lab"), "'lab' is a required property"),
        (lambda r: r["tests"][0].update(outcome="skipped"), "$.tests[0].outcome"),
        (lambda r: r.update(extra=1), "'extra' was unexpected"),
        (lambda r: r.update(score="100"), "$.score"),
        (lambda r: r["tests"][0].update(note="x"), "$.tests[0]"),
        (lambda r: r["tasks"][0].pop("passed"), "'passed' is a required property"),
        (lambda r: r["counts"].update(skipped=0), "$.counts"),
        (lambda r: r["isolation"].update(mode="docker"), "$.isolation.mode"),
    ],
)
def test_the_schema_rejects_drift(ref, change, where):
    document = copy.deepcopy(ref)
    change(document)
    errors = schema.validate_report(document)
    assert errors and any(where in e for e in errors), errors


def test_every_report_grader_run_writes_validates(tmp_path):
    path = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["run", "--lab", "ch06", "--impl", "ref", "--json", str(path)])
    assert result.exit_code == 0, result.output
    assert schema.validate_report(json.loads(path.read_text(encoding="utf-8"))) == []

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
        exports.classroom_annotation,
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
        assert float(case.get("time")) == pytest.approx(test["duration_s"], abs=5e-4)


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
    assert results["visibility"] in GRADESCOPE_VISIBILITY and results["stdout_visibility"] in GRADESCOPE_VISIBILITY
    assert len(results["tests"]) == len(any_report["tests"])
    for out, test in zip(results["tests"], any_report["tests"], strict=True):
        assert out["name"] == test["id"]
        assert _number(out["score"]) and _number(out["max_score"])
        assert out["status"] == ("passed" if test["outcome"] == "passed" else "failed")
        assert out["visibility"] in GRADESCOPE_VISIBILITY
        assert _visible(test["message"]) in out["output"] and _visible(test["hint"]) in out["output"]
    assert sum(t["score"] for t in results["tests"]) == pytest.approx(any_report["score"])
    assert sum(t["max_score"] for t in results["tests"]) == pytest.approx(any_report["max_score"])


def test_gradescope_output_summarizes_score_isolation_and_flags(every_outcome):
    output = exports.gradescope_results(every_outcome)["output"]
    assert "1.75/7.583333" in output and "worker" in output
    assert "disallowed-import" in output and "uses __import__" in output


def test_gradescope_visibility_is_checked(ref):
    assert exports.gradescope_results(ref, visibility="after_published")["tests"][0]["visibility"] == "after_published"
    with pytest.raises(ValueError, match="visibility"):
        exports.gradescope_results(ref, visibility="public")


# GitHub Classroom


def test_classroom_points_line_says_score_over_max_score(any_report):
    line = exports.classroom_annotation(any_report)
    assert line == f"::notice title=Autograding complete::Points {any_report['score']}/{any_report['max_score']}"


@pytest.mark.parametrize(("fixture", "points"), [("ref", "100/100"), ("starter", "0/100"), ("no_tests", "0/0")])
def test_classroom_points_of_known_reports(request, fixture, points):
    assert exports.classroom_annotation(request.getfixturevalue(fixture)).endswith(f"::Points {points}")


def test_classroom_results_add_up_like_the_reporter_does(any_report):
    results = exports.classroom_results(any_report)
    assert json.loads(json.dumps(results)) == results
    assert results["version"] == 1 and results["max_score"] == any_report["max_score"]
    assert sum(t["score"] for t in results["tests"]) == pytest.approx(any_report["score"])
    assert {t["status"] for t in results["tests"]} <= {"pass", "fail", "error"}
    for out, test in zip(results["tests"], any_report["tests"], strict=True):
        assert out["name"] == test["id"] and _visible(test["message"]) in out["message"]
        assert re.fullmatch(r"\d+\.\d{3}s", out["execution_time"])
    assert (results["status"] == "pass") == any_report["all_passed"]


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
    assert "**Score: 0/100 (76 failed)**" in markdown and "isolation: in-process" in markdown
    for task in starter["tasks"]:
        assert f"| {task['title']} | 0/{task['max_score']} | 0/{task['tests']} |" in markdown
    assert "Tests that lost points (76)" in markdown
    assert "`test_value_stores_float_data_and_zero_grad`" in markdown
    assert "same as above" in markdown


def test_job_summary_of_the_reference_has_no_failures(ref):
    markdown = exports.job_summary_markdown(ref)
    assert "**Score: 100/100 (76 passed)**" in markdown and "lost points" not in markdown


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

"""The canonical report: its schema, its arithmetic, and how it is written."""

import json

from grader import labs, limits, report
from grader.grading import grade as grading
from grader.implementation import Implementation
from grader.report import schema
from tests.grading import grade

OUTCOMES = {"passed", "failed", "error", "timeout", "crashed", "not_run"}
TOP_LEVEL = {
    "schema": str,
    "lab": str,
    "lab_title": str,
    "impl": str,
    "implementation": dict,
    "isolation": dict,
    "limits": dict,
    "score": (int, float),
    "max_score": (int, float),
    "all_passed": bool,
    "counts": dict,
    "tasks": list,
    "tests": list,
    "flags": list,
    "kit": dict,
    "python": str,
    "numpy": str,
    "created": str,
    "duration_s": float,
}
TEST_FIELDS = {
    "id": str,
    "task": str,
    "outcome": str,
    "points": (int, float),
    "max_points": (int, float),
    "duration_s": float,
    "message": str,
    "hint": str,
}


def check_schema(document):
    assert document["schema"] == report.SCHEMA == "labkit.report/1"
    for key, kind in TOP_LEVEL.items():
        assert isinstance(document[key], kind), key
    assert set(document["implementation"]) == {"kind", "name", "sha256"}
    assert len(document["implementation"]["sha256"]) == 64
    assert set(document["kit"]) == {"version", "tests_sha256"}
    assert list(document["limits"]) == list(limits.RANGES)
    for test in document["tests"]:
        for key, kind in TEST_FIELDS.items():
            assert isinstance(test[key], kind), (test["id"], key)
        assert test["outcome"] in OUTCOMES
        assert test["points"] == (test["max_points"] if test["outcome"] == "passed" else 0)
    assert document["score"] == sum(t["points"] for t in document["tests"])
    assert document["max_score"] == sum(t["max_points"] for t in document["tests"])
    assert document["max_score"] == sum(t["max_score"] for t in document["tasks"])
    assert sum(document["counts"].values()) == len(document["tests"])
    assert document["all_passed"] == (document["counts"]["passed"] == len(document["tests"]))


def test_reference_report_follows_the_schema():
    document = grade("ch06", "ref")
    check_schema(document)
    assert document["impl"] == "ref" and document["implementation"]["name"] == "reference/ch06"
    assert document["isolation"]["mode"] == "in-process"


def test_starter_report_follows_the_schema():
    document = grade("ch06", "mine")
    check_schema(document)
    assert document["score"] == 0 and not document["all_passed"]


def test_report_is_written_atomically_and_round_trips(tmp_path):
    document = grade("ch06", "ref")
    path = tmp_path / "out" / "report.json"
    report.write_report(document, path)
    assert json.loads(path.read_text()) == document
    assert [p.name for p in path.parent.iterdir()] == ["report.json"]  # no temporary file left behind


def test_a_partial_run_says_so_and_never_reads_as_a_full_score():
    lab = labs.get("ch06")
    document = grading.grade(lab, Implementation.parse("ref", lab), task="value")
    check_schema(document)
    assert schema.validate_report(document) == []
    assert document["partial"] == {"task": "value"}
    assert "partial" not in grade("ch06", "ref")  # a whole run's report is as it was
    graded = [t for t in document["tests"] if t["task"] == "value"]
    others = [t for t in document["tests"] if t["task"] != "value"]
    assert graded and all(t["outcome"] == "passed" for t in graded)
    assert len(document["tests"]) == len(grade("ch06", "ref")["tests"])  # one result per test of the lab
    assert others and {(t["outcome"], t["message"]) for t in others} == {
        ("not_run", "not run: this run graded only Task 1: Value, the scalar engine")
    }
    value = next(t for t in document["tasks"] if t["id"] == "value")
    assert document["score"] == value["score"] == value["max_score"] < document["max_score"] == 100
    assert document["all_passed"] is False
    wrong = {**document, "partial": {"task": ""}}
    assert schema.validate_report(wrong) != []

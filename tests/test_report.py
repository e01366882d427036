"""The canonical report: its schema, its arithmetic, and how it is written."""

import json

from grader import labs, limits, report
from grader.grading import grade as grading
from grader.grading import runner
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
    assert document["score"] == value["score"] == value["max_score"] < document["max_score"] == 120
    assert document["all_passed"] is False
    wrong = {**document, "partial": {"task": ""}}
    assert schema.validate_report(wrong) != []


def test_a_stubs_verdict_points_at_the_line_that_raises():
    """Each test the pristine starter fails points, in ``line``, at the stub's own raise: the line
    its message names, and the line of the file that holds ``raise NotImplementedError``."""
    document = grade("ch06", "mine")
    lines = labs.get("ch06").starter.read_text().splitlines()
    failed = [t for t in document["tests"] if t["outcome"] != "passed"]
    assert failed
    for test in failed:
        assert f"(starter.py:{test['line']} in " in test["message"], test["id"]
        assert lines[test["line"] - 1].strip().startswith("raise NotImplementedError("), test["id"]
    assert schema.validate_report(document) == []
    assert all(t["line"] is None for t in grade("ch06", "ref")["tests"])  # passed: nothing to point at


def test_a_line_is_kept_only_when_it_is_one_of_the_files(tmp_path):
    """The test process's claim of a line is checked against the file under test: an int from 1 to its
    line count; the reference (a package of files) has none."""
    lab = labs.get("lesson1_3")
    submission = tmp_path / "alice.py"
    submission.write_text("x = 1\ny = 2\nz = 3")  # 3 lines, the last without its newline
    claims = [1, 3, 4, 0, "2", 2.0, True, None]
    results = [
        runner.TestResult(f"test_{i}", "engine", "failed", 0, 1, 0.0, "m", "", claim) for i, claim in enumerate(claims)
    ]

    def built(impl):
        document = report.build_report(
            lab,
            impl,
            results,
            isolation={"mode": "worker", "protections": []},
            limits=limits.in_force(lab.limits),
            duration_s=0.1,
        )
        assert schema.validate_report(document) == []
        return [t["line"] for t in document["tests"]]

    assert built(Implementation("submission", submission)) == [1, 3, None, None, None, None, None, None]
    assert built(Implementation("ref", None)) == [None] * len(claims)

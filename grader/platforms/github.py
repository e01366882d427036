"""Autograding on a student's fork: grade the student's starters behind the wall and report as CI reads it.

CI on a fork runs the student's own copy of the kit, grader and tests included, so what it
says is advice, never the grade of record (that is the instructor's batch run, on the kit
as shipped). It is honest about that: every report carries an ``integrity`` record (the
manifest check of the checkout it was graded from), and the job summary says the score is
advisory and, when protected files differ from the kit, which ones.

Everything here but ``grade_lab`` and ``write_outputs`` is a pure function of the reports.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader import atomic, report
from grader.grading import grade
from grader.implementation import Implementation
from grader.kit.manifest import Verification
from grader.labs import Lab
from grader.report import exports
from grader.report.text import code_span, markdown, points

ADVISORY_NOTE = (
    "This score is advisory: CI on your fork grades your code with your copy of the kit. "
    "The grade of record is the instructor's batch run, on the kit as shipped."
)
TAMPERED_NOTE = (
    "Files the grading depends on differ from the kit as shipped (`grader verify`), "
    "so this score may not be the one the instructor's batch run gives:"
)


def integrity_record(verification: Verification) -> dict:
    """The report's ``integrity`` key: the integrity check's findings; CI reports are always advisory."""
    findings = verification.findings()
    return {"advisory": True, "tampered": bool(findings), "findings": findings}


def grade_lab(lab: Lab, integrity: dict) -> dict:
    """The canonical report of the student's ``labs/<id>/starter.py``, graded behind the wall, with ``integrity``."""
    document = grade.grade(lab, Implementation("mine", lab.starter), isolation="worker")
    return {**document, "integrity": integrity}


def totals(reports: list[dict]) -> dict:
    """Score and maximum over all labs, in the shape exports.classroom_annotation reads."""
    return {
        "score": round(sum(r["score"] for r in reports), 6),
        "max_score": round(sum(r["max_score"] for r in reports), 6),
    }


def lost_points(reports: list[dict]) -> bool:
    return not all(r["all_passed"] for r in reports)


def classroom_results(reports: list[dict]) -> dict:
    """One GitHub Classroom result over every lab: the labs' tests in one list, named ``<lab>::<test>``."""
    per_lab = [exports.classroom_results(r) for r in reports]
    statuses = {result["status"] for result in per_lab}
    status = "fail" if "fail" in statuses else "error" if "error" in statuses else "pass"
    tests = [
        {**test, "name": f"{r['lab']}::{test['name']}"}
        for r, result in zip(reports, per_lab, strict=True)
        for test in result["tests"]
    ]
    return {"version": 1, "status": status, "max_score": totals(reports)["max_score"], "tests": tests}


def annotation(reports: list[dict]) -> str:
    """The ``Points X/Y`` notice over every lab."""
    return exports.classroom_annotation(totals(reports))


def _num(x) -> str:
    return str(points(x))


def job_summary(reports: list[dict], integrity: dict) -> str:
    """The job summary: a table of the labs, the integrity warning, the advisory note, then each lab's summary."""
    total = totals(reports)
    passed = sum(r["counts"]["passed"] for r in reports)
    tests = sum(len(r["tests"]) for r in reports)
    lines = [
        f"# Autograding (advisory): {_num(total['score'])}/{_num(total['max_score'])} points",
        "",
        "| Lab | Score | Max | Passed/Tests |",
        "| :-- | --: | --: | --: |",
    ]
    lines += [
        f"| {markdown(r['lab'], cell=True)} | {_num(r['score'])} | {_num(r['max_score'])} "
        f"| {r['counts']['passed']}/{len(r['tests'])} |"
        for r in reports
    ]
    if len(reports) > 1:
        lines.append(f"| **total** | {_num(total['score'])} | {_num(total['max_score'])} | {passed}/{tests} |")
    lines.append("")
    if integrity["tampered"]:
        lines += ["> [!WARNING]", f"> **Tampered.** {TAMPERED_NOTE}", ">"]
        lines += [f"> - {code_span(finding)}" for finding in integrity["findings"]]
        lines.append("")
    lines += [ADVISORY_NOTE, ""]
    for r in reports:
        lines.append(exports.job_summary_markdown(r))
    return "\n".join(lines).rstrip("\n") + "\n"


def step_outputs(reports: list[dict], integrity: dict) -> str:
    """The lines appended to $GITHUB_OUTPUT, for later steps of the workflow."""
    total = totals(reports)
    tampered = "true" if integrity["tampered"] else "false"
    return f"score={_num(total['score'])}\nmax_score={_num(total['max_score'])}\ntampered={tampered}\n"


def failure_summary(message: str) -> str:
    """The job summary when grading could not run at all."""
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", message)), default=0) + 1)
    return f"# Autograding did not run\n\n{fence}text\n{message}\n{fence}\n\n{ADVISORY_NOTE}\n"


def write_outputs(reports: list[dict], integrity: dict, out: Path) -> list[Path]:
    """Write each lab's canonical report and JUnit XML, the combined Classroom result and the job summary."""
    written = []
    for r in reports:
        report.write_report(r, out / f"{r['lab']}.json")
        atomic.write_text(out / f"{r['lab']}.junit.xml", exports.junit_xml(r))
        written += [out / f"{r['lab']}.json", out / f"{r['lab']}.junit.xml"]
    atomic.write_json(out / "classroom.json", classroom_results(reports))
    atomic.write_text(out / "summary.md", job_summary(reports, integrity))
    return [*written, out / "classroom.json", out / "summary.md"]


def append(path: Path, text: str) -> None:
    """Append to a file GitHub Actions gave us ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT)."""
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)

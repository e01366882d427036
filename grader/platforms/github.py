"""Autograding on a student's fork: grade the student's starters behind the wall and report as GitHub Actions reads it.

CI on a fork runs the student's own copy of the kit, grader and tests included, so what it
says is advice, never the grade of record (that is the instructor's batch run, on the kit
as shipped). It is honest about that: every report carries an ``integrity`` record (the
manifest check of the checkout it was graded from), and the job summary says the score is
advisory and, when protected files differ from the kit, which ones.

What the run shows, each from the reports alone: the job summary; the score as the step's
outputs ($GITHUB_OUTPUT), in whole points per lab (the score rounded down: never a point not
earned); an ``::error`` annotation on ``labs/<id>/starter.py`` at the line each failure points
at (one per distinct message and line, at most ``MAX_ANNOTATIONS``: GitHub shows no more
errors for a step; the summary says how many more there were); a notice per lab with its
points. Workflow commands are escaped as GitHub's toolkit escapes them (``command_data``,
``command_property``).

Everything here but ``grade_lab``, ``changed_labs`` and ``write_outputs`` is a pure function of
the reports.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from pathlib import Path

from grader import atomic, report
from grader.grading import grade
from grader.implementation import Implementation
from grader.kit import manifest
from grader.kit.manifest import Verification
from grader.labs import Lab
from grader.report import exports
from grader.report.text import code_span, for_terminal, markdown, one_line_for_terminal, points, visible, whole_points

ADVISORY_NOTE = (
    "This score is advisory: CI on your fork grades your code with your copy of the kit. "
    "The grade of record is the instructor's batch run, on the kit as shipped."
)
TAMPERED_NOTE = (
    "Files the grading depends on differ from the kit as shipped (`grader verify`), "
    "so this score may not be the one the instructor's batch run gives:"
)
# GitHub shows at most 10 error annotations per step (and 50 per job): the rest would vanish silently.
MAX_ANNOTATIONS = 10
# A step output's name: what `steps.<id>.outputs.<name>` reads, and no `=` or newline to break the file.
_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def integrity_record(verification: Verification) -> dict:
    """The report's ``integrity`` key: the integrity check's findings; CI reports are always advisory."""
    findings = verification.findings()
    return {"advisory": True, "tampered": bool(findings), "findings": findings}


def grade_lab(lab: Lab, integrity: dict) -> dict:
    """The canonical report of the student's ``labs/<id>/starter.py``, graded behind the wall, with ``integrity``."""
    document = grade.grade(lab, Implementation("mine", lab.starter), isolation="worker")
    return {**document, "integrity": integrity}


def changed_labs(root: Path, shipped: dict, every_lab: list[Lab]) -> list[Lab] | None:
    """The labs whose ``labs/<id>/starter.py`` under ``root`` differs from the pristine starter the manifest
    ``shipped`` records (a missing one counts as changed: grading says to restore it); None when the
    manifest records no pristine starter, so that nothing can be told apart."""
    pristine = shipped.get("starters") or {}
    if not pristine:
        return None
    return [lab for lab in every_lab if not manifest.same_starter(root, manifest.starter_relpath(lab.id), pristine)]


def lost_points(reports: list[dict]) -> bool:
    return not all(r["all_passed"] for r in reports)


def starter_path(r: dict) -> str:
    """The file a fork's report grades, as the repository names it."""
    return f"labs/{r['lab']}/starter.py"


# -- workflow commands ------------------------------------------------------------------------
def command_data(text: str) -> str:
    """Text as a workflow command's message (after ``::``): one line, ``%``, CR and LF escaped."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(text: str) -> str:
    """Text as a workflow command's property value (``title=...``): ``:`` and ``,`` escaped too."""
    return command_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True)
class Failure:
    """The tests of one lab that lost points with one message at one line: one annotation."""

    lab: str
    file: str
    line: int | None
    message: str
    hint: str
    tests: tuple[dict, ...]

    @property
    def title(self) -> str:
        first, more = self.tests[0]["id"], len(self.tests) - 1
        lost = sum(t["max_points"] - t["points"] for t in self.tests)
        named = f"{first} and {more} more test{'s' if more > 1 else ''}" if more else first
        return f"{self.lab}: {named} lost {points(lost)} point{'' if lost == 1 else 's'}"

    def command(self) -> str:
        where = f"file={command_property(self.file)}"
        if self.line is not None:
            where += f",line={self.line}"
        # As a terminal shows text: a CI log is one, and a direction mark (U+202E) would reorder the line.
        text = for_terminal(self.message) or "this test lost points"
        if self.hint:
            text += f"\nhint: {for_terminal(self.hint)}"
        return f"::error {where},title={command_property(one_line_for_terminal(self.title))}::{command_data(text)}"


def failures(reports: list[dict]) -> list[Failure]:
    """The tests that lost points, grouped per lab by message and line (a starter fails many tests for one
    reason), in the order of the reports and their tests."""
    found: list[Failure] = []
    for r in reports:
        groups: dict[tuple, list[dict]] = {}
        for test in r["tests"]:
            if test["points"] < test["max_points"]:
                line = test.get("line")  # checked against the file when the report was built
                groups.setdefault((line if type(line) is int else None, test["message"]), []).append(test)
        found += [
            Failure(r["lab"], starter_path(r), line, message, tests[0]["hint"], tuple(tests))
            for (line, message), tests in groups.items()
        ]
    return found


def annotations(reports: list[dict], limit: int = MAX_ANNOTATIONS) -> tuple[list[str], int]:
    """The ``::error`` commands for the first ``limit`` failures, and how many more there were."""
    found = failures(reports)
    return [failure.command() for failure in found[:limit]], max(0, len(found) - limit)


def notices(reports: list[dict]) -> list[str]:
    """A notice per lab with its whole points, shown on the run's page."""
    return [
        f"::notice title={command_property(visible(r['lab']) + ' (advisory)')}::{command_data(_whole(r) + ' points')}"
        for r in reports
    ]


# -- the job summary and the step's outputs --------------------------------------------------
def job_summary(reports: list[dict], integrity: dict, chosen: str = "", unannotated: int = 0) -> str:
    """The job summary: the labs' whole points, which labs and why (``chosen``), the integrity warning, the
    advisory note, how many failures had no annotation, then each lab's summary."""
    heading = "# Autograding (advisory)"
    if len(reports) == 1:
        heading += f": {markdown(reports[0]['lab'])}, {_whole(reports[0])} points"
    lines = [
        heading,
        "",
        "| Lab | Points | Exact score | Passed/Tests |",
        "| :-- | --: | --: | --: |",
    ]
    lines += [
        f"| {markdown(r['lab'], cell=True)} | {_whole(r)} | {points(r['score'])}/{points(r['max_score'])} "
        f"| {r['counts']['passed']}/{len(r['tests'])} |"
        for r in reports
    ]
    lines.append("")
    lines += ["Points are whole, rounded down: a fraction of a point is not a point earned.", ""]
    if chosen:
        lines += [markdown(chosen), ""]
    if integrity["tampered"]:
        lines += ["> [!WARNING]", f"> **Tampered.** {TAMPERED_NOTE}", ">"]
        lines += [f"> - {code_span(finding)}" for finding in integrity["findings"]]
        lines.append("")
    if unannotated:
        lines += [
            f"{unannotated} more failure{'s' if unannotated > 1 else ''} (by message and line) "
            f"{'are' if unannotated > 1 else 'is'} not annotated on your file: GitHub shows at most "
            f"{MAX_ANNOTATIONS} errors per step. Every test that lost points is in the tables below.",
            "",
        ]
    lines += [ADVISORY_NOTE, ""]
    for r in reports:
        lines.append(exports.job_summary_markdown(r))
    return "\n".join(lines).rstrip("\n") + "\n"


def _whole(r: dict) -> str:
    return f"{whole_points(r['score'])}/{whole_points(r['max_score'])}"


def step_outputs(reports: list[dict], integrity: dict) -> str:
    """The lines appended to $GITHUB_OUTPUT: ``<lab>_score`` and ``<lab>_max_score`` per lab in whole points,
    ``scores`` (JSON, every lab), ``labs`` (their ids), ``tampered``; with one lab, also plain ``score``,
    ``max_score`` and ``classroom_result`` (its GitHub Classroom result, base64, for the reporter)."""
    scores = {r["lab"]: {"score": whole_points(r["score"]), "max_score": whole_points(r["max_score"])} for r in reports}
    lines = [f"labs={' '.join(r['lab'] for r in reports if _OUTPUT_NAME.fullmatch(r['lab']))}"]
    for lab, score in scores.items():
        if _OUTPUT_NAME.fullmatch(lab):  # a lab id that cannot name an output is still in `scores`
            lines += [f"{lab}_score={score['score']}", f"{lab}_max_score={score['max_score']}"]
    lines.append(f"scores={json.dumps(scores, separators=(',', ':'))}")
    if len(reports) == 1:
        only = scores[reports[0]["lab"]]
        result = json.dumps(exports.classroom_results(reports[0]), separators=(",", ":"))
        lines += [
            f"score={only['score']}",
            f"max_score={only['max_score']}",
            f"classroom_result={base64.b64encode(result.encode()).decode()}",
        ]
    lines.append(f"tampered={'true' if integrity['tampered'] else 'false'}")
    return "\n".join(lines) + "\n"


def failure_summary(message: str) -> str:
    """The job summary when grading could not run at all."""
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", message)), default=0) + 1)
    return f"# Autograding did not run\n\n{fence}text\n{message}\n{fence}\n\n{ADVISORY_NOTE}\n"


def write_outputs(reports: list[dict], integrity: dict, out: Path, summary: str) -> list[Path]:
    """Write each lab's canonical report, JUnit XML and GitHub Classroom result, and the job summary."""
    written = []
    for r in reports:
        lab = r["lab"]
        report.write_report(r, out / f"{lab}.json")
        atomic.write_text(out / f"{lab}.junit.xml", exports.junit_xml(r))
        atomic.write_json(out / f"{lab}.classroom.json", exports.classroom_results(r))
        written += [out / f"{lab}.json", out / f"{lab}.junit.xml", out / f"{lab}.classroom.json"]
    atomic.write_text(out / "summary.md", summary)
    return [*written, out / "summary.md"]


def append(path: Path, text: str) -> None:
    """Append to a file GitHub Actions gave us ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT)."""
    with open(path, "a", encoding="utf-8") as file:
        file.write(text)

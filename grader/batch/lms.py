"""The gradebook in an LMS's import format, from the final grades (grader.batch.final_grades). Pure functions.

- ``canvas``: the shape of a Canvas gradebook export, which Canvas imports back: the columns
  ``Student, ID, SIS User ID, SIS Login ID, Section`` then the assignment's, named ``<name> (<id>)``
  when the assignment id is given (Canvas then matches the existing assignment; a bare name makes a new
  one), and a second row ``Points Possible`` with the lab's maximum under it. Canvas matches students on
  ID (the roster's LMS id), else SIS User ID, else SIS Login ID. A missing student's cell is empty (Canvas
  leaves that grade alone).
- ``moodle``: Moodle's CSV grade import: an identifier column (the roster's LMS id, headed ``Email address``
  when every one is an email address, else ``ID number``: map it so at the import), the grade column named
  after the assignment, and a feedback column. A missing student's grade is empty.
- ``csv``: the whole picture: status, graded score, late penalty, overrides, final, maximum and reason, one
  row per roster student, then the students graded but not on the roster (status ``not-on-roster``).

Every text cell goes through ``spreadsheet_cell``: a cell that starts like a formula is written as text.
"""

from __future__ import annotations

import csv
import io

from grader.batch import feedback as feedback_words
from grader.report.text import html_text, spreadsheet_cell

FORMATS = ("canvas", "moodle", "csv")
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_POINTS_POSSIBLE = "    Points Possible"  # as Canvas writes it in its own export
CSV_COLUMNS = [
    "student",
    "name",
    "lms_id",
    "section",
    "status",
    "graded_score",
    "late_by",
    "late_penalty",
    "overrides",
    "final_score",
    "max_score",
    "reason",
]


def _number(value) -> str:
    """Points as a spreadsheet reads them: up to 4 decimals, no exponent, no trailing zeros (105.3, 120)."""
    return "" if value is None else f"{value:.4f}".rstrip("0").rstrip(".")


def _writer() -> tuple[io.StringIO, csv.writer]:
    out = io.StringIO()
    return out, csv.writer(out, lineterminator="\n")


def canvas_column(assignment: str, assignment_id: str | None) -> str:
    return f"{assignment} ({assignment_id})" if assignment_id else assignment


def canvas(entries: list[dict], assignment: str, assignment_id: str | None, max_score: float) -> str:
    out, writer = _writer()
    writer.writerow([spreadsheet_cell(c) for c in [*CANVAS_COLUMNS, canvas_column(assignment, assignment_id)]])
    writer.writerow([CANVAS_POINTS_POSSIBLE, "", "", "", "", _number(max_score)])
    for e in entries:
        who = [e["name"] or e["student"], e["lms_id"], e["sis_user_id"], e["sis_login_id"], e["section"]]
        writer.writerow([*(spreadsheet_cell(c) for c in who), _number(e["final"])])
    return out.getvalue()


def moodle_identifier(entries: list[dict]) -> str:
    """The identifier column's header: Moodle maps it to the user's email address or their ID number."""
    return "Email address" if entries and all("@" in e["lms_id"] for e in entries) else "ID number"


def feedback(entry: dict) -> str:
    """What the student is told beside their grade: why it is not the graded score, or why nothing was graded."""
    parts = []
    if entry["status"] in feedback_words.REASON_KEPT_FROM_STUDENT:  # the reason is the instructor's alone
        parts.append(f"not graded ({entry['status']}): {feedback_words.REASON_KEPT_FROM_STUDENT[entry['status']]}")
    elif entry["status"] not in ("graded", "late", "missing") and entry["reason"]:
        parts.append(f"not graded ({entry['status']}): {entry['reason']}")
    if entry["late_penalty"]:
        parts.append(f"{entry['late_by']} late: -{entry['late_penalty']:g} points")
    if entry["overrides"]:
        parts.append("adjusted by the instructor")
    return "; ".join(parts)


def moodle(entries: list[dict], assignment: str) -> str:
    out, writer = _writer()
    writer.writerow([moodle_identifier(entries), spreadsheet_cell(assignment), "Feedback"])
    for e in entries:
        # Moodle shows a grade's feedback as HTML: a file's name (<img src=x onerror=...>.py) is escaped for it.
        writer.writerow([spreadsheet_cell(e["lms_id"]), _number(e["final"]), spreadsheet_cell(html_text(feedback(e)))])
    return out.getvalue()


def _overrides(entry: dict) -> str:
    return "; ".join(f"{o['target']}={o['points']:g} ({o['reason']}, {o['who']})" for o in entry["overrides"])


def full_csv(entries: list[dict], extra: list[dict], max_score: float) -> str:
    out, writer = _writer()
    writer.writerow(CSV_COLUMNS)
    for e in entries:
        row = [
            e["student"],
            e["name"],
            e["lms_id"],
            e["section"],
            e["status"],
            _number(e["graded_score"]),
            e["late_by"],
            _number(e["late_penalty"]),
            _overrides(e),
            _number(e["final"]),
            _number(e["max_score"]),
            e["reason"],
        ]
        writer.writerow([spreadsheet_cell(c) for c in row])
    for e in extra:
        row = [e["student"], "", "", "", e["status"], _number(e["graded_score"]), "", "", "", "", _number(max_score)]
        writer.writerow([spreadsheet_cell(c) for c in [*row, e["reason"]]])
    return out.getvalue()


def render(format: str, entries: list[dict], extra: list[dict], assignment: str, assignment_id, max_score) -> str:
    if format == "canvas":
        return canvas(entries, assignment, assignment_id, max_score)
    if format == "moodle":
        return moodle(entries, assignment)
    return full_csv(entries, extra, max_score)

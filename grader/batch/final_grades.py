"""Each roster student's final grade, and the audit line of an export: pure functions (and ``read``, for the report).

From a batch folder's records (late work folded, grader.batch.gradebook.with_late_work) and reports,
the class roster, a late policy and the overrides, one entry per roster student:

- **missing** (no record, or a record that says nothing was handed in: ``missing``, ``empty``; or a
  shard not merged): no grade, an empty cell in the LMS (0 with ``missing_as_zero``);
- **graded**: the report's score, each test override replacing that test's points; late by the LMS's
  submission time (when given) loses the late policy's penalty;
- late work (``grader collect`` grades the branch's head apart when it is after the deadline): under a
  late policy, the student gets the better of their on-time score and their late work's score less its
  penalty; without one, late work is not counted (as grades.csv shows it);
- any other status (invalid, error, timeout, suspect, a late-only student without a policy...): 0, with
  the record's reason: they handed something in that could not be graded.

A ``total`` override replaces the final grade after all of that (the instructor's last word). The entries
go to ``OUT/final_grades.json`` (the HTML report reads them with ``read``) and to the LMS files (grader.batch.lms);
``audit_line`` is what ``OUT/audit.jsonl`` gets for one export.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from grader.batch import late
from grader.batch.history import duration
from grader.batch.overrides import TOTAL, Override
from grader.batch.roster import Member
from grader.batch.shards import SHARD_MISSING, SHARD_UNFINISHED

SCHEMA = "labkit.final-grades/1"
FILE = "final_grades.json"
GRADED, LATE, MISSING, NOT_ON_ROSTER = "graded", "late", "missing", "not-on-roster"
NOTHING_HANDED_IN = ("missing", "empty")
NOT_YET_GRADED = (SHARD_MISSING, SHARD_UNFINISHED)  # a shard not merged: no grade yet, not a zero


def _round(points: float) -> float:
    return round(points, 4)


def _with_test_overrides(report: dict, found: list[Override]) -> tuple[float, list[dict]]:
    """The report's score with each test override's points in place of the test's, and what each changed."""
    tests = {t["id"]: t for t in report["tests"]}
    score, applied = report["score"], []
    for override in found:
        if override.target != TOTAL:
            was = tests[override.target]["points"]
            score += override.points - was
            applied.append({**override.describe(), "was": was})
    return _round(score), applied


def _late_candidate(record: dict, rule: late.LatePolicy | None) -> dict | None:
    """The student's collected late work as a candidate grade, under a policy (None: not counted)."""
    work = record.get("late_work")
    if rule is None or not work or work.get("status") != GRADED or work.get("score") is None:
        return None
    seconds = work.get("late_by_seconds")
    penalty = late.penalty_points(work["score"], seconds, rule)
    return {
        "source": "late work",
        "grader_score": work["score"],
        "graded_score": work["score"],
        "late_by_seconds": seconds,
        "late_penalty": penalty,
        "final": _round(work["score"] - penalty),
    }


def _entry_from_record(
    record: dict, report: dict | None, found: list[Override], rule: late.LatePolicy | None, lms_late: int | None
) -> dict:
    status = record["status"]
    late_work = _late_candidate(record, rule)
    # Nothing on time (a fork whose commit at the deadline had no lab file) may still have late work.
    if status in NOT_YET_GRADED or (status in NOTHING_HANDED_IN and late_work is None):
        return {"status": MISSING if status in NOTHING_HANDED_IN else status, "reason": record.get("reason", "")}
    candidates = []
    overrides_applied: list[dict] = []
    if status == GRADED and report is not None:
        score, overrides_applied = _with_test_overrides(report, found)
        seconds = lms_late if rule is not None else None
        penalty = late.penalty_points(score, seconds, rule) if rule is not None else 0.0
        candidates.append(
            {
                "source": "submission",
                "grader_score": report["score"],  # the grader's own, before any test override
                "graded_score": score,
                "late_by_seconds": seconds if seconds and seconds > 0 else None,
                "late_penalty": penalty,
                "final": _round(score - penalty),
            }
        )
    if late_work is not None:
        candidates.append(late_work)
    if not candidates:  # handed in, not graded: a zero, with the reason
        return {
            "status": status,
            "reason": record.get("reason", ""),
            "grader_score": 0.0,
            "graded_score": 0.0,
            "final": 0.0,
        }
    best = max(candidates, key=lambda c: c["final"])  # the first, the on-time one, on a tie
    chosen_status = LATE if best["source"] == "late work" or best["late_penalty"] > 0 else GRADED
    return {"status": chosen_status, "reason": record.get("reason", ""), **best, "overrides": overrides_applied}


def entry(
    member: Member,
    record: dict | None,
    report: dict | None,
    found: list[Override],
    rule: late.LatePolicy | None,
    lms_late: int | None,
    max_score: float,
    missing_as_zero: bool = False,
) -> dict:
    """One roster student's final grade. ``found``: their overrides; ``lms_late``: how late the LMS says they
    handed in (seconds, or None)."""
    base = {
        "student": member.student,
        "name": member.name,
        "lms_id": member.lms_id,
        "section": member.section,
        "sis_user_id": member.sis_user_id,
        "sis_login_id": member.sis_login_id,
        "status": MISSING,
        "reason": "",
        "source": None,
        "grader_score": None,
        "graded_score": None,
        "late_by_seconds": None,
        "late_penalty": 0.0,
        "overrides": [],
        "final": None,
        "max_score": max_score,
    }
    if record is not None:
        base.update(_entry_from_record(record, report, found, rule, lms_late))
    if base["final"] is None and missing_as_zero:
        base["final"] = 0.0
    total = next((o for o in found if o.target == TOTAL), None)
    if total is not None:
        base["overrides"] = [*base["overrides"], {**total.describe(), "was": base["final"]}]
        base["final"] = total.points
    seconds = base["late_by_seconds"]
    base["late_by"] = duration(seconds) if seconds else ""
    return base


def not_on_roster(record: dict) -> dict:
    """A student the batch graded whom the roster does not list: reported, never exported to the LMS."""
    return {
        "student": record["student"],
        "status": NOT_ON_ROSTER,
        "record_status": record["status"],
        "graded_score": record["score"] if record["status"] == GRADED else None,
        "reason": record.get("reason", ""),
    }


def grades_fingerprint(records: list[dict]) -> str:
    """A hash of every record's student, status and score (late work's too): the grades an export started from,
    so that the class report can tell an export made before a regrade or a resume changed them."""
    grades = sorted((r["student"], r["key"], r["status"], r["score"]) for r in records)
    return hashlib.sha256(json.dumps(grades).encode()).hexdigest()


def document(
    lab: str, max_score: float, entries: list[dict], extra: list[dict], rule, exported_at: str, graded: str
) -> dict:
    """OUT/final_grades.json: every roster student's final grade, the policy, and who was graded but not listed;
    ``graded``: the grades_fingerprint of the records it was computed from."""
    return {
        "schema": SCHEMA,
        "lab": lab,
        "max_score": max_score,
        "exported_at": exported_at,
        "grades_sha256": graded,
        "late_policy": rule.describe() if rule is not None else None,
        "students": entries,
        "not_on_roster": extra,
    }


def adjusted(entry: dict) -> bool:
    """An entry whose final grade is not simply what the grader gave: a late penalty or an override."""
    return bool(entry["late_penalty"] or entry["overrides"])


def audit_line(
    *,
    time: str,
    user: str,
    format: str,
    output: str,
    roster_sha256: str,
    overrides_sha256: str | None,
    doc: dict,
    inputs: str,
    inputs_changed: list[str],
) -> dict:
    """One line of OUT/audit.jsonl: who exported what, from which files, and each adjusted student's numbers."""
    return {
        "time": time,
        "user": user,
        "format": format,
        "output": output,
        "roster_sha256": roster_sha256,
        "overrides_sha256": overrides_sha256,
        "inputs": inputs,  # grader.batch.freshness: the files graded still the inputs' (same), changed, unchecked
        "inputs_changed": inputs_changed,  # exported all the same (--allow-changed-inputs): whose files changed
        "late_policy": doc["late_policy"],
        "students": len(doc["students"]),
        "adjusted": [
            {
                "student": e["student"],
                "grader_score": e.get("grader_score"),  # before test overrides; graded_score is after them
                "graded_score": e["graded_score"],
                "late_penalty": e["late_penalty"],
                "overrides": e["overrides"],
                "final": e["final"],
            }
            for e in doc["students"]
            if adjusted(e)
        ],
    }


def read(folder: Path) -> dict | None:
    """A batch folder's final grades as the last ``grader export`` wrote them (for the class report), or None when
    there is none that this kit can read."""
    try:
        doc = json.loads((folder / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("schema") == SCHEMA else None

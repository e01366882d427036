"""A batch's output folder: one record per student, one report per graded student, the class files.

    DIR/batch.json           which lab and kit wrote this folder (a resume must match it)
    DIR/records/<id>.json    the student's status, score, hash, flags (written last, atomically)
    DIR/reports/<id>.json    the canonical report of a graded student
    DIR/grades.csv           the gradebook
    DIR/summary.json, summary.md

Every file is written atomically, and a record only after its report, so a batch
killed at any instant leaves a folder that ``--resume`` or ``grader merge`` can trust.
"""

from __future__ import annotations

import json
from pathlib import Path

from grader import __version__, atomic
from grader.batch import gradebook
from grader.batch.inputs import Entry
from grader.kit import manifest

RECORD_SCHEMA = "labkit.batch-record/1"


class OutputError(Exception):
    """The output folder cannot be used as asked (another lab's batch, or not a batch at all)."""


def kit_identity(tests_sha256: str) -> dict:
    """The kit that grades: its version, the lab's tests, and its manifest (the version alone
    stays the same across many changes to the grader)."""
    return {"version": __version__, "tests_sha256": tests_sha256, "manifest_sha256": manifest.fingerprint()}


class Outputs:
    def __init__(self, root: Path, lab_id: str, max_score: float, tests_sha256: str):
        self.root = root
        self.lab_id = lab_id
        self.max_score = max_score
        self.kit = kit_identity(tests_sha256)

    # -- the folder ------------------------------------------------------------------------

    def open(self, *, resume: bool) -> None:
        """Claim the folder: new or empty, or (with resume) one this lab's batch wrote."""
        meta_path = self.root / "batch.json"
        if meta_path.exists():
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if meta.get("lab") != self.lab_id:
                raise OutputError(f"{self.root} holds a batch of lab {meta.get('lab')}, not {self.lab_id}")
            if not resume:
                raise OutputError(
                    f"{self.root} already holds a batch: add --resume to continue it, or choose another --out"
                )
        elif self.root.exists() and any(self.root.iterdir()):
            raise OutputError(f"{self.root} is not empty and holds no batch: choose another --out")
        atomic.write_json(meta_path, {"schema": "labkit.batch/1", "lab": self.lab_id, "kit_version": __version__})

    def record_path(self, key: str) -> Path:
        return self.root / "records" / f"{key}.json"

    def report_path(self, key: str) -> Path:
        return self.root / "reports" / f"{key}.json"

    # -- one student -----------------------------------------------------------------------

    def load_record(self, entry: Entry) -> dict | None:
        try:
            record = json.loads(self.record_path(entry.key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if record.get("status") == "graded" and not self.report_path(entry.key).is_file():
            return None
        return record

    def is_current(self, entry: Entry) -> bool:
        """Graded before from the same file, by the same kit and tests: nothing to do again."""
        record = self.load_record(entry)
        return (
            record is not None
            and record.get("status") == "graded"
            and record.get("sha256") == entry.sha256
            and record.get("kit") == self.kit
        )

    def _record(self, entry: Entry, status: str, reason: str, score: float = 0, flags: list | None = None) -> dict:
        record = {
            "schema": RECORD_SCHEMA,
            "student": entry.student,
            "key": entry.key,
            "lab": self.lab_id,
            "status": status,
            "reason": reason,
            "source": entry.source,
            "sha256": entry.sha256,
            "score": score,
            "max_score": self.max_score,
            "flags": flags or [],
            "kit": self.kit,
            "report": f"reports/{entry.key}.json" if status == "graded" else None,
        }
        atomic.write_json(self.record_path(entry.key), record)
        return record

    def save_graded(self, entry: Entry, report: dict) -> dict:
        atomic.write_json(self.report_path(entry.key), report)
        return self._record(entry, "graded", "", report["score"], report["flags"])

    def save_status(self, entry: Entry, status: str, reason: str) -> dict:
        self.report_path(entry.key).unlink(missing_ok=True)  # an old report of a file no longer there
        return self._record(entry, status, reason)

    def forget_others(self, keep: set[str]) -> None:
        """Drop the records of students no longer in the inputs, so the gradebook lists the class as given."""
        for path in (self.root / "records").glob("*.json"):
            if path.stem not in keep:
                path.unlink()
                self.report_path(path.stem).unlink(missing_ok=True)

    # -- the class -------------------------------------------------------------------------

    def records(self) -> list[dict]:
        found = []
        for path in sorted((self.root / "records").glob("*.json")):
            found.append(json.loads(path.read_text(encoding="utf-8")))
        return found

    def write_class_files(self, lab_title: str) -> dict:
        records = self.records()
        reports = [
            json.loads(self.report_path(r["key"]).read_text(encoding="utf-8"))
            for r in records
            if r["status"] == "graded"
        ]
        summary = gradebook.summary(self.lab_id, lab_title, self.max_score, records, reports)
        atomic.write_text(self.root / "grades.csv", gradebook.grades_csv(records))
        atomic.write_json(self.root / "summary.json", summary)
        atomic.write_text(self.root / "summary.md", gradebook.summary_markdown(summary))
        return summary

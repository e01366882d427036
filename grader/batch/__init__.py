"""Instructor batch grading: a whole class behind the wall, resumable, shardable, with a class report.

``run_batch`` finds the students (inputs), records the ones that cannot be graded, grades
the rest in parallel (jobs), and writes the gradebook and summary (outputs, gradebook).
``merge`` combines the folders of several shards into one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader import atomic
from grader.batch.inputs import Entry, InputError, discover
from grader.batch.jobs import Shard, grade_entries
from grader.batch.outputs import OutputError, Outputs
from grader.grading import runner, scratch
from grader.labs import Lab

__all__ = ["BatchResult", "InputError", "OutputError", "Shard", "merge", "run_batch"]


@dataclass
class BatchResult:
    students: int  # in this shard
    graded_now: int
    skipped: int  # up to date from an earlier run (--resume)
    summary: dict


def _max_score(lab: Lab) -> float:
    total = sum(t["points"] for t in runner.collect(lab))
    return int(total) if float(total).is_integer() else total


def run_batch(
    lab: Lab,
    inputs: list[Path],
    out_dir: Path,
    *,
    jobs: int | None = None,
    resume: bool = False,
    shard: Shard | None = None,
    on_start: Callable[[int], None] = lambda total: None,
    on_done: Callable[[Entry, dict], None] = lambda entry, record: None,
) -> BatchResult:
    """Grade every student in ``inputs`` into ``out_dir``; ``on_done`` hears of each student as it is recorded."""
    jobs = jobs or os.cpu_count() or 1
    out = Outputs(out_dir, lab.id, _max_score(lab), hashlib.sha256(lab.tests.read_bytes()).hexdigest())
    with scratch.temporary("batch") as unpacked:
        entries = discover(inputs, lab.id, unpacked)
        if shard is not None:
            entries = shard.select(entries)
        out.open(resume=resume)
        out.forget_others({e.key for e in entries})
        on_start(len(entries))
        to_grade, skipped = [], 0
        for entry in entries:
            if entry.status != "ok":
                on_done(entry, out.save_status(entry, entry.status, entry.reason))
            elif resume and out.is_current(entry):
                skipped += 1
                on_done(entry, out.load_record(entry))
            else:
                to_grade.append(entry)
        grade_entries(lab, to_grade, out, jobs=min(jobs, max(len(to_grade), 1)), on_done=on_done)
    summary = out.write_class_files(lab.title)
    return BatchResult(len(entries), len(to_grade), skipped, summary)


def merge(lab: Lab, shard_dirs: list[Path], out_dir: Path) -> dict:
    """One gradebook and summary from the folders of several shards (each a ``grader batch --shard`` output)."""
    out = Outputs(out_dir, lab.id, _max_score(lab), hashlib.sha256(lab.tests.read_bytes()).hexdigest())
    out.open(resume=False)
    seen: dict[str, Path] = {}
    for folder in shard_dirs:
        meta = folder / "batch.json"
        if not meta.is_file():
            raise OutputError(f"{folder} is not a batch folder (no batch.json)")
        if json.loads(meta.read_text(encoding="utf-8")).get("lab") != lab.id:
            raise OutputError(f"{folder} holds a batch of another lab")
        for record_path in sorted((folder / "records").glob("*.json")):
            if record_path.stem in seen:
                raise OutputError(f"student {record_path.stem} is in both {seen[record_path.stem]} and {folder}")
            seen[record_path.stem] = folder
            record = json.loads(record_path.read_text(encoding="utf-8"))
            if record.get("report"):
                atomic.write_text(out.report_path(record_path.stem), (folder / record["report"]).read_text("utf-8"))
            atomic.write_text(out.record_path(record_path.stem), record_path.read_text("utf-8"))
    return out.write_class_files(lab.title)

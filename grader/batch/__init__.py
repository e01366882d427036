"""Instructor batch grading: a whole class behind the wall, resumable, shardable, with a class report.

``run_batch`` finds the students (inputs), says what its folder holds (shards), records the
ones that cannot be graded, grades the rest in parallel (jobs) or, asked for some students
only, regrades them in the folder it already holds (shards.regrade), and writes the gradebook,
summary (outputs, gradebook), each student's feedback (feedback), the pairs of similar
submissions (similarity) and the class report, report.html (class_report, plots). ``merge``
combines the folders of every shard into one, or refuses (shards.plan).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader import atomic, limits
from grader.batch import feedback, freshness, outputs, shards, similarity
from grader.batch.inputs import Entry, InputError, discover
from grader.batch.jobs import grade_entries
from grader.batch.outputs import OutputError, Outputs
from grader.batch.shards import RegradeError, Shard, ShardError
from grader.grading import runner, scratch
from grader.labs import Lab

__all__ = ["BatchResult", "InputError", "OutputError", "RegradeError", "Shard", "ShardError", "merge", "run_batch"]


@dataclass
class BatchResult:
    students: int  # in this shard (a student's late work, from a collection, is graded apart but one student)
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
    hidden_feedback: str = feedback.DEFAULT_HIDDEN_FEEDBACK,
    on_start: Callable[[int], None] = lambda total: None,
    on_done: Callable[[Entry, dict], None] = lambda entry, record: None,
    similarity_threshold: float | None = similarity.DEFAULT_THRESHOLD,
    only: Sequence[str] = (),
    forget_missing: bool = False,
) -> BatchResult:
    """Grade every student in ``inputs`` into ``out_dir``; ``on_done`` hears of each student as it is recorded;
    ``hidden_feedback``: what each student's feedback file says of the hidden tests (feedback.HIDDEN_FEEDBACK);
    ``similarity_threshold``: the pairs of similar submissions to list (grader.batch.similarity); None: none.
    ``only``: regrade these students (and their late work) in the batch ``out_dir`` already holds, whatever
    their records say, and leave everyone else as it is (shards.regrade; RegradeError if it cannot be).
    ``forget_missing``: a resume drops the students ``out_dir`` holds that the inputs do not (without it,
    OutputError names them)."""
    jobs = jobs or os.cpu_count() or 1
    out = Outputs(out_dir, lab.id, _max_score(lab), lab.tests_sha256(), limits.in_force(lab.limits))
    with contextlib.ExitStack() as claimed, scratch.temporary("batch") as unpacked:
        entries = discover(inputs, lab.id, unpacked)
        claimed.enter_context(outputs.writing(out_dir))  # once the inputs are read: a bad one leaves no folder
        if only:
            # The folder's batch.json, its inputs as recorded too: those given here may be a part of them.
            about, entries = shards.regrade(outputs.read_folder(out_dir)[0], entries, only, out.kit, out.limits)
            held = shards.shard_of(about) or shards.WHOLE
            if shard is not None and shard != held:
                raise RegradeError(f"{out_dir} holds shard {held}, not {shard}: regrade with --shard {held} or none")
            shard = held
            out.open(resume=True, about=about)
            out.forget_others({s["key"] for s in about["roster"]})  # a regraded student's late work now gone
        else:
            shard = shard or shards.WHOLE
            # The whole roster, before anyone is graded: a shard killed at any time still says what it is.
            about = shards.describe(lab.id, out.kit, shard, entries, out.limits, freshness.recorded_inputs(inputs))
            entries = shard.select(entries)
            out.open(resume=resume, about=about, students={e.student for e in entries}, forget_missing=forget_missing)
            out.forget_others({e.key for e in entries})
        on_start(len(entries))
        to_grade, skipped = [], 0
        for entry in entries:
            if entry.status != "ok":
                on_done(entry, out.save_status(entry, entry.status, entry.reason))
            elif resume and not only and out.is_current(entry):
                skipped += 1
                on_done(entry, out.load_record(entry))
            else:
                to_grade.append(entry)
        grade_entries(lab, to_grade, out, jobs=min(jobs, max(len(to_grade), 1)), on_done=on_done)
        coverage = shards.coverage(shard.count, [shard.index])
        merged = about.get("merged", {})
        if merged.get("partial"):  # a regrade in a partial merge: still not the whole class
            coverage = shards.coverage(merged["count"], merged["present"])
        summary = out.write_class_files(
            lab.title, coverage, hidden_feedback=hidden_feedback, similarity_threshold=similarity_threshold, jobs=jobs
        )
    return BatchResult(len({e.student for e in entries}), len(to_grade), skipped, summary)


def merge(
    lab: Lab,
    shard_dirs: list[Path],
    out_dir: Path,
    *,
    partial: bool = False,
    hidden_feedback: str = feedback.DEFAULT_HIDDEN_FEEDBACK,
    similarity_threshold: float | None = similarity.DEFAULT_THRESHOLD,
) -> dict:
    """One gradebook and summary from the folders of every shard (each a ``grader batch --shard`` output).

    ShardError, before anything is written, unless the folders are every shard of one class
    graded by this kit; with ``partial``, missing and unfinished shards' students are listed
    with a status saying so (shards.SHARD_MISSING, shards.SHARD_UNFINISHED).
    """
    found = [shards.Folder(folder, *outputs.read_folder(folder)) for folder in shard_dirs]
    for folder in found:  # every report a report, before anything is written (OutputError otherwise)
        outputs.graded_reports(folder.path, folder.records)
    plan = shards.plan(found, lab.id, outputs.kit_identity(lab.tests_sha256()), partial=partial)
    out = Outputs(out_dir, lab.id, _max_score(lab), lab.tests_sha256())
    with outputs.writing(out_dir):
        return _write_merge(lab, out, plan, hidden_feedback, similarity_threshold)


def _write_merge(
    lab: Lab, out: Outputs, plan: shards.Plan, hidden_feedback: str, similarity_threshold: float | None
) -> dict:
    out.open(resume=False, about=plan.about)
    for row in plan.rows:
        key = row.student["key"]
        if row.record is None:
            student = row.student
            collected = {"version": student["version"], "commit": student["commit"]} if "version" in student else None
            entry = Entry(
                student["student"], row.status, row.reason,
                sha256=student["sha256"], version=student.get("version", ""), collected=collected,
            )  # fmt: skip
            out.save_status(entry, row.status, row.reason)
            continue
        if row.record.get("report"):
            atomic.write_text(out.report_path(key), (row.folder.path / row.record["report"]).read_text("utf-8"))
        kept = outputs.file_path(row.folder.path, key)
        if kept.is_file():  # the text graded, for the similarity of the whole class
            atomic.write_text(out.file_path(key), kept.read_text(encoding="utf-8"))
        atomic.write_json(out.record_path(key), row.record)
    return out.write_class_files(
        lab.title,
        plan.coverage,
        hidden_feedback=hidden_feedback,
        similarity_threshold=similarity_threshold,
        jobs=os.cpu_count() or 1,
    )

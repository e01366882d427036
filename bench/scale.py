"""The scale suite of `make bench`: beyond one machine. A generated class graded whole on N jobs (the
seconds per student) and as 50 shards, `grader merge` of the 50 shard folders timed, and from those
measured figures a computed table of what a course of 10,000 students costs as a job array of N shards."""

from __future__ import annotations

import csv
import math
import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.batch import generate_class, grader_seconds

MERGE_STUDENTS = 100  # the class graded as shards and merged
MERGE_SHARDS = 50  # the shard folders `grader merge` combines
COURSE_STUDENTS = 10_000
COURSE_SHARDS = (1, 10, 20, 50, 100, 256)  # 256: the most jobs a GitHub Actions matrix may have
SHARD_JOBS = 2  # each shard a 2-core runner, `grader batch --jobs 2`
# AN ASSUMPTION, not measured (it cannot be here, offline): what a fresh runner spends before grading,
# the checkout, setup-python, bubblewrap from apt, `make setup` installing the kit from PyPI; the merge
# job's own (the same, with the shards' artifacts downloaded instead of the class's zip) is taken equal.
JOB_SETUP_S = 90.0
BILLING_UNIT_S = 60  # GitHub bills each job's minutes, rounded up


def _batch(folder: Path, out: Path, *options: str) -> float:
    return grader_seconds(
        "batch", str(folder), "--lab", "ch06", "--out", str(out), "--similarity-threshold", "off", *options
    )


def grade_shards(folder: Path, into: Path, shards: int) -> tuple[list[Path], list[float]]:
    """``folder`` graded as ``shards`` shards (`grader batch --shard k/N --jobs 1`, as many at a time as
    there are cores), similarity off as a shard may take it; returns the shard folders and their seconds."""
    folders = [into / f"shard{k}" for k in range(1, shards + 1)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        seconds = list(
            pool.map(
                lambda k: _batch(folder, folders[k - 1], "--shard", f"{k}/{shards}", "--jobs", "1"),
                range(1, shards + 1),
            )
        )
    return folders, seconds


def merge_seconds(folders: list[Path], out: Path, *options: str) -> float:
    """`grader merge` of ``folders`` into ``out``, similarity off: what merging costs apart from comparing
    the class (the batch suite's `similarity` figure), which a merge does with the option on."""
    folders_args = map(str, folders)
    return grader_seconds(
        "merge", *folders_args, "--lab", "ch06", "--out", str(out), "--similarity-threshold", "off", *options
    )


def gradebook_students(out: Path) -> list[str]:
    """The students of a gradebook's grades.csv, one per row, those a missing or unfinished shard left out excluded."""
    with (out / "grades.csv").open(newline="", encoding="utf-8") as rows:
        return [r["student"] for r in csv.DictReader(rows) if not r["status"].startswith("shard-")]


def bench_merge(repeat: int, students: int = MERGE_STUDENTS, shards: int = MERGE_SHARDS) -> dict:
    """A generated class graded whole on every core (its seconds per student) and as ``shards`` shards; then,
    ``repeat`` rounds in turns, `grader merge` of the shard folders, of the whole folder alone (the difference
    is what each more folder costs) and of the first shard alone with --partial (nearly no student graded:
    the merge's fixed cost). The merged gradebook must hold every student once."""
    jobs = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="labkit-bench-scale-") as tmp:
        folder = Path(tmp) / "class"
        names = sorted(generate_class(folder, students))
        whole_s = _batch(folder, Path(tmp) / "whole", "--jobs", str(jobs))
        started = time.perf_counter()
        folders, shard_s = grade_shards(folder, Path(tmp), shards)
        sharding_s = time.perf_counter() - started
        merges = {"many": (folders, ()), "one": ([Path(tmp) / "whole"], ()), "fixed": (folders[:1], ("--partial",))}
        names_in_turn = list(merges)
        rounds = []
        for r in range(repeat):  # the order rotated by round: a slow spell falls on every merge alike
            turn = names_in_turn[r % 3 :] + names_in_turn[: r % 3]
            rounds.append({m: merge_seconds(merges[m][0], Path(tmp) / f"merged-{m}-{r}", *merges[m][1]) for m in turn})
        merged = gradebook_students(Path(tmp) / "merged-many-0")
        if sorted(merged) != names:
            raise AssertionError(
                f"the merged gradebook holds {len(merged)} rows, not the class's {len(names)} students"
            )
    one_folder, many_folders, fixed = (statistics.median(r[m] for r in rounds) for m in ("one", "many", "fixed"))
    graded_in_first = math.ceil(students / shards)
    return {
        "class": {"students": students, "lab": "ch06"},
        "whole": {"jobs": jobs, "seconds": round(whole_s, 1), "per_student_s": round(whole_s / students, 3)},
        "shards": {
            "count": shards,
            "jobs_each": 1,
            "at_once": jobs,
            "seconds": round(sharding_s, 1),
            "median_shard_s": round(statistics.median(shard_s), 2),
        },
        "merge": {
            "folders": shards,
            "seconds": round(many_folders, 2),
            "per_folder_s": round(many_folders / shards, 3),
            "one_folder_s": round(one_folder, 2),  # the same students from one unsharded folder
            "per_more_folder_s": round((many_folders - one_folder) / (shards - 1), 4),
            "first_shard_partial_s": round(fixed, 2),  # --partial, one shard: the fixed cost
            "per_student_s": round((one_folder - fixed) / (students - graded_in_first), 4),
            "every_student_once": True,  # checked above: the suite fails otherwise
        },
    }


def merge_estimate_s(students: int, shards: int, merge: dict) -> float:
    """An ESTIMATE of `grader merge` for ``students`` in ``shards`` folders, from the measured figures of
    bench_merge: its fixed cost, each student's (taken as linear) and each folder's beyond the first (a
    negative difference, the noise of a small class, is taken as nothing)."""
    per_student, per_folder = max(merge["per_student_s"], 0.0), max(merge["per_more_folder_s"], 0.0)
    return merge["first_shard_partial_s"] + per_student * students + per_folder * (shards - 1)


def billed_minutes(seconds: float) -> int:
    return math.ceil(seconds / BILLING_UNIT_S)


def course_cost(students: int, shards: int, per_student_s: float, merge_s: float, setup_s: float = JOB_SETUP_S) -> dict:
    """What grading ``students`` costs as ``shards`` jobs that start together, each grading its share at
    ``per_student_s`` after ``setup_s``, then one merge job: wall time and minutes billed (each job rounded up)."""
    per_shard = math.ceil(students / shards)
    shard_s = setup_s + per_shard * per_student_s
    merge_job_s = setup_s + merge_s
    return {
        "shards": shards,
        "students_per_shard": per_shard,
        "shard_minutes": round(shard_s / 60, 1),
        "merge_minutes": round(merge_s / 60, 1),
        "wall_minutes": round((shard_s + merge_job_s) / 60, 1),
        "billed_minutes": shards * billed_minutes(shard_s) + billed_minutes(merge_job_s),
    }


def course_table(per_student_s: float, merge: dict, students: int = COURSE_STUDENTS) -> dict:
    """The course's cost for every shard count in COURSE_SHARDS, one row each: computed, not measured, from
    this run's seconds per student on SHARD_JOBS jobs and its merge figures, with JOB_SETUP_S assumed."""
    rows = {}
    for shards in COURSE_SHARDS:
        merge_s = merge_estimate_s(students, shards, merge)
        rows[f"course_{shards}_shards"] = course_cost(students, shards, per_student_s, merge_s)
    return rows


def bench_scale(repeat: int) -> dict:
    """The merge figure, then the course table from its seconds per student (on every core: SHARD_JOBS
    of them on the 2-core machine the table is for; on another, the table says how many)."""
    figures = bench_merge(repeat)
    whole = figures["whole"]
    about = {
        "students": COURSE_STUDENTS,
        "per_student_s": whole["per_student_s"],  # measured in this run
        "measured_on_jobs": whole["jobs"],
        "for_jobs_per_shard": SHARD_JOBS,
        "job_setup_s": JOB_SETUP_S,  # assumed
        "figures": "computed estimates, not measured",
    }
    course = course_table(whole["per_student_s"], figures["merge"])
    return {**figures, "course": about, **course}

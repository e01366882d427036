"""The batch suite of `make bench`: a generated class graded by `grader batch` with 1 and N
jobs, against in-process grading, and the first 50 to 800 students of a class without hanging
files for linearity."""

from __future__ import annotations

import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from grader import labs

SCALING_SIZES = (50, 100, 200, 400, 800)  # class sizes graded with N jobs: the time must grow linearly
HIDDEN_SIZE = 100  # students graded with and without the lab's hidden tests, in turns
HIDDEN_ROUNDS = 2  # one in each order
# The honest students' ratio: the class's first students who are not hostile, graded behind the wall and
# in-process, one session each way, in turns. 40: in-process every file's module stays loaded, and a
# session of 100 took 0.37 s a student against 0.33 s with 40, its fastest.
HONEST_SAMPLE = 40
HONEST_ROUNDS = 3
SIMILARITY_CLASS = 800  # the similarity row's estimate: a class of this many distinct files
ONE_BY_ONE = 20  # students graded with one `grader run` each, the batch's baseline (the first 20: every kind)


# A few hostile files from the red team's catalogue: each costs its limits, never the batch.
BENCH_HOSTILE = [
    "syntax_error.py",
    "disallowed_import_os.py",
    "op_segfault_as_strided.py",
    "op_os_exit.py",
    "op_loop_catches_everything.py",
    "exit_zero_early.py",
    "patch_builtins.py",
    "forge_kit_files.py",
]


def hangs(entry) -> bool:
    """Whether a red-team entry's file makes a test run out of its time (it costs its limit, whatever the class)."""
    return entry.all_outcomes == "timeout" or "timeout" in entry.outcomes.values()


def generate_class(folder: Path, size: int, lab_id: str = "ch06", *, hanging: bool = True) -> dict[str, str]:
    """A class of ``size`` submissions like a real one: correct, partly done, buggy, hostile.

    Returns student -> kind. Built from the lab's instructor material (labs/<id>/instructor/:
    mutants, the red team, independent correct files), so it needs the instructor's copy of the kit.
    Each kind is cycled on its own, so a student's kind, and which hostile file a hostile student
    is, do not move when the catalogue of mutants grows (which mutant a buggy student has does).
    Drawn from one pool, as they once were, two more mutants changed which hostile files the class
    held: a file that hangs two tests came in, and the first 100 students took 47 s instead of 33 s
    on 2 jobs. It is in the class for good now (student 89): a real class has its hangs too.
    ``hanging`` False leaves the hostile files that hang out of the cycle (the linearity's classes).
    """
    from tests import instructor
    from tests.hostile.catalogue import HOSTILE
    from tests.mutation import apply, catalogue, reference_source

    lab = labs.get(lab_id)
    reference = reference_source(lab_id)
    pristine = lab.starter.read_text(encoding="utf-8")
    by_file = {h.file: h for h in HOSTILE if h.lab == lab_id}
    listed = [by_file[name] for name in BENCH_HOSTILE if name in by_file]
    hostile = [entry.source() for entry in listed if hanging or not hangs(entry)]
    mutants = catalogue(lab_id)
    # Every 7th mutant, cycled, so the class meets bugs from every part of the catalogue; another
    # step when 7 divides the catalogue's size, which would cycle through a seventh of it.
    stride = next(step for step in (7, 11, 13, 17, 19, 23) if len(mutants) % step)
    correct = [reference, *(p.read_text(encoding="utf-8") for p in instructor.submissions(lab_id))]
    kinds = {}
    folder.mkdir(parents=True, exist_ok=True)
    buggy = 0
    for i in range(size):
        # Per 10 students: 4 buggy, 3 correct (the reference and engines written apart), 2 not
        # started, and a hostile one every other 10 (each of BENCH_HOSTILE the lab has, in turn), else
        # a fifth buggy one.
        decade, slot = divmod(i, 10)
        if slot < 4 or (slot == 9 and (decade % 2 or not hostile)):
            kind, text = "buggy", apply(reference, mutants[(buggy * stride) % len(mutants)])
            buggy += 1
        elif slot < 7:
            kind, text = "correct", correct[(3 * decade + slot - 4) % len(correct)]
        elif slot < 9:
            kind, text = "starter", pristine
        else:
            kind, text = "hostile", hostile[(decade // 2) % len(hostile)]
        name = f"student{i:04d}"
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
        kinds[name] = kind
    return kinds


def grader_seconds(*args: str) -> float:
    """Seconds of one `python -m grader ARGS` in the kit's folder; a failed command raises (its time is no figure)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "grader", *args], cwd=labs.KIT_ROOT, capture_output=True, check=True)
    return time.perf_counter() - started


MEMORY_POLL_S = 1.0  # how often a batch's processes' peak memory is read while it runs


def _peak_mib(pid: str) -> float | None:
    """The peak resident set of process ``pid`` so far (VmHWM), in MiB; None if it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _kind_of(pid: str) -> str | None:
    """A grading job's pytest process, or a Python process of its sandbox (the zygote, a child)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            argv = cmdline.read().split(b"\0")
    except OSError:
        return None
    if b"grader.harness.main" in argv:
        return "pytest_process"
    if argv[1:3] == [b"-I", b"-S"] and b"zygote_main" in b"".join(argv):
        return "sandbox_process"
    return None


class JobMemory(threading.Thread):
    """The peak memory of a batch's jobs, read from /proc while it runs: the largest pytest process
    (one per job and session) and the largest Python process of a sandbox (a job's zygote, or the
    child running a student's code, whose memory the sandbox also limits)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peaks = {"pytest_process": 0.0, "sandbox_process": 0.0}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(MEMORY_POLL_S):
            for pid in filter(str.isdigit, os.listdir("/proc")):
                kind = _kind_of(pid)
                peak = _peak_mib(pid) if kind else None
                if peak is not None:
                    self.peaks[kind] = max(self.peaks[kind], peak)


def batch_seconds(folder: Path, out: Path, jobs: int) -> tuple[float, dict]:
    """Seconds of `grader batch` on ``folder`` with ``jobs`` jobs, and the peak memory of its jobs in MiB
    (see JobMemory)."""
    watch = JobMemory()
    watch.start()
    try:
        seconds = grader_seconds("batch", str(folder), "--lab", "ch06", "--out", str(out), "--jobs", str(jobs))
    finally:
        watch.done.set()
        watch.join()
    return seconds, {kind: round(peak, 1) for kind, peak in watch.peaks.items()}


def one_by_one_seconds(folder: Path, names: list[str], out: Path) -> float:
    """Seconds per student for one `grader run` per student in turn, as a shell loop would grade them."""
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for name in names:
        command = [sys.executable, "-m", "grader", "run", "--lab", "ch06", "--submission", str(folder / f"{name}.py")]
        subprocess.run([*command, "--json", str(out / f"{name}.json")], cwd=labs.KIT_ROOT, capture_output=True)
    return (time.perf_counter() - started) / len(names)


def similarity_seconds(folder: Path, names: list[str]) -> dict:
    """The students' files compared pair by pair (grader.batch.similarity, the default threshold), as
    the batch does after grading, in one process per core, and in one process: its cost apart from the grading."""
    from grader.batch import similarity

    texts = [similarity.Submission(n, (folder / f"{n}.py").read_text(encoding="utf-8")) for n in names]
    starter = labs.get("ch06").starter.read_text(encoding="utf-8")
    jobs = os.cpu_count() or 1
    seconds = {}
    for processes in (jobs, 1):
        started = time.perf_counter()
        found = similarity.pairs(texts, starter, similarity.DEFAULT_THRESHOLD, jobs=processes)
        seconds[processes] = time.perf_counter() - started
    # Its two parts apart, in one process: a text's fingerprint (linear in the class) and a pair's comparison
    # (quadratic). The generated class holds many copies, which are fingerprinted and compared once; a real
    # class's files are all distinct: what SIMILARITY_CLASS of them would cost, from these two figures.
    distinct = list(dict.fromkeys(t.text for t in texts))
    started = time.perf_counter()
    prints = similarity.fingerprint_texts(distinct, starter)
    fingerprinted = time.perf_counter()
    compared = list(itertools.combinations(prints, 2))
    for first, second in compared:
        similarity.compare_files(first, second)
    per_text = (fingerprinted - started) / len(distinct)
    per_pair = (time.perf_counter() - fingerprinted) / max(1, len(compared))
    n = SIMILARITY_CLASS
    return {
        "students": len(names),
        "seconds": round(seconds[jobs], 2),
        "processes": jobs,
        "one_process_seconds": round(seconds[1], 2),
        "pairs": len(found),
        "distinct_texts": len(distinct),
        "per_text_ms": round(per_text * 1e3, 1),
        "per_pair_us": round(per_pair * 1e6, 1),
        # computed, not measured: fingerprints on every core, comparisons in the batch's process (as pairs() does)
        f"{n}_distinct_fingerprints_s": round(n * per_text / jobs, 1),
        f"{n}_distinct_comparisons_s": round(n * (n - 1) / 2 * per_pair, 1),
    }


def report_seconds(out: Path) -> float:
    """`grader report` on a graded class's folder, in a fresh process as the batch's end writes it (matplotlib
    imported, the plots drawn, similar pairs side by side): the part of the batch's time the page costs."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "grader", "report", str(out)], cwd=labs.KIT_ROOT, capture_output=True, check=True
    )
    return time.perf_counter() - started


def _first(folder: Path, names: list[str], into: Path) -> Path:
    """A class folder holding copies of the first students (batch input refuses symlinks)."""
    into.mkdir(parents=True)
    for name in names:
        shutil.copyfile(folder / f"{name}.py", into / f"{name}.py")
    return into


def bench_batch(repeat: int, size: int = 200, sizes: tuple[int, ...] = SCALING_SIZES) -> dict:
    """A generated class through `grader batch` with 1 and N jobs, against in-process grading
    and against one `grader run` per student, and the first 50 to 800 students of a class whose
    hostile files do not hang, with N jobs: the time must grow linearly. Then what the lab's hidden
    tests cost a batch, the comparison of every pair of students' files (similar submissions), and
    the class report.

    One run of each (a run of 200 students is itself an average), but for the honest students' ratio,
    measured in turns (honest_times). Every prefix of a class has about the same mix of kinds
    (generate_class cycles it every 20 students), but not of hangs: a file that hangs costs its time limits
    at any class size (13.5 s for the bench's own `grader run`), and the class holds it once in 160 students,
    so the first 50 held none and the 800 five: linearity read 1.23 on 2026-12-07's fast VM for that alone.
    The linearity's classes are the prefixes of a class whose hostile files do not hang.
    """
    jobs = os.cpu_count() or 1
    lab = labs.get("ch06")
    with tempfile.TemporaryDirectory(prefix="labkit-bench-batch-") as tmp:
        everyone = Path(tmp) / "everyone"
        all_kinds = generate_class(everyone, max(size, *sizes))
        names = sorted(all_kinds)
        folder = _first(everyone, names[:size], Path(tmp) / "class")
        kinds = {n: all_kinds[n] for n in names[:size]}
        honest = [n for n, k in kinds.items() if k != "hostile"]
        runs = {n: batch_seconds(folder, Path(tmp) / f"out{n}", n) for n in sorted({1, jobs})}
        times = {n: seconds for n, (seconds, _) in runs.items()}
        one_by_one = one_by_one_seconds(folder, names[:ONE_BY_ONE], Path(tmp) / "one_by_one")
        steady = Path(tmp) / "steady"
        steady_names = sorted(generate_class(steady, max(sizes), hanging=False))
        scaling, peaks = {}, {}
        for n in sizes:
            prefix = _first(steady, steady_names[:n], Path(tmp) / f"first{n}")
            scaling[n], peaks[n] = batch_seconds(prefix, Path(tmp) / f"scaling{n}", jobs)
        per_submission = honest_times(lab, [folder / f"{n}.py" for n in honest[:HONEST_SAMPLE]])
        similar = similarity_seconds(folder, names[:size])
        report = report_seconds(Path(tmp) / f"out{jobs}")
        hidden = hidden_tests_cost(_first(everyone, names[:HIDDEN_SIZE], Path(tmp) / "hidden"), Path(tmp), jobs)
    throughput = {n: size / t for n, t in times.items()}
    per_student = {n: seconds / n for n, seconds in scaling.items()}
    smallest, largest = min(sizes), max(sizes)
    return {
        "class": {
            "students": size,
            "kinds": {k: list(kinds.values()).count(k) for k in sorted(set(kinds.values()))},
            "lab": "ch06",
        },
        "one_job": {"seconds": round(times[1], 1), "per_second": round(throughput[1], 3)},
        f"{jobs}_jobs": {"seconds": round(times[jobs], 1), "per_second": round(throughput[jobs], 3)},
        "parallel": {"jobs": jobs, "efficiency": round(throughput[jobs] / (jobs * throughput[1]), 2)},
        # `grader run` per student, behind the wall as the batch grades: what the batch saves.
        "one_by_one": {
            "students": ONE_BY_ONE,
            "per_student_s": round(one_by_one, 3),
            "batch_speedup_1_job": round(one_by_one * throughput[1], 2),
            f"batch_speedup_{jobs}_jobs": round(one_by_one * throughput[jobs], 2),
        },
        "per_submission": per_submission,
        "scaling": {
            "jobs": jobs,
            "hanging_files": "left out",  # see bench_batch's docstring
            **{f"{n}_students_s": round(seconds, 1) for n, seconds in scaling.items()},
            # 1.0 is linear: the time per student with the most students over that with the fewest
            "linearity": round(per_student[largest] / per_student[smallest], 2),
        },
        # A job grades its students in one pytest process and one sandbox at a time: neither may grow
        # with the class (a session grades at most grader.grading.feed.SESSION_LIMIT students).
        "memory": {
            "jobs": jobs,
            **{f"{n}_students_{kind}_peak_mb": peak for n, row in peaks.items() for kind, peak in row.items()},
            "growth": _growth(peaks[smallest], peaks[largest]),
        },
        "hidden_tests": hidden,
        "similarity": similar,  # included in the batch's times above: the batch compares after grading
        # the class report (report.html), also included in them: the batch writes it last
        "report": {"seconds": round(report, 2), "share_of_batch": round(report / times[jobs], 3)},
    }


def honest_times(lab, files: list[Path], rounds: int = HONEST_ROUNDS) -> dict:
    """Seconds per student for ``files`` (students who are not hostile) graded as a batch job grades them,
    in one session behind the wall, and in one session in-process (trusted code only: the bench's own
    files): the two in turns, ``rounds`` times, so that a slow spell of the machine falls on both; the medians.
    Every run must give every student the same outcomes, test by test: else the two did not do the same work."""
    from grader.grading import runner
    from grader.implementation import Implementation

    chunk = [Implementation("submission", path) for path in files]
    times: dict[str, list[float]] = {"worker": [], "in-process": []}
    outcomes = set()
    for _ in range(rounds):
        for isolation in times:
            started = time.perf_counter()
            runs = runner.run_many(lab, chunk, isolation=isolation, session_limit=len(chunk))
            times[isolation].append((time.perf_counter() - started) / len(chunk))
            outcomes.add(tuple(tuple(result.outcome for result in run.results) for run in runs))
    if len(outcomes) != 1:
        raise RuntimeError("the honest students were graded differently from one run to another: no figure")
    walled, in_process = statistics.median(times["worker"]), statistics.median(times["in-process"])
    return {
        "students": len(chunk),
        "rounds": rounds,
        "in_process_s": round(in_process, 3),
        "behind_the_wall_s": round(walled, 3),
        "overhead_s": round(walled - in_process, 3),
        "ratio": round(walled / in_process, 2),
    }


def _growth(smallest: dict, largest: dict) -> float | None:
    """How much more memory a job's processes took with the largest class than with the smallest (the
    larger ratio of the two kinds); None if a run ended before its memory was first read."""
    ratios = [largest[kind] / smallest[kind] for kind in smallest if smallest[kind] and largest[kind]]
    return round(max(ratios), 2) if ratios else None


def hidden_tests_cost(folder: Path, tmp: Path, jobs: int, rounds: int = HIDDEN_ROUNDS) -> dict:
    """The class in ``folder`` graded by the batch (its Python API: both ways alike) with the lab's hidden
    tests and without them (a student's copy), in turns, ``rounds`` rounds; the cost is the median ratio."""
    from grader.batch import run_batch

    lab = labs.get("ch06")
    variants = {"with_hidden": lab, "visible_only": lab.visible_only()}
    timed = []
    for r in range(rounds):
        seconds = {}
        for name in list(variants) if r % 2 == 0 else list(reversed(variants)):
            started = time.perf_counter()
            run_batch(variants[name], [folder], tmp / f"hidden-{name}-{r}", jobs=jobs)
            seconds[name] = time.perf_counter() - started
        timed.append(seconds)
    return {
        "students": len(list(folder.iterdir())),
        "jobs": jobs,
        "with_hidden_s": round(statistics.median(r["with_hidden"] for r in timed), 1),
        "visible_only_s": round(statistics.median(r["visible_only"] for r in timed), 1),
        "cost": round(statistics.median(r["with_hidden"] / r["visible_only"] for r in timed) - 1, 2),
    }

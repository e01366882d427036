"""``grader collect``: the students' forks as they stood at a deadline, in a folder ``grader batch`` grades.

For each roster student, in parallel: clone the fork (grader.batch.git: bare, blobless, no
prompt, no hook, within a time budget), read its first-parent history, choose the commits
to grade and check the history (grader.batch.history), and write the labs' files at those
commits into the collection folder (grader.batch.collection), each blob's size known before
it is read. A fork that cannot be cloned, has no commit, lacks the lab's file or has a
history git can tell was rewritten gets a status and a reason; it never stops the others.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

from grader import atomic, awake, intake, verdicts
from grader.batch import collection, git, history
from grader.batch.collection import LATE, ON_TIME, CollectionError, lab_file
from grader.batch.inputs import key_of
from grader.batch.roster import Student
from grader.grading import scratch

DEFAULT_TIMEOUT = 300  # seconds per fork: a course fork clones blobless in a few


def _later(choice: history.Choice) -> list[dict]:
    return [{"commit": c.sha, "committed_at": collection.iso(c.time)} for c in choice.later[: history.MAX_LATER_LISTED]]


def _read_file(fork: git.Fork, commit: str, path: str) -> tuple[dict, bytes | None] | None:
    """``path`` at ``commit``: what it is and its bytes, or the problem that keeps it out; None if absent."""
    entry = fork.entry(commit, path)
    if entry is None:
        return None
    where = f"{path} in commit {commit[:12]}"
    if fork.found_at(commit, path) != entry.sha:  # a tree that names a folder twice: git shows another file, or none
        return {"blob": entry.sha, "problem": f"{where} is not the file git shows at that path: not collected"}, None
    if entry.kind == "commit":
        return {"blob": entry.sha, "problem": f"{where} is a submodule, not a file"}, None
    if entry.kind != "blob":
        return {"blob": entry.sha, "problem": f"{where} is a folder, not a file"}, None
    if entry.mode not in git.REGULAR_FILE_MODES:  # 120000: the link's target is all git holds
        return {"blob": entry.sha, "problem": f"{where} is a symbolic link, not a file"}, None
    measured = fork.object_of(entry.sha, intake.MAX_SUBMISSION_BYTES)
    if measured is None:  # over the limit: git was stopped before it had the whole object
        return {"blob": entry.sha, "size": None, "problem": _too_large(path, None)}, None
    kind, size = measured
    info = {"blob": entry.sha, "size": size}
    if kind != "blob":  # a file's entry naming a tag: `cat-file blob` would read the tagged blob, unmeasured
        return {**info, "problem": f"{where} is a {kind} object, not a file's content"}, None
    if size > intake.MAX_SUBMISSION_BYTES:
        return {**info, "problem": _too_large(path, size)}, None
    data = fork.blob(entry.sha, size)
    return {**info, "sha256": hashlib.sha256(data).hexdigest(), "problem": ""}, data


def _too_large(path: str, size: int | None) -> str:
    return verdicts.too_large(path, size, intake.MAX_SUBMISSION_BYTES).message


# The statuses of a record that read the fork's history. An empty one is a reading too: a commit dated before the
# deadline that appears after it was collected empty was pushed late (or HEAD was aimed away from the work).
READ_HISTORY = ("on-time", "late", "suspect", "missing", "empty")


def _last_read(previous: dict | None) -> dict | None:
    """The latest earlier record of the student that read their fork's history: ``previous`` itself, or what a
    record that could not read it (unreachable, empty) carried on from the one before (its ``last_read``)."""
    if not previous:
        return None
    if previous.get("status") in READ_HISTORY:
        return previous
    carried = previous.get("last_read")
    return carried if isinstance(carried, dict) and carried.get("status") in READ_HISTORY else None


def _earlier(previous: dict | None) -> tuple[list[str], history.Earlier | None]:
    """The commits earlier collections of this student's fork recorded, and what the last one that read it saw
    (None: a student no collection of this folder has seen). Whatever the roster's URL for them is now: a URL
    spelt another way, or another fork, must not wipe what was seen (a fork once suspect would be laundered)."""
    if not previous:
        return [], None
    read = _last_read(previous) or {}
    commits = [c for c in previous.get("earlier_commits", []) if isinstance(c, str)]
    for sha in (read.get("commit"), (read.get("late") or {}).get("commit")):
        if isinstance(sha, str) and sha not in commits:
            commits.append(sha)
    fetched = read.get("fetched_at")
    return commits, history.Earlier(
        tuple(commits),
        collection.seconds(fetched) if isinstance(fetched, str) else None,
        read.get("commit") if isinstance(read.get("commit"), str) else None,
    )


def _carried(previous: dict | None) -> dict | None:
    """What a record that could not read the fork carries on for the next collection: the last reading's evidence."""
    read = _last_read(previous)
    if read is None:
        return None
    return {k: read.get(k) for k in ("status", "problem", "fetched_at", "commit", "late", "url")}


class Collector:
    """One collection: the deadline, the labs' files wanted, where clones and files go."""

    def __init__(self, deadline: datetime, lab_ids: list[str], files: Path, clones: Path, timeout: float):
        self.deadline = int(deadline.timestamp())
        self.lab_ids = lab_ids
        self.files = files
        self.clones = clones
        self.timeout = timeout
        self.stopped = threading.Event()  # set when the collection is interrupted: no fork starts another command

    def one(self, student: Student, previous: dict | None) -> dict:
        """Collect one student's fork: their record, with their files written (never raises for the fork's sake)."""
        earlier_commits, earlier = _earlier(previous)
        record = {
            "student": student.student,
            "url": student.url,
            "status": "unreachable",
            "problem": "",
            "fetched_at": None,
            "branch": None,
            "commit": None,
            "committed_at": None,
            "later_commits": [],
            "later_count": 0,
            "late": None,
            "versions": {},
            "earlier_commits": earlier_commits,
        }
        carried = _carried(previous)
        if carried:  # kept until a collection reads the fork again: an unreachable spell must not launder it
            record["last_read"] = carried
        key = key_of(student.student)
        clone = self.clones / key
        fork = git.Fork(student.url, clone, self.timeout, self.stopped)
        try:
            try:
                fork.clone()
            except git.GitError as exc:
                record["problem"] = f"git could not clone it: {exc}"
                return record
            record["fetched_at"] = collection.iso(time.time())
            self._read(fork, key, record, earlier, _last_read(previous))
        except git.GitError as exc:
            record.update(status="unreachable", problem=f"git could not read it: {exc}", versions={})
            shutil.rmtree(self.files / ON_TIME / key, ignore_errors=True)
            shutil.rmtree(self.files / LATE / key, ignore_errors=True)
        finally:
            shutil.rmtree(clone, ignore_errors=True)
        if record["status"] in READ_HISTORY:
            record.pop("last_read", None)  # this record is the reading now
        return record

    def _read(
        self, fork: git.Fork, key: str, record: dict, earlier: history.Earlier | None, previous: dict | None
    ) -> None:
        record["branch"] = fork.branch()
        if record["branch"] is None:
            record.update(status="empty", problem="the default branch has no commit")
            return
        commits = fork.first_parent_history()
        now = collection.seconds(record["fetched_at"])
        choice = history.choose(commits, self.deadline, now, earlier, fork.contains)
        if choice.on_time:
            record.update(commit=choice.on_time.sha, committed_at=collection.iso(choice.on_time.time))
        record.update(later_commits=_later(choice), later_count=len(choice.later))
        if choice.late:
            late_by = choice.late.time - self.deadline
            record["late"] = {
                "commit": choice.late.sha,
                "committed_at": collection.iso(choice.late.time),
                "late_by_seconds": late_by,
                "late_by": history.duration(late_by),
            }
        if not choice.suspect and previous and previous.get("status") == "suspect":
            # Once suspect, suspect until the instructor decides: a later collection must not launder it.
            choice.suspect = str(previous.get("problem", ""))
        if choice.suspect and previous and previous.get("url") != record["url"]:
            choice.suspect += f" (the roster's URL was {previous.get('url')} then)"
        if choice.suspect:
            record.update(status="suspect", problem=choice.suspect)
            return
        record["status"] = ON_TIME if choice.on_time else LATE
        for version, commit in ((ON_TIME, choice.on_time), (LATE, choice.late)):
            if commit is not None:
                record["versions"][version] = self._write_files(fork, commit.sha, version, key)
        if not any(record["versions"].values()):
            shas = " or ".join(c.sha[:12] for c in (choice.on_time, choice.late) if c)
            names = " or ".join(lab_file(lab) for lab in self.lab_ids)
            record.update(status="missing", problem=f"no {names} in commit {shas}")

    def _write_files(self, fork: git.Fork, commit: str, version: str, key: str) -> dict:
        found = {}
        for lab in self.lab_ids:
            path = lab_file(lab)
            read = _read_file(fork, commit, path)
            if read is None:
                continue
            info, data = read
            found[path] = info
            if data is not None:
                atomic.write_bytes(self.files / version / key / path, data)
        return found


def _files_folder(out_dir: Path, started: float) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(started))
    folder, number = out_dir / f"files-{stamp}", 1
    while folder.exists():
        number += 1
        folder = out_dir / f"files-{stamp}-{number}"
    return folder


def earlier_collection(out_dir: Path, deadline: datetime) -> dict | None:
    """The collection already in ``out_dir`` (None if the folder is new or empty), or CollectionError if the
    folder holds something else or a collection for another deadline."""
    if collection.is_collection(out_dir):
        record = collection.read(out_dir).record
        if collection.seconds(str(record.get("deadline"))) != int(deadline.timestamp()):
            raise CollectionError(
                f"{out_dir} holds a collection for the deadline {record.get('deadline')}, not "
                f"{deadline.isoformat()}: choose another --out"
            )
        return record
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise CollectionError(f"{out_dir} is not empty and holds no collection: choose another --out")
    return None


def collect(
    roster_name: str,
    students: list[Student],
    deadline: datetime,
    out_dir: Path,
    lab_ids: list[str],
    *,
    jobs: int = 4,
    timeout: float = DEFAULT_TIMEOUT,
    on_done: Callable[[dict], None] = lambda record: None,
) -> dict:
    """Collect every roster student's fork into ``out_dir``; return the record written (collection.json).

    An earlier collection in ``out_dir`` (same deadline) is checked against, then replaced.
    """
    previous = earlier_collection(out_dir, deadline)
    # By the id as the roster compares ids (case aside): the same student under a login spelt otherwise keeps
    # what earlier collections saw of their fork.
    by_student = {s["student"].casefold(): s for s in previous["students"]} if previous else {}
    started = time.time()
    out_dir.mkdir(parents=True, exist_ok=True)
    files = _files_folder(out_dir, started)
    lock = threading.Lock()
    records: list[dict] = []
    with scratch.temporary("collect") as clones:
        collector = Collector(deadline, lab_ids, files, clones, timeout)

        def one(student: Student) -> None:
            record = collector.one(student, by_student.get(student.student.casefold()))
            with lock:
                records.append(record)
                on_done(record)

        pool = ThreadPoolExecutor(max_workers=max(1, min(jobs, len(students))), thread_name_prefix="labkit-collect")
        try:
            for future in [pool.submit(one, s) for s in students]:
                awake.result(future)  # not future.result(): a Ctrl-C must reach the main thread
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            collector.stopped.set()
            git.stop_all()  # the clones run in sessions of their own: Ctrl-C does not reach them
            pool.shutdown(wait=True)
            shutil.rmtree(files, ignore_errors=True)
            raise
        pool.shutdown(wait=True)
    record = {
        "schema": collection.SCHEMA,
        "roster": roster_name,
        "deadline": deadline.isoformat(),
        "collected_at": collection.iso(started),
        "finished_at": collection.iso(time.time()),
        "git": git.git_version(),
        "labs": lab_ids,
        "files": files.name,
        "earlier": [*previous.get("earlier", []), previous["collected_at"]] if previous else [],
        "students": sorted(records, key=lambda r: r["student"]),
    }
    files.mkdir(parents=True, exist_ok=True)  # even when no file was collected: the record names it
    atomic.write_json(out_dir / collection.RECORD, record)
    for old in out_dir.glob("files-*"):  # the earlier collection's files, now that the record no longer names them
        if old.name != files.name and collection.FILES_FOLDER.match(old.name):
            with contextlib.suppress(OSError):
                shutil.rmtree(old)
    return record

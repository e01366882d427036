"""A batch's output folder: one record per student, one report per graded student, the class files.

    DIR/batch.json           what the folder is: lab, kit, shard I/N, the inputs and their roster (grader.batch.shards),
                             written before anyone is graded, so a killed batch still says it
    DIR/records/<id>.json    the student's status, score, hash, flags, limits, the file's static read (written last)
    DIR/reports/<id>.json    the canonical report of a graded student
    DIR/feedback/<id>.md     what the student is told: a solo `grader run` of their file in their copy of the
                             kit, the hidden tests as --hidden-feedback says; or why they were not graded
                             (grader.batch.feedback)
    DIR/feedback/<id>.html   the same text as a page, escaped in a <pre>, no script (feedback.as_html)
    DIR/files/<id>.py        the text graded (as intake decoded it, in UTF-8), for the similarity of submissions
    DIR/grades.csv           the gradebook
    DIR/summary.json, summary.md
    DIR/similarity.json      pairs of students whose code is unusually alike (grader.batch.similarity), unless off
    DIR/overrides.csv        the instructor's manual overrides, which grader export applies (grader.batch.overrides)
    DIR/final_grades.json, DIR/audit.jsonl, DIR/gradebook-<format>.csv   what grader export writes (grader.batch.export)
    DIR/report.html          the class report to look at, from the files above alone (grader.batch.class_report),
                             written last; `grader report DIR` writes it again

Every file is written atomically, and a record only after its report, so a batch
killed at any instant leaves a folder that ``--resume`` or ``grader merge`` can trust.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
from collections.abc import Iterator
from pathlib import Path

from grader import __version__, atomic, intake, labs
from grader.batch import class_report, feedback, final_grades, gradebook, identical, similarity, sources
from grader.batch.inputs import Entry, is_key
from grader.kit import manifest
from grader.report.text import a_few
from grader.verdicts import SubmissionError

RECORD_SCHEMA = "labkit.batch-record/1"


class OutputError(Exception):
    """The output folder cannot be used as asked (another lab's batch, or not a batch at all)."""


@contextlib.contextmanager
def writing(folder: Path) -> Iterator[None]:
    """Hold ``folder`` (made if missing) for one command that writes it: another grader batch, merge or export
    on the same folder meanwhile is refused (two resumes graded the same students and both wrote the class
    files: a review). The kernel's lock on the folder goes with the process, however it ends."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise OutputError(f"cannot use {folder}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(
                f"{folder} is being written by another grader command (a batch, merge or export): wait for it to "
                "finish, or choose another folder"
            ) from None
        yield
    finally:
        os.close(fd)


def kit_identity(tests_sha256: str) -> dict:
    """The kit that grades: its version, the lab's tests, and its manifest (the version alone
    stays the same across many changes to the grader)."""
    return {"version": __version__, "tests_sha256": tests_sha256, "manifest_sha256": manifest.fingerprint()}


def read_folder(root: Path) -> tuple[dict, dict[str, dict]]:
    """A batch folder's ``batch.json`` and its records by key (a graded one only with its report)."""
    if not (root / "batch.json").exists():
        raise OutputError(f"{root} is not a batch folder (no batch.json)")
    about = _object(root / "batch.json", "is not a batch's description", "grade the class again into a new --out")
    records = {}
    for path in sorted((root / "records").glob("*.json")):
        record = _checked_record(path)
        if record.get("status") != "graded" or (root / str(record.get("report"))).is_file():
            records[path.stem] = record
    return about, records


def graded_reports(root: Path, records: dict[str, dict]) -> dict[str, dict]:
    """The reports of the graded students among ``records`` (by key), by key; OutputError for one that is
    not a report."""
    reports = {}
    for key, record in records.items():
        if record.get("status") == "graded":
            report = _object(root / str(record.get("report")), "is not a report")
            if type(report.get("tests")) is not list or type(report.get("tasks")) is not list:
                raise OutputError(f"{root / str(record.get('report'))} is not a report: {DAMAGED}")
            reports[key] = report
    return reports


DAMAGED = "the folder was changed by hand or damaged; grade that student again (grader batch ... --resume)"


def _object(path: Path, what: str, advice: str = DAMAGED) -> dict:
    """The JSON object ``path`` holds; OutputError (``what`` it is otherwise, and ``advice``) if it holds none."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OutputError(f"{path} cannot be read ({exc}): {advice}") from None
    if type(found) is not dict:
        raise OutputError(f"{path} {what}: {advice}")
    return found


def _checked_record(path: Path) -> dict:
    """The student's record ``path`` holds, checked as the claim it is: a folder is read back by a resume, a merge
    of shards graded elsewhere and an export, and a record's key names the files written for its student (a
    review's shard wrote feedback anywhere through a key of "../.."), its report the file read, its score a
    grade. OutputError for a record this kit would not have written."""
    record = _object(path, "is not a student's record")
    key, score, most = record.get("key"), record.get("score"), record.get("max_score")
    graded = record.get("status") == "graded"
    if type(key) is not str or key != path.stem or not is_key(key):
        why = "its key is not its file's name"
    elif type(record.get("student")) is not str:
        why = "it names no student"
    elif record.get("report") != (f"reports/{key}.json" if graded else None):
        why = "its report is not its own"
    elif not (_number(most) and _number(score) and 0 <= score <= most):
        why = "its score is not a number from 0 to its maximum"
    else:
        return record
    raise OutputError(f"{path} is not a student's record ({why}): {DAMAGED}")


def _number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def file_path(root: Path, key: str) -> Path:
    """Where a batch folder keeps the text of a graded student's file."""
    return root / "files" / f"{key}.py"


def finished_summary(root: Path) -> dict:
    """A finished batch folder's summary.json, of this kit's schema; OutputError otherwise (a batch writes it
    last, and removes it when it is resumed: a folder without it holds some of its students' grades only)."""
    try:
        summary = json.loads((root / "summary.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutputError(
            f"{root} has no summary.json: its batch has not finished (continue it with grader batch ... --resume)"
        ) from None
    except (OSError, ValueError) as exc:
        raise OutputError(f"{root}/summary.json cannot be read: {exc}") from None
    if summary.get("schema") != gradebook.SCHEMA:  # another kit's summary: its fields may differ
        raise OutputError(
            f"{root}/summary.json is {summary.get('schema')}, not {gradebook.SCHEMA}: "
            "write the folder again with this kit (grader merge, or grader batch --resume)"
        )
    return summary


def _earlier_rounds(root: Path, lab: str, rounds: list[Path]) -> list[tuple[str, dict]]:
    """The earlier rounds' summaries, labelled by folder name (its path where two names are alike)."""
    names = [path.name for path in rounds]
    found = []
    for path in rounds:
        if path.resolve() == root.resolve():
            raise OutputError(f"{path} is the folder reported on, not an earlier round")
        read_folder(path)  # a batch folder, or OutputError saying why not
        summary = finished_summary(path)
        if summary.get("lab") != lab:
            raise OutputError(f"{path} is a round of lab {summary.get('lab')}, not {lab}")
        found.append((path.name if names.count(path.name) == 1 else str(path), summary))
    return found


def class_folder(root: Path, rounds: list[Path] = ()) -> class_report.ClassFolder:
    """What the class report reads from a batch folder whose class files are written, and from the folders of
    ``rounds``, the same lab's earlier batches, oldest first: OutputError if one is not such a folder."""
    about, records = read_folder(root)
    summary = finished_summary(root)
    try:
        reports = graded_reports(root, records)
        similar_path = root / "similarity.json"
        similar = json.loads(similar_path.read_text(encoding="utf-8")) if similar_path.is_file() else None
    except (OSError, ValueError) as exc:
        raise OutputError(f"{root} holds a file that cannot be read: {exc}") from None
    keys = {identical.version_label(r): key for key, r in records.items()}  # late work by its own name
    texts = {}
    for label in class_report.shown_pairs(similar):
        path = file_path(root, keys.get(label, ""))
        if label in keys and path.is_file():
            texts[label] = path.read_text(encoding="utf-8")
    final = final_grades.read(root)  # the last grader export's, if any
    earlier = _earlier_rounds(root, summary["lab"], list(rounds))
    return class_report.ClassFolder(about, summary, list(records.values()), reports, similar, texts, final, earlier)


def write_report(root: Path, rounds: list[Path] = ()) -> Path:
    """``root``/report.html from the folder's files alone (and the summaries of the earlier ``rounds``);
    OutputError if it is not a batch folder with a summary."""
    path = root / "report.html"
    atomic.write_text(path, class_report.render(class_folder(root, rounds)))
    return path


def _shard_words(about: dict) -> str:
    shard = about.get("shard") or {"index": 1, "count": 1}
    return f"{shard['index']}/{shard['count']}"


class Outputs:
    def __init__(self, root: Path, lab_id: str, max_score: float, tests_sha256: str, limits: dict | None = None):
        self.root = root
        self.lab_id = lab_id
        self.max_score = max_score
        self.kit = kit_identity(tests_sha256)
        self.limits = limits  # the limits in force (grader.limits.in_force): a grade depends on them

    # -- the folder ------------------------------------------------------------------------

    def open(
        self, *, resume: bool, about: dict, students: set[str] | None = None, forget_missing: bool = False
    ) -> None:
        """Claim the folder (new or empty, or with resume one this lab's batch of the same shard wrote),
        and write ``about``, its ``batch.json`` (grader.batch.shards.describe).

        ``students``: those the inputs hold (this shard's). A resume whose inputs lack students the folder
        graded is refused, changing nothing (an input left out would drop their grades), unless
        ``forget_missing``: the caller then drops them (forget_others)."""
        meta_path = self.root / "batch.json"
        if meta_path.exists():
            meta = _object(meta_path, "is not a batch's description", "choose another --out")
            if meta.get("lab") != self.lab_id:
                raise OutputError(f"{self.root} holds a batch of lab {meta.get('lab')}, not {self.lab_id}")
            if not resume:
                raise OutputError(
                    f"{self.root} already holds a batch: add --resume to continue it, or choose another --out"
                )
            if meta.get("shard") and _shard_words(meta) != _shard_words(about):  # an older kit's folder says none
                raise OutputError(
                    f"{self.root} holds shard {_shard_words(meta)}, not {_shard_words(about)}: "
                    f"resume it with --shard {_shard_words(meta)}, or choose another --out"
                )
            gone = sorted({r.get("student") for r in self.records()} - students) if students is not None else []
            if gone and not forget_missing:
                named = a_few(gone)
                raise OutputError(
                    f"{self.root} holds the records of {len(gone)} student{'s' if len(gone) != 1 else ''} these "
                    f"inputs do not: {named}. Give every input of the first run (a folder or zip left out?), or add "
                    "--forget-missing to drop them from the gradebook"
                )
        elif self.root.exists() and any(self.root.iterdir()):
            raise OutputError(f"{self.root} is not empty and holds no batch: choose another --out")
        atomic.write_json(meta_path, about)
        # Not finished until this run writes the class files again: a resume stopped half way must not leave
        # the last run's summary to say so (grader export and grader report read a folder only once it is).
        (self.root / "summary.json").unlink(missing_ok=True)

    def record_path(self, key: str) -> Path:
        return self.root / "records" / f"{key}.json"

    def report_path(self, key: str) -> Path:
        return self.root / "reports" / f"{key}.json"

    def file_path(self, key: str) -> Path:
        return file_path(self.root, key)

    # -- one student -----------------------------------------------------------------------

    def load_record(self, entry: Entry) -> dict | None:
        try:
            record = json.loads(self.record_path(entry.key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if type(record) is not dict:  # damaged: graded again
            return None
        if record.get("status") == "graded" and not self.report_path(entry.key).is_file():
            return None
        return record

    def is_current(self, entry: Entry) -> bool:
        """Graded before from the same file, by the same kit and tests, under the same limits: nothing to do again."""
        record = self.load_record(entry)
        return (
            record is not None
            and record.get("status") == "graded"
            and record.get("sha256") == entry.sha256
            and record.get("kit") == self.kit
            and record.get("limits") == self.limits
            and record.get("collected") == entry.collected  # the same commit: the gradebook shows its SHA
        )

    def _record(
        self,
        entry: Entry,
        status: str,
        reason: str,
        score: float = 0,
        flags: list | None = None,
        code: dict | None = None,
    ) -> dict:
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
            "limits": self.limits,
            "report": f"reports/{entry.key}.json" if status == "graded" else None,
            "code": code,  # the file read without running it (sources.describe), for the gradebook's reasons
        }
        if entry.collected is not None:  # from grader collect: the commit graded, its time, how late
            record["collected"] = entry.collected
        atomic.write_json(self.record_path(entry.key), record)
        return record

    def save_graded(self, entry: Entry, report: dict) -> dict:
        atomic.write_json(self.report_path(entry.key), report)
        self._keep_text(entry)
        code = sources.describe_file(entry.path, labs.get(self.lab_id), labs.discover().values())
        return self._record(entry, "graded", "", report["score"], report["flags"], code)

    def _keep_text(self, entry: Entry) -> None:
        """The text graded, kept for the similarity of submissions: the staged file is gone after the batch."""
        try:
            atomic.write_text(self.file_path(entry.key), intake.read(entry.path).text)
        except SubmissionError:  # graded, so intake took it; if not, there is no text to compare
            self.file_path(entry.key).unlink(missing_ok=True)

    def save_status(self, entry: Entry, status: str, reason: str) -> dict:
        self.report_path(entry.key).unlink(missing_ok=True)  # an old report of a file no longer there
        self.file_path(entry.key).unlink(missing_ok=True)
        return self._record(entry, status, reason)

    def forget_others(self, keep: set[str]) -> None:
        """Drop the records of students no longer in the inputs, so the gradebook lists the class as given."""
        for path in (self.root / "records").glob("*.json"):
            if path.stem not in keep:
                path.unlink()
                self.report_path(path.stem).unlink(missing_ok=True)
                self.file_path(path.stem).unlink(missing_ok=True)

    # -- the class -------------------------------------------------------------------------

    def records(self) -> list[dict]:
        return [_checked_record(path) for path in sorted((self.root / "records").glob("*.json"))]

    def feedback_path(self, key: str) -> Path:
        return self.root / "feedback" / f"{key}.md"

    def write_feedback(self, records: list[dict], reports: dict[str, dict], lab_title: str, hidden: str) -> None:
        """A feedback file per record (.md, and the same as a page, .html), and none for a student no longer in
        the class (a resume's inputs changed)."""
        for record in records:
            text = feedback.for_record(record, reports.get(record["key"]), lab_title, hidden_feedback=hidden)
            atomic.write_text(self.feedback_path(record["key"]), text)
            atomic.write_text(self.feedback_path(record["key"]).with_suffix(".html"), feedback.as_html(text, record))
        keys = {record["key"] for record in records}
        for path in [*(self.root / "feedback").glob("*.md"), *(self.root / "feedback").glob("*.html")]:
            if path.stem not in keys:
                path.unlink()

    def similarity(self, records: list[dict], threshold: float, jobs: int = 1) -> dict:
        """similarity.json's content: every graded file's kept text, late work included (named as
        identical.version_label names it), the lab's starter as boilerplate (``jobs``: processes comparing
        side by side). ``records``: one per file, late work a record of its own."""
        compared, not_compared = [], []
        for record in records:
            if record["status"] != "graded":
                continue
            label = identical.version_label(record)
            try:
                text = self.file_path(record["key"]).read_text(encoding="utf-8")
            except OSError:
                not_compared.append(label)
                continue
            compared.append(similarity.Submission(label, text))
        starter_path = labs.get(self.lab_id).starter
        starter = starter_path.read_text(encoding="utf-8") if starter_path.is_file() else None
        same = identical.groups(records)
        one_students = {}  # a student's file and their late work: not a pair to report
        for submission in compared:
            one_students.setdefault(identical.student_of(submission.student), []).append(submission.student)
        left_out = same["same_file"] + same["same_code"] + [v for v in one_students.values() if len(v) > 1]
        return similarity.report(compared, starter, threshold, left_out, not_compared, jobs=jobs)

    def write_class_files(
        self,
        lab_title: str,
        coverage: dict | None = None,
        *,
        hidden_feedback: str = feedback.DEFAULT_HIDDEN_FEEDBACK,
        similarity_threshold: float | None = None,
        jobs: int = 1,
    ) -> dict:
        """grades.csv, the summary and the feedback files from the records; ``coverage``: the shards held, if not
        the whole class; ``hidden_feedback``: what the feedback says of the hidden tests (feedback.HIDDEN_FEEDBACK);
        with ``similarity_threshold``, similarity.json and its section of the summary (None: neither), compared
        in ``jobs`` processes."""
        records = self.records()
        reports = graded_reports(self.root, {r["key"]: r for r in records})
        self.write_feedback(records, reports, lab_title, hidden_feedback)
        each_file = gradebook.explained(records, reports)
        records = gradebook.with_late_work(each_file)
        similar = self.similarity(each_file, similarity_threshold, jobs) if similarity_threshold is not None else None
        summary = gradebook.summary(self.lab_id, lab_title, self.max_score, records, reports, coverage, similar)
        if similar is not None:
            atomic.write_json(self.root / "similarity.json", similar)
        else:  # turned off: no file from an earlier run that would seem to speak for this one
            (self.root / "similarity.json").unlink(missing_ok=True)
        atomic.write_text(self.root / "grades.csv", gradebook.grades_csv(records))
        atomic.write_json(self.root / "summary.json", summary)
        atomic.write_text(self.root / "summary.md", gradebook.summary_markdown(summary))
        write_report(self.root)  # from the files just written, as `grader report` reads them
        return summary

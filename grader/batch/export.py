"""``grader export``: read a batch folder, the class roster, the late policy and the overrides, check them all,
then write the LMS file, ``OUT/final_grades.json`` and a line of ``OUT/audit.jsonl``.

Everything is read and checked before anything is written (``prepare``), so bad input leaves the folder as
it was. The grades themselves are grader.batch.final_grades's, the file's shape grader.batch.lms's.
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shlex
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from grader import atomic, labs, limits
from grader.batch import final_grades, freshness, gradebook, late, lms, outputs, overrides, roster, shards
from grader.report.text import a_few

AUDIT = "audit.jsonl"
FINAL_GRADES = final_grades.FILE


class ExportError(Exception):
    """Input grader export cannot use: one line saying why (exit status 2, nothing written)."""


@dataclass(frozen=True)
class Request:
    out: Path
    format: str
    roster: Path
    assignment: str | None = None  # default: the lab id
    assignment_id: str | None = None
    output: Path | None = None  # default: OUT/gradebook-<format>.csv
    policy: late.LatePolicy | None = None
    due: str | None = None
    submission_times: Path | None = None
    missing_as_zero: bool = False
    course: Path | None = None  # read by the caller (its late policy), named here so --output never replaces it
    allow_changed_inputs: bool = False  # export the grades as graded though the inputs have changed since


@dataclass
class Prepared:
    request: Request
    output: Path
    text: str
    doc: dict
    audit: dict
    warnings: list[str] = field(default_factory=list)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _user() -> str:
    """The OS user running the export: the account of the process's uid, not $USER, which anyone can set."""
    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:  # no passwd entry (a container): the uid says who
        return f"uid {os.geteuid()}"


def _batch(root: Path) -> tuple[dict, dict[str, dict], dict[str, dict], str]:
    """The batch folder's batch.json, its records (late work folded) by student, its reports by record key, and
    the fingerprint of its grades (final_grades.grades_fingerprint)."""
    try:
        about, by_key = outputs.read_folder(root)
        # Only a whole class's finished gradebook: an unfinished batch, one shard or a partial merge would
        # export the students it has not graded as missing, or as 0 (shard-missing).
        held = outputs.finished_summary(root).get("shards")
        lacking = shards.coverage_words(held) if held else None
        reports = outputs.graded_reports(root, by_key)
    except outputs.OutputError as exc:
        raise ExportError(str(exc)) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ExportError(f"{root} holds a record or report that cannot be read: {exc}") from None
    if lacking is not None:
        raise ExportError(
            f"{root} holds part of the class only ({lacking}): merge every finished shard "
            "(grader merge, without --partial) and export the merge"
        )
    if not by_key:
        raise ExportError(f"{root} holds no student's record: grade the class with grader batch first")
    records = {r["student"]: r for r in gradebook.with_late_work(list(by_key.values()))}
    return about, records, reports, final_grades.grades_fingerprint(list(by_key.values()))


def _inputs_now(request: Request, about: dict) -> tuple[freshness.Freshness, list[str]]:
    """Whether the batch's inputs still hold the files it graded, and the warnings to print; ExportError when they
    do not, unless the request allows it: the grades would be of files the students have since replaced. Late work
    is compared only under a late policy, the only export it counts in."""
    found = freshness.check(about, late_work_counts=request.policy is not None)
    if found.state == freshness.SAME:
        return found, []
    if found.state == freshness.UNCHECKED:
        return found, [f"could not check that the inputs still hold the files graded: {found.words}"]
    besides = f"; {found.unchecked}, not checked" if found.unchecked else ""
    if request.allow_changed_inputs:
        return found, [f"the inputs changed since the batch ({found.words}{besides}): exported as graded"]
    raise ExportError(
        f"the inputs changed since {request.out} was graded ({found.words}{besides}): grade again with "
        f"`{_resume_command(request.out, about, found)}` (it regrades only what changed; give the "
        "--hidden-feedback and --similarity-threshold it was graded with, if not the defaults), or export the "
        "grades as graded with --allow-changed-inputs"
    )


def _resume_command(out: Path, about: dict, found: freshness.Freshness) -> str:
    """The ``grader batch --resume`` that brings ``out`` up to date: its inputs, the limits it was graded under
    where they are not the lab's own (other limits would regrade everyone), and --forget-missing if students are
    gone (their rows then leave the gradebook)."""
    lab_id = str(about.get("lab"))
    words = ["grader", "batch", *found.inputs, "--lab", lab_id, "--out", str(out), "--resume"]
    graded_under = about.get("limits")
    if isinstance(graded_under, dict) and lab_id in labs.discover():
        default = limits.in_force(labs.get(lab_id).limits)
        for name, value in sorted(graded_under.items()):
            if name in default and value != default[name] and isinstance(value, (int, float)):
                words += ["--limit", f"{name}={value:g}"]
    if found.gone:
        words.append("--forget-missing")
    return shlex.join(words)


def _lms_lateness(request: Request, members: list[roster.Member]) -> dict[str, int]:
    """How late each student handed in by the LMS's times (the roster's submitted_at, or --submission-times);
    none without a late policy (the roster's column is then left unused; a file of times asks for one)."""
    if request.due is not None:
        late.due_time(request.due)  # a due time that cannot be read is refused even where no time needs it
    times = {m.student: (m.submitted_at, f"{request.roster.name}, line {m.line}") for m in members if m.submitted_at}
    if request.submission_times is not None:
        try:
            header, rows = roster.read_table(request.submission_times, "student,submitted_at")
        except roster.RosterError as exc:
            raise ExportError(str(exc)) from None
        student_col = roster.column(header, roster.STUDENT_HEADERS)
        time_col = roster.column(header, roster.SUBMITTED_HEADERS)
        if student_col is None or time_col is None:
            raise ExportError(f"{request.submission_times.name}, line 1: want the columns student,submitted_at")
        seen: dict[str, tuple[int, str]] = {}
        for line, row in rows:
            student, moment = roster.student_id(roster.cell(row, student_col)), roster.cell(row, time_col)
            try:  # which of two times is the student's? The LMS's file says one.
                roster.first_time(request.submission_times.name, line, student, seen)
            except roster.RosterError as exc:
                raise ExportError(str(exc)) from None
            if moment:
                times[student] = (moment, f"{request.submission_times.name}, line {line}")
    if not times:
        return {}
    if request.policy is None and request.submission_times is None:
        return {}  # a roster's submitted_at column, where no late policy applies: nothing to take off
    if request.policy is None:
        raise ExportError("submission times are given but no late policy: add --late-per-day (or [late] per_day)")
    if request.due is None:
        raise ExportError("submission times are given but no due time: add --due (or [late] due in the course file)")
    due = late.due_time(request.due)
    lateness = {}
    for student, (moment, where) in times.items():
        try:
            lateness[student] = late.seconds_late(moment, due)
        except late.PolicyError as exc:
            raise ExportError(f"{where}: {exc}") from None
    return lateness


def _has_lms_times(request: Request, members: list[roster.Member]) -> bool:
    return request.submission_times is not None or any(m.submitted_at for m in members)


def _check_roster_for(format: str, members: list[roster.Member], name: str) -> None:
    if format == "moodle":
        absent = next((m for m in members if not m.lms_id), None)
        if absent is not None:
            raise ExportError(
                f"{name}, line {absent.line}: student {absent.student!r} has no LMS id, which Moodle needs"
            )
    if format == "canvas":
        absent = next((m for m in members if not (m.lms_id or m.sis_user_id or m.sis_login_id)), None)
        if absent is not None:
            raise ExportError(
                f"{name}, line {absent.line}: student {absent.student!r} has no LMS id nor SIS id, "
                "which Canvas needs to find them"
            )


def prepare(request: Request, *, now: datetime | None = None) -> Prepared:
    """Everything the export writes, computed; ExportError on the first input that cannot be used."""
    about, records, reports, graded = _batch(request.out)
    lab = str(about.get("lab", ""))
    inputs_now, warnings = _inputs_now(request, about)
    try:
        members = roster.read_class(request.roster)
    except roster.RosterError as exc:
        raise ExportError(str(exc)) from None
    _check_roster_for(request.format, members, request.roster.name)
    if not any(m.student in records for m in members):  # e.g. a column of names taken for the ids
        raise ExportError(
            f"{request.roster.name}: no student of the roster has a record in {request.out}: its student id column "
            f"must hold the ids the batch knows (such as {', '.join(repr(s) for s in sorted(records)[:3])})"
        )
    lms_late = _lms_lateness(request, members)
    strangers = sorted(set(lms_late) - {m.student for m in members})  # the roster's own times are its members'
    max_score = next(iter(records.values()))["max_score"]
    overrides_path = request.out / overrides.FILE
    try:
        found = overrides.read(overrides_path)
        tests = {
            student: {t["id"]: t["max_points"] for t in reports[record["key"]]["tests"]}
            for student, record in records.items()
            if record["key"] in reports
        }
        overrides.check(found, {m.student for m in members}, tests, max_score)
    except overrides.OverrideError as exc:
        raise ExportError(str(exc)) from None
    entries = []
    for member in members:
        record = records.get(member.student)
        report = reports.get(record["key"]) if record else None
        mine = [o for o in found if o.student == member.student]
        entries.append(
            final_grades.entry(
                member,
                record,
                report,
                mine,
                request.policy,
                lms_late.get(member.student),
                max_score,
                request.missing_as_zero,
            )  # fmt: skip
        )
    listed = {m.student for m in members}
    extra = [final_grades.not_on_roster(r) for student, r in sorted(records.items()) if student not in listed]
    moment = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds")
    doc = final_grades.document(lab, max_score, entries, extra, request.policy, moment, graded)
    output = request.output or request.out / f"gradebook-{request.format}.csv"
    _refuse_to_overwrite_an_input(request, output)
    assignment = request.assignment or lab
    text = lms.render(request.format, entries, extra, assignment, request.assignment_id, max_score)
    audit = final_grades.audit_line(
        time=moment,
        user=_user(),
        format=request.format,
        output=str(output),
        roster_sha256=_sha256(request.roster),
        overrides_sha256=_sha256(overrides_path) if overrides_path.exists() else None,
        doc=doc,
        inputs=inputs_now.state,
        inputs_changed=inputs_now.students,
    )
    warnings += [f"graded but not on the roster (not exported): {e['student']}" for e in extra]
    if strangers:
        warnings.append(f"submission times for students not on the roster (not used): {a_few(strangers)}")
    if request.due is not None and not _has_lms_times(request, members):
        warnings.append(
            "the due time is not used: no LMS submission times (a roster submitted_at column or "
            "--submission-times); lateness then comes from grader collect's commits, if any"
        )
    return Prepared(request, output, text, doc, audit, warnings)


def _refuse_to_overwrite_an_input(request: Request, output: Path) -> None:
    """The gradebook goes where --output says, unless that is a file the export reads (the roster, the
    LMS's times, the course file) or the batch folder's own (its records, reports, summary): a review
    overwrote its roster so."""
    target = output.resolve()
    reads = (
        (request.roster, "the roster"),
        (request.submission_times, "the file of submission times"),
        (request.course, "the course file"),
    )
    for given, what in reads:
        if given is not None and given.resolve() == target:
            raise ExportError(f"--output {output} is {what} the export reads: give another file")
    folder = request.out.resolve()
    earlier_export = target.name.startswith("gradebook-") and target.suffix == ".csv"
    if target.is_relative_to(folder) and target.exists() and not earlier_export:
        raise ExportError(f"--output {output} is one of the batch folder's own files: give another file")


def write(prepared: Prepared) -> None:
    """The LMS file, final_grades.json, and the audit line appended (each export adds one)."""
    out = prepared.request.out
    atomic.write_text(prepared.output, prepared.text)
    atomic.write_json(out / FINAL_GRADES, prepared.doc)
    with (out / AUDIT).open("a", encoding="utf-8") as audit:
        audit.write(json.dumps(prepared.audit, sort_keys=True) + "\n")

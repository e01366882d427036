"""What a batch produces from its students' records: the gradebook CSV and the class summary.

A record (``records/<student>.json``) is what the batch knows of one student: the status,
the score, the submission's hash, the flags, the static read of the file (``code``); the
canonical report of a graded student sits beside it in ``reports/``. Everything here is
computed from those files alone, so a resumed run and a merge of shards write exactly what
one uninterrupted run would. The summary's parts come from their own modules: the reason
for each score (reasons), the tests' item analysis (items), identical submissions (identical),
and, computed by the caller from the kept texts, similar ones (similarity).
"""

from __future__ import annotations

import csv
import io
import statistics
from collections import Counter

from grader.batch import identical, items, reasons
from grader.report.text import code_span, markdown, spreadsheet_cell

HISTOGRAM_BINS = 10  # percent bands of 10 points; 100% has its own band
SCHEMA = "labkit.batch-summary/2"
DISCRIMINATION = (
    "The discrimination index is the point-biserial correlation between passing the test (1 or 0) and the "
    "rest of the score (the score minus the test's points): near 1, the students who pass it are the strong "
    "ones; near 0, passing it goes with nothing else; below 0, the strong students fail it (check the test)."
)
FILES_LEFT_OUT = (
    "A file that does not load (it does not parse or import, or lacks a name a test uses) fails every test it "
    "reaches alike: each test's pass rate and index are over the files that reach it."
)
PATTERNS = "Messages that differ only in their numbers and quoted values count as one."

CSV_COLUMNS = ["student", "score", "max_score", "percent", "status", "flags", "sha256", "reason"]
# A batch of forks grader collect gathered: the commit graded, and the student's late work.
COLLECTED_COLUMNS = ["commit", "committed_at", "late_commit", "late_by", "late_score"]


def percent(score: float, max_score: float) -> float:
    return round(100 * score / max_score, 2) if max_score else 0.0


def explained(records: list[dict], reports: dict[str, dict]) -> list[dict]:
    """The records, each graded one with the reason for its score (grader.batch.reasons) from its
    report (``reports`` by record key) and its static read; the others keep the reason they have."""
    return [
        {**r, "reason": reasons.reason(reports[r["key"]], r.get("code"))} if r["status"] == "graded" else r
        for r in records
    ]


def with_late_work(records: list[dict]) -> list[dict]:
    """One record per student: their late work's record, if any, folded into theirs as ``late_work``."""
    late = {r["student"]: r for r in records if identical.is_late(r)}
    return [
        {**r, "late_work": _late_work(late[r["student"]])} if r["student"] in late else r
        for r in records
        if not identical.is_late(r)
    ]


def _late_work(record: dict) -> dict:
    collected = record["collected"]
    return {
        "commit": collected.get("commit"),
        "committed_at": collected.get("committed_at"),
        "late_by": collected.get("late_by"),
        "late_by_seconds": collected.get("late_by_seconds"),
        "status": record["status"],
        "score": record["score"] if record["status"] == "graded" else None,
        "reason": record.get("reason", ""),
        "sha256": record.get("sha256"),  # compared with everyone's (grader.batch.identical)
        "code": record.get("code"),
    }


def collected_row(record: dict) -> dict:
    """A student's commit and late work as the gradebook shows them (empty cells where there is none)."""
    collected, late = record.get("collected") or {}, record.get("late_work") or {}
    late_score = late.get("status", "") if late.get("score") is None else f"{late['score']:g}"
    return {
        "commit": collected.get("commit") or "",
        "committed_at": collected.get("committed_at") or "",
        "late_commit": late.get("commit") or "",
        "late_by": late.get("late_by") or "",
        "late_score": late_score,
    }


def grades_csv(records: list[dict]) -> str:
    """The gradebook, one row per student; from a collection, with each one's commit and late work
    (``records`` as ``with_late_work`` returns them)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    from_forks = any("collected" in r for r in records)
    writer.writerow(CSV_COLUMNS + COLLECTED_COLUMNS * from_forks)
    for r in sorted(records, key=lambda r: r["student"]):
        flags = ";".join(sorted({f["code"] for f in r.get("flags", [])}))
        row = [
            _cell(r["student"]),
            f"{r['score']:g}",
            f"{r['max_score']:g}",
            f"{percent(r['score'], r['max_score']):g}",
            _cell(r["status"]),  # every text cell: a record may come from a shard graded elsewhere
            _cell(flags),
            _cell(r.get("sha256", "")),
            _cell(r.get("reason", "")),
        ]
        writer.writerow(row + list(collected_row(r).values()) * from_forks)
    return out.getvalue()


def _cell(text: str) -> str:
    """A spreadsheet must not run a cell as a formula (CSV injection through a folder name)."""
    return spreadsheet_cell(text)


def _distribution(scores: list[float], max_score: float) -> dict:
    if not scores:
        return {"count": 0}
    percents = [percent(s, max_score) for s in scores]
    quartiles = statistics.quantiles(percents, n=4, method="inclusive") if len(percents) > 1 else percents * 3
    bins = [0] * (HISTOGRAM_BINS + 1)
    for p in percents:
        bins[min(int(p // (100 / HISTOGRAM_BINS)), HISTOGRAM_BINS)] += 1
    return {
        "count": len(scores),
        "mean_percent": round(statistics.fmean(percents), 2),
        "median_percent": round(statistics.median(percents), 2),
        "quartiles_percent": [round(q, 2) for q in quartiles],
        "min_percent": min(percents),
        "max_percent": max(percents),
        "histogram": [
            {"band": f"{i * 10}-{i * 10 + 9}%" if i < HISTOGRAM_BINS else "100%", "count": n}
            for i, n in enumerate(bins)
        ],
    }


def _per_task(reports: list[dict]) -> list[dict]:
    rows: dict[str, dict] = {}
    for report in reports:
        for task in report["tasks"]:
            row = rows.setdefault(task["id"], {"id": task["id"], "title": task["title"], "full": 0, "fraction": []})
            row["fraction"].append(task["score"] / task["max_score"] if task["max_score"] else 1.0)
            row["full"] += task["score"] == task["max_score"]
    return [
        {
            "id": row["id"],
            "title": row["title"],
            "mean_fraction": round(statistics.fmean(row["fraction"]), 4),
            "full_marks_rate": round(row["full"] / len(row["fraction"]), 4),
        }
        for row in rows.values()
    ]


def summary(
    lab_id: str,
    lab_title: str,
    max_score: float,
    records: list[dict],
    reports: dict[str, dict],
    shards: dict | None = None,
    similar: dict | None = None,
) -> dict:
    """The class at a glance: statuses, the score distribution, what the class missed and why each
    student lost points. ``records`` as ``explained`` returns them, ``reports`` by record key. The
    statistics leave out untouched starters and students not graded, whose zeros say nothing
    about the tests.

    ``shards`` (grader.batch.shards.coverage) says which shards it holds when it is not the whole class.
    ``similar`` (grader.batch.similarity.report), when the batch compared its students, goes in as it is.
    From a collection (grader collect), ``collected`` lists every student's commit and late work.
    """
    by_student = sorted(records, key=lambda r: r["student"])
    graded = [r for r in by_student if r["status"] == "graded"]
    counted = [r for r in graded if not identical.untouched_starter(r)]
    counted_reports = [reports[r["key"]] for r in counted]
    same = identical.groups(records)
    tests = items.tests(counted_reports)
    return {
        "schema": SCHEMA,
        "lab": lab_id,
        "lab_title": lab_title,
        "max_score": max_score,
        "students": len(records),
        **({"shards": shards} if shards else {}),
        "statuses": dict(sorted(Counter(r["status"] for r in records).items())),
        "statistics": {
            "students": len(counted),
            "left_out": {
                "untouched_starters": same["untouched_starters"],
                "not_graded": [r["student"] for r in by_student if r["status"] != "graded"],
            },
        },
        "distribution": _distribution([r["score"] for r in counted], max_score),
        "tasks": _per_task(counted_reports),
        "tests": sorted(tests, key=lambda t: (t["pass_rate"], t["id"])),
        "separating": [t["id"] for t in items.separating(tests)],
        "failure_patterns": items.failure_patterns(counted_reports),
        "definitions": {
            "discrimination": DISCRIMINATION,
            "files_left_out": FILES_LEFT_OUT,
            "failure_patterns": PATTERNS,
        },
        "below_full": [
            {
                "student": r["student"],
                "score": r["score"],
                "percent": percent(r["score"], r["max_score"]),
                "reason": r["reason"],
            }
            for r in sorted(graded, key=lambda r: (r["score"], r["student"]))
            if r["score"] < r["max_score"]
        ],
        "identical": same,
        **({"similar": similar} if similar is not None else {}),
        "not_graded": [
            {"student": r["student"], "status": r["status"], "reason": r.get("reason", "")}
            for r in by_student
            if r["status"] != "graded"
        ],
        "flagged": [{"student": r["student"], "flags": r["flags"]} for r in by_student if r.get("flags")],
        **(
            {"collected": [{"student": r["student"], **collected_row(r)} for r in by_student]}
            if any("collected" in r for r in by_student)
            else {}
        ),
    }


def _not_the_whole_class(shards: dict) -> str:
    def told(indices: list[int], state: str) -> str:
        names = ", ".join(f"{i}/{shards['count']}" for i in indices)
        return f"shard {names} is {state}" if len(indices) == 1 else f"shards {names} are {state}"

    parts = [told(shards["present"], "here")]
    parts += [told(shards[state], state) for state in ("missing", "unfinished") if shards[state]]
    return f"**Not the whole class**: {'; '.join(parts)}."


def _names(students: list[str]) -> str:
    return ", ".join(markdown(s, cell=True) for s in students)


def _left_out(doc: dict) -> str:
    stats = doc["statistics"]
    starters, not_graded = stats["left_out"]["untouched_starters"], stats["left_out"]["not_graded"]
    parts = []
    if starters:
        parts.append(f"{len(starters)} untouched starter{'s' if len(starters) != 1 else ''} ({_names(starters)})")
    if not_graded:
        parts.append(f"{len(not_graded)} not graded ({_names(not_graded)})")
    if not parts:
        return f"The statistics below are over all {stats['students']} students."
    return (
        f"The statistics below are over {stats['students']} of the {doc['students']} students; left out: "
        f"{' and '.join(parts)}: an untouched starter or a file not graded says nothing about the tests."
    )


def _scores(dist: dict) -> list[str]:
    q1, q2, q3 = dist["quartiles_percent"]
    lines = [
        "## Scores (percent of the maximum)",
        "",
        f"mean {dist['mean_percent']:g}, median {dist['median_percent']:g}, quartiles {q1:g} / {q2:g} / {q3:g}, "
        f"min {dist['min_percent']:g}, max {dist['max_percent']:g}",
        "",
        "| band | students | |",
        "| --- | ---: | --- |",
    ]
    top = max(b["count"] for b in dist["histogram"]) or 1
    for band in dist["histogram"]:
        lines.append(f"| {band['band']} | {band['count']} | {'#' * round(20 * band['count'] / top)} |")
    return [*lines, ""]


def _separating(doc: dict, top: int) -> list[str]:
    tests = {t["id"]: t for t in doc["tests"]}
    everyone = sum(t["pass_rate"] == 1 for t in doc["tests"])
    no_one = sorted(t["id"] for t in doc["tests"] if t["pass_rate"] == 0)
    listed = f": {', '.join(code_span(t) for t in no_one[:top])}{' ...' if len(no_one) > top else ''}" if no_one else ""
    lines = [
        "## Tests that separate students",
        "",
        f"{len(doc['separating'])} of {len(tests)} tests separate students (some pass them, some do not); "
        f"{everyone} every student passed, {len(no_one)} no student passed{listed}.",
        "",
    ]
    if any(t["file_failures"] for t in doc["tests"]):
        lines += [f"{FILES_LEFT_OUT} The failures of these files are counted apart.", ""]
    if doc["separating"]:
        lines += [
            f"The most failed first. {DISCRIMINATION}",
            "",
            "| test | pass rate | discrimination | most common failure |",
            "| --- | ---: | ---: | --- |",
        ]
        for test in (tests[t] for t in doc["separating"][:top]):
            index = "-" if test["discrimination"] is None else f"{test['discrimination']:.2f}"
            common = test["common_failures"][0]  # a separating test has a failure of its own
            failure = f"{markdown(common['message'], cell=True)} ({common['count']})"
            if test["file_failures"]:
                failure += f"; files that do not load: {test['file_failures']}"
            lines.append(f"| {code_span(test['id'])} | {test['pass_rate']:.0%} | {index} | {failure} |")
        lines.append("")
    return lines


def _patterns(doc: dict) -> list[str]:
    lines = ["## The most common failures", "", f"By the number of students who met them. {PATTERNS}", ""]
    lines += ["| failure | students | tests |", "| --- | ---: | ---: |"]
    for found in doc["failure_patterns"]:
        lines.append(f"| {markdown(found['example'], cell=True)} | {found['students']} | {len(found['tests'])} |")
    return [*lines, ""]


def _ranges(ranges: list[list[int]], shown: int = 4) -> str:
    words = [f"{first}-{last}" if last > first else str(first) for first, last in ranges[:shown]]
    return ", ".join(words) + (f" (+{len(ranges) - shown} more)" if len(ranges) > shown else "")


def _similar(similar: dict, top: int) -> list[str]:
    pairs = similar["pairs"]
    lines = [
        "## Similar submissions",
        "",
        f"{len(pairs)} pair{'s' * (len(pairs) != 1)} of the {similar['compared']} files compared share at least "
        f"{similar['threshold'] * 100:g}% of one file's code (copydetect's winnowing, names and comments ignored, the "
        "lab's starter left out); identical submissions are listed above, not here. Details in similarity.json.",
        "",
    ]
    if similar["not_compared"]:
        lines += [f"Not compared (their text is missing from files/): {_names(similar['not_compared'])}.", ""]
    if pairs:
        lines += ["| students | shared | tokens | lines |", "| --- | ---: | ---: | --- |"]
        for pair in pairs[: top * 5]:
            (a, b), (score_a, score_b) = pair["students"], pair["scores"]
            names = f"{markdown(a, cell=True)}, {markdown(b, cell=True)}"
            where = f"{_ranges(pair['lines'][0])} / {_ranges(pair['lines'][1])}"
            lines.append(f"| {names} | {score_a:.0%} / {score_b:.0%} | {pair['token_overlap']} | {where} |")
        if len(pairs) > top * 5:
            lines.append(f"| ... {len(pairs) - top * 5} more in similarity.json | | | |")
        lines.append("")
    return lines


def summary_markdown(doc: dict, *, top: int = 10) -> str:
    """summary.json for a person: what an instructor reads first."""
    lines = [f"# {doc['lab']}: {doc['lab_title']}", ""]
    statuses = ", ".join(f"{n} {s}" for s, n in doc["statuses"].items())
    lines += [f"{doc['students']} students: {statuses}.", ""]
    if doc.get("shards"):
        lines += [_not_the_whole_class(doc["shards"]), ""]
    lines += [_left_out(doc), ""]
    if doc["distribution"]["count"]:
        lines += _scores(doc["distribution"])
    if doc["tasks"]:
        lines += ["## Tasks", "", "| task | mean score | full marks |", "| --- | ---: | ---: |"]
        for task in doc["tasks"]:
            title = markdown(task["title"], cell=True)
            lines.append(f"| {title} | {task['mean_fraction']:.0%} | {task['full_marks_rate']:.0%} |")
        lines.append("")
    if doc["tests"]:
        lines += _separating(doc, top)
    if doc["failure_patterns"]:
        lines += _patterns(doc)
    if doc["below_full"]:
        lines += ["## Why points were lost", "", "| student | score | reason |", "| --- | ---: | --- |"]
        for r in doc["below_full"]:
            reason = markdown(r["reason"], cell=True)
            lines.append(f"| {markdown(r['student'], cell=True)} | {r['score']:g}/{doc['max_score']:g} | {reason} |")
        lines.append("")
    same = doc["identical"]
    if same["same_file"] or same["same_code"]:
        lines += ["## Identical submissions", ""]
        lines += [f"- the same file: {_names(group)}" for group in same["same_file"]]
        lines += [f"- the same code, up to comments and whitespace: {_names(group)}" for group in same["same_code"]]
        lines.append("")
    if "similar" in doc:
        lines += _similar(doc["similar"], top)
    if same["untouched_starters"]:
        lines += [
            "## Untouched starters",
            "",
            f"The lab's starter, unchanged: {_names(same['untouched_starters'])}.",
            "",
        ]
    if doc["not_graded"]:
        lines += ["## Not graded", "", "| student | status | reason |", "| --- | --- | --- |"]
        lines += [
            f"| {markdown(r['student'], cell=True)} | {r['status']} | {markdown(r['reason'], cell=True)} |"
            for r in doc["not_graded"]
        ]
        lines.append("")
    late = [r for r in doc.get("collected", []) if r["late_commit"]]
    if late:
        lines += [
            "## Late work",
            "",
            "Each student's work at the latest commit of their branch, dated after the deadline, graded apart: "
            "their score is that of the last commit before the deadline.",
            "",
            "| student | on time | late commit | late by | late score |",
            "| --- | --- | --- | ---: | ---: |",
        ]
        for r in late:
            on_time = code_span(r["commit"][:12]) if r["commit"] else "nothing"
            lines.append(
                f"| {markdown(r['student'], cell=True)} | {on_time} | {code_span(r['late_commit'][:12])} "
                f"| {r['late_by']} | {r['late_score']} |"
            )
        lines.append("")
    if doc["flagged"]:
        lines += ["## Flagged for review (static scan)", "", "| student | findings |", "| --- | --- |"]
        for r in doc["flagged"]:
            found = "; ".join(f"line {f['line']}: {f['message']}" for f in r["flags"][:5])
            more = f" (+{len(r['flags']) - 5} more)" if len(r["flags"]) > 5 else ""
            lines.append(f"| {markdown(r['student'], cell=True)} | {markdown(found, cell=True)}{more} |")
        lines.append("")
    return "\n".join(lines)

"""What a batch produces from its students' records: the gradebook CSV and the class summary.

A record (``records/<student>.json``) is what the batch knows of one student: the status,
the score, the submission's hash, the flags; the canonical report of a graded student
sits beside it in ``reports/``. Everything here is computed from those files alone, so
a resumed run and a merge of shards write exactly what one uninterrupted run would.
"""

from __future__ import annotations

import csv
import io
import re
import statistics
from collections import Counter

from grader.report.text import code_span, markdown

HISTOGRAM_BINS = 10  # percent bands of 10 points; 100% has its own band
TOP_MESSAGES = 3
MESSAGE_CHARS = 160

CSV_COLUMNS = ["student", "score", "max_score", "percent", "status", "flags", "sha256", "reason"]


def percent(score: float, max_score: float) -> float:
    return round(100 * score / max_score, 2) if max_score else 0.0


def grades_csv(records: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in sorted(records, key=lambda r: r["student"]):
        flags = ";".join(sorted({f["code"] for f in r.get("flags", [])}))
        writer.writerow(
            [
                _cell(r["student"]),
                f"{r['score']:g}",
                f"{r['max_score']:g}",
                f"{percent(r['score'], r['max_score']):g}",
                r["status"],
                flags,
                r.get("sha256", ""),
                _cell(r.get("reason", "")),
            ]
        )
    return out.getvalue()


def _cell(text: str) -> str:
    """A spreadsheet must not run a cell as a formula (CSV injection through a folder name)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


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


LOCATION = re.compile(r"\s*\([^()\s]+\.py:\d+ in [^()]*\)")  # "(alice.py:12 in __add__)": differs per student
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _first_line(message: str) -> str:
    text = (message or "").strip()
    return LOCATION.sub("", text.splitlines()[0] if text else "(no message)")[:MESSAGE_CHARS]


def _shape(message: str) -> str:
    """Messages that differ only in their numbers are the same mistake."""
    return NUMBER.sub("#", message)


def _per_test(reports: list[dict]) -> list[dict]:
    rows: dict[str, dict] = {}
    for report in reports:
        for test in report["tests"]:
            row = rows.setdefault(
                test["id"],
                {
                    "id": test["id"],
                    "task": test["task"],
                    "passed": 0,
                    "graded": 0,
                    "messages": Counter(),
                    "example": {},
                },
            )
            row["graded"] += 1
            if test["outcome"] == "passed":
                row["passed"] += 1
            else:
                message = f"{test['outcome']}: {_first_line(test['message'])}"
                row["messages"][_shape(message)] += 1
                row["example"].setdefault(_shape(message), message)
    return [
        {
            "id": row["id"],
            "task": row["task"],
            "pass_rate": round(row["passed"] / row["graded"], 4),
            "failures": row["graded"] - row["passed"],
            "common_failures": [
                {"message": row["example"][m], "count": n} for m, n in row["messages"].most_common(TOP_MESSAGES)
            ],
        }
        for row in rows.values()
    ]


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
    lab_id: str, lab_title: str, max_score: float, records: list[dict], reports: list[dict], shards: dict | None = None
) -> dict:
    """The class at a glance: statuses, the score distribution, and what the class missed.

    ``shards`` (grader.batch.shards.coverage) says which shards it holds when it is not the whole class.
    """
    graded = [r for r in records if r["status"] == "graded"]
    return {
        "schema": "labkit.batch-summary/1",
        "lab": lab_id,
        "lab_title": lab_title,
        "max_score": max_score,
        "students": len(records),
        **({"shards": shards} if shards else {}),
        "statuses": dict(sorted(Counter(r["status"] for r in records).items())),
        "distribution": _distribution([r["score"] for r in graded], max_score),
        "tasks": _per_task(reports),
        "tests": sorted(_per_test(reports), key=lambda t: (t["pass_rate"], t["id"])),
        "not_graded": [
            {"student": r["student"], "status": r["status"], "reason": r.get("reason", "")}
            for r in sorted(records, key=lambda r: r["student"])
            if r["status"] != "graded"
        ],
        "flagged": [
            {"student": r["student"], "flags": r["flags"]}
            for r in sorted(records, key=lambda r: r["student"])
            if r.get("flags")
        ],
    }


def _not_the_whole_class(shards: dict) -> str:
    def told(indices: list[int], state: str) -> str:
        names = ", ".join(f"{i}/{shards['count']}" for i in indices)
        return f"shard {names} is {state}" if len(indices) == 1 else f"shards {names} are {state}"

    parts = [told(shards["present"], "here")]
    parts += [told(shards[state], state) for state in ("missing", "unfinished") if shards[state]]
    return f"**Not the whole class**: {'; '.join(parts)}."


def summary_markdown(doc: dict, *, hardest: int = 10) -> str:
    """summary.json for a person: what an instructor reads first."""
    dist = doc["distribution"]
    lines = [f"# {doc['lab']}: {doc['lab_title']}", ""]
    statuses = ", ".join(f"{n} {s}" for s, n in doc["statuses"].items())
    lines += [f"{doc['students']} students: {statuses}.", ""]
    if doc.get("shards"):
        lines += [_not_the_whole_class(doc["shards"]), ""]
    if dist["count"]:
        q1, q2, q3 = dist["quartiles_percent"]
        lines += [
            "## Scores (graded students, percent of the maximum)",
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
        lines.append("")
    if doc["tasks"]:
        lines += ["## Tasks", "", "| task | mean score | full marks |", "| --- | ---: | ---: |"]
        for task in doc["tasks"]:
            title = markdown(task["title"], cell=True)
            lines.append(f"| {title} | {task['mean_fraction']:.0%} | {task['full_marks_rate']:.0%} |")
        lines.append("")
    missed = [t for t in doc["tests"] if t["failures"]][:hardest]
    if missed:
        lines += [
            f"## The {len(missed)} tests the class failed most",
            "",
            "| test | pass rate | most common failure |",
            "| --- | ---: | --- |",
        ]
        for test in missed:
            common = test["common_failures"][0]
            message = markdown(common["message"], cell=True)
            lines.append(f"| {code_span(test['id'])} | {test['pass_rate']:.0%} | {message} ({common['count']}) |")
        lines.append("")
    if doc["not_graded"]:
        lines += ["## Not graded", "", "| student | status | reason |", "| --- | --- | --- |"]
        lines += [
            f"| {markdown(r['student'], cell=True)} | {r['status']} | {markdown(r['reason'], cell=True)} |"
            for r in doc["not_graded"]
        ]
        lines.append("")
    if doc["flagged"]:
        lines += ["## Flagged for review (static scan)", "", "| student | findings |", "| --- | --- |"]
        for r in doc["flagged"]:
            found = "; ".join(f"line {f['line']}: {f['message']}" for f in r["flags"][:5])
            more = f" (+{len(r['flags']) - 5} more)" if len(r["flags"]) > 5 else ""
            lines.append(f"| {markdown(r['student'], cell=True)} | {markdown(found, cell=True)}{more} |")
        lines.append("")
    return "\n".join(lines)

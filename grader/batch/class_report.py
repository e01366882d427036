"""The class report, ``OUT/report.html``: the batch folder's summary, tests and similar pairs as one page to look at.

A pure function of what the folder holds (``ClassFolder``: batch.json, summary.json, the records and reports,
similarity.json and the kept texts of the students in similar pairs), as the gradebook is: a resume, a merge
and ``grader report`` write the same page. It is one file with no script and nothing from outside: the plots
are inline SVG (grader.batch.plots), the styles inline, and the page's Content-Security-Policy forbids the
rest (grader.report.page). Everything a student controls (ids, messages, flags, code) goes through
``html_text``.

Each section is one function returning one ``<section id=...>`` with its ``<h2>``: SECTIONS lists them in
the page's order, so a section is added by writing its function and naming it there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from grader.batch import final_grades, identical, plots
from grader.batch.items import failure_line
from grader.batch.messages import pattern
from grader.report.page import html_page
from grader.report.text import html_text

SIMILAR_LISTED = 50  # pairs in the table (a class of copies has thousands: similarity.json has them all)
SIDE_BY_SIDE = 10  # the most similar pairs shown file beside file
LINES_SHOWN = 2000  # of a file beside another: a longer one shows its matched lines and a few around them
CONTEXT_LINES = 3
EXAMPLE_STUDENTS = 5  # named per failure pattern
FLAGS_SHOWN = 5  # per student

STYLE = """
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
td { overflow-wrap: anywhere; }
td.number, .nowrap { white-space: nowrap; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
section { margin-bottom: 2.5em; }
.plot svg { max-width: 100%; height: auto; }
.note { color: #555; }
.warning { color: #a40000; font-weight: bold; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 0.5em; margin-bottom: 1.5em; }
.pair > div { min-width: 0; }
.pair pre { max-height: 36em; overflow: auto; margin: 0; padding: 0.3em 0; font-size: 0.8em; }
.pair .line { display: block; padding: 0 0.5em; white-space: pre; }
.pair .line.match { background: #ffe08a; }
.pair .line.gap { color: #666; font-style: italic; }
.pair .no { display: inline-block; width: 3.5em; color: #888; user-select: none; }
"""


@dataclass
class ClassFolder:
    """What the report reads from a batch folder (grader.batch.outputs.class_folder reads it)."""

    about: dict  # batch.json
    summary: dict  # summary.json
    records: list[dict]  # records/*.json, as saved (late work's apart)
    reports: dict[str, dict]  # reports/<key>.json by key
    similar: dict | None = None  # similarity.json, if the batch compared its students
    texts: dict[str, str] = field(default_factory=dict)  # files/<key>.py by student, for the pairs shown
    final: dict | None = None  # final_grades.json, what the last grader export gave each roster student
    rounds: list[tuple[str, dict]] = field(default_factory=list)  # earlier rounds' (label, summary.json), oldest first


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _section(section_id: str, title: str, *parts: str) -> str:
    return "\n".join([f'<section id="{section_id}">', f"<h2>{html_text(title)}</h2>", *parts, "</section>"])


def _note(text: str) -> str:
    """A paragraph of the kit's own words (escaped all the same: the lab's title may hold anything)."""
    return f'<p class="note">{html_text(text)}</p>'


def _table(headings: list[str], rows: list[list[str]], numbers: set[int] = frozenset()) -> str:
    """A table of cells already escaped; the columns in ``numbers`` right-aligned."""
    head = "".join(f"<th>{html_text(h)}</th>" for h in headings)
    body = [
        "<tr>" + "".join(f'<td class="number">{c}</td>' if i in numbers else f"<td>{c}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    ]  # fmt: skip
    thead = f"<thead><tr>{head}</tr></thead>" if any(headings) else ""
    return "\n".join(["<table>", thead, "<tbody>", *body, "</tbody>", "</table>"])


def _names(students: list[str]) -> str:
    return ", ".join(html_text(s) for s in students)


def _plot(draw: Callable[..., str], *data) -> str:
    """A plot of grader.batch.plots, or a note when matplotlib is missing (a kit without the instructor's extra)."""
    if not plots.available():
        return _note("No plot: matplotlib is not installed (the kit's instructor extra: run `make dev`).")
    return f'<div class="plot">{draw(*data)}</div>'


def counted_records(folder: ClassFolder) -> list[dict]:
    """The students the statistics count, as summary.json does: graded, on time, not an untouched starter."""
    return [
        r
        for r in sorted(folder.records, key=lambda r: r["student"])
        if r["status"] == "graded"
        and not identical.is_late(r)
        and not identical.untouched_starter(r)
        and r["key"] in folder.reports
    ]


# -- the sections -------------------------------------------------------------------------------


def overview(folder: ClassFolder) -> str:
    doc, kit = folder.summary, folder.about.get("kit") or {}
    statuses = ", ".join(f"{n} {s}" for s, n in doc["statuses"].items()) or "none"
    dist = doc["distribution"]
    rows = [
        ["lab", html_text(f"{doc['lab']}: {doc['lab_title']}")],
        ["kit", html_text(f"labkit {kit.get('version', '?')}, tests sha256 {str(kit.get('tests_sha256', '?'))[:12]}")],
        ["students", html_text(f"{doc['students']} ({statuses})")],
        ["counted in the statistics", str(doc["statistics"]["students"])],
        ["maximum score", html_text(f"{doc['max_score']:g}")],
    ]
    if dist["count"]:
        rows += [
            ["mean, median", html_text(f"{dist['mean_percent']:g}%, {dist['median_percent']:g}%")],
            ["quartiles", html_text(" / ".join(f"{q:g}%" for q in dist["quartiles_percent"]))],
            ["min, max", html_text(f"{dist['min_percent']:g}%, {dist['max_percent']:g}%")],
        ]
    left_out = doc["statistics"]["left_out"]
    parts = [_table(["", ""], [[f"<b>{html_text(k)}</b>", v] for k, v in rows])]
    if left_out["untouched_starters"] or left_out["not_graded"]:
        parts.append(
            _note(
                f"The statistics leave out {_plural(len(left_out['untouched_starters']), 'untouched starter')} "
                f"and {_plural(len(left_out['not_graded']), 'student')} not graded: their zeros say nothing "
                "about the tests (see below)."
            )
        )
    if doc.get("shards"):
        shards = doc["shards"]
        missing = [f"{i}/{shards['count']}" for i in shards["missing"] + shards["unfinished"]]
        parts.append(_note(f"Not the whole class: shards {', '.join(missing) or 'none'} missing or unfinished."))
    return _section("overview", "Overview", *parts)


def scores(folder: ClassFolder) -> str:
    dist = folder.summary["distribution"]
    if not dist["count"]:
        return _section("scores", "Scores", _note("No student was graded: no distribution."))
    return _section(
        "scores",
        "Scores",
        _note(f"Students per band of the score, in percent of the maximum ({dist['count']} students)."),
        _plot(plots.score_histogram, dist["histogram"]),
    )


def tasks(folder: ClassFolder) -> str:
    doc = folder.summary
    if not doc["tasks"]:
        return _section("tasks", "Tasks", _note("No student was graded."))
    earned: dict[str, list[float]] = {t["id"]: [] for t in doc["tasks"]}
    worth: dict[str, float] = {}
    for record in counted_records(folder):
        for task in folder.reports[record["key"]]["tasks"]:
            if task["id"] in earned:
                earned[task["id"]].append(task["score"])
                worth[task["id"]] = task["max_score"]
    rows = [
        [
            f'<span class="nowrap">{html_text(t["id"])}</span>',
            html_text(t["title"]),
            f"{t['mean_fraction']:.0%}",
            f"{t['full_marks_rate']:.0%}",
        ]
        for t in doc["tasks"]
    ]
    return _section(
        "tasks",
        "Tasks",
        _note("Each task's points earned by each student counted, and the quartiles of the class."),
        _plot(plots.task_distributions, [(t["id"], worth.get(t["id"], 0), earned[t["id"]]) for t in doc["tasks"]]),
        _table(["task", "title", "mean score", "full marks"], rows, numbers={2, 3}),
    )


def tests(folder: ClassFolder) -> str:
    doc = folder.summary
    if not doc["tests"]:
        return _section("tests", "Tests", _note("No student was graded."))
    rows = []
    for test in doc["tests"]:
        index = "-" if test["discrimination"] is None else f"{test['discrimination']:.2f}"
        common = test["common_failures"][0] if test["common_failures"] else None
        failure = f"{html_text(common['message'])} ({common['count']})" if common else ""
        if test["file_failures"]:
            failure += ("<br>" if failure else "") + f"files that do not load: {test['file_failures']}"
        rows.append(
            [
                f"<code>{html_text(test['id'])}</code>",
                f'<span class="nowrap">{html_text(test["task"])}</span>',
                f"{test['pass_rate']:.0%}",
                index,
                failure,
            ]
        )
    notes = [_note(doc["definitions"]["discrimination"])]
    left_out = doc["definitions"].get("files_left_out")  # a summary written before the kit said so has none
    if left_out and any(t["file_failures"] for t in doc["tests"]):
        notes.append(_note(left_out))
    return _section(
        "tests",
        "Tests: pass rate and discrimination",
        *notes,
        _plot(plots.item_analysis, doc["tests"]),
        _table(["test", "task", "pass rate", "discrimination", "most common failure"], rows, numbers={2, 3}),
    )


def failure_students(folder: ClassFolder) -> dict[str, list[str]]:
    """Per failure pattern (messages.pattern), the counted students who met it, in id order."""
    found: dict[str, list[str]] = {}
    for record in counted_records(folder):
        report = folder.reports[record["key"]]
        for test in report["tests"]:
            if test["outcome"] != "passed":
                students = found.setdefault(pattern(failure_line(report, test)), [])
                if record["student"] not in students:
                    students.append(record["student"])
    return found


def failures(folder: ClassFolder) -> str:
    doc = folder.summary
    if not doc["failure_patterns"]:
        return _section("failures", "The most common failures", _note("No test failed."))
    who = failure_students(folder)
    rows = []
    for found in doc["failure_patterns"]:
        students = who.get(found["pattern"], [])
        more = f" (+{len(students) - EXAMPLE_STUDENTS} more)" if len(students) > EXAMPLE_STUDENTS else ""
        rows.append(
            [
                html_text(found["example"]),
                str(found["students"]),
                html_text(", ".join(found["tests"][:3]) + (" ..." if len(found["tests"]) > 3 else "")),
                _names(students[:EXAMPLE_STUDENTS]) + more,
            ]
        )
    return _section(
        "failures",
        "The most common failures",
        _note(f"By the number of students who met them. {doc['definitions']['failure_patterns']}"),
        _table(["failure", "students", "tests", "for example"], rows, numbers={1}),
    )


def below_full(folder: ClassFolder) -> str:
    doc = folder.summary
    rows = [
        [html_text(r["student"]), html_text(f"{r['score']:g}/{doc['max_score']:g}"), html_text(r["reason"])]
        for r in doc["below_full"]
    ]
    body = _table(["student", "score", "reason"], rows, numbers={1}) if rows else _note("Every student graded: full.")
    return _section("below-full", "Why points were lost", body)


def flagged(folder: ClassFolder) -> str:
    doc = folder.summary
    parts = []
    if doc["flagged"]:
        rows = []
        for r in doc["flagged"]:
            shown = "<br>".join(html_text(f"line {f['line']}: {f['message']}") for f in r["flags"][:FLAGS_SHOWN])
            more = f" (+{len(r['flags']) - FLAGS_SHOWN} more)" if len(r["flags"]) > FLAGS_SHOWN else ""
            rows.append([html_text(r["student"]), shown + more])
        parts += [_note("What the static scan found in their files: look before you trust the grade."),
                  _table(["student", "findings"], rows)]  # fmt: skip
    else:
        parts.append(_note("The static scan flagged no submission."))
    same = doc["identical"]
    groups = [("the same file", g) for g in same["same_file"]] + [
        ("the same code, up to comments and whitespace", g) for g in same["same_code"]
    ]
    if groups:
        parts += ["<h3>Identical submissions</h3>", _table(["students", "what they share"],
                  [[_names(g), html_text(kind)] for kind, g in groups])]  # fmt: skip
    if same["untouched_starters"]:
        parts += [_note(f"The lab's starter, unchanged: {', '.join(same['untouched_starters'])}.")]
    return _section("flagged", "Flagged and identical submissions", *parts)


def _file_column(student: str, text: str | None, ranges: list[list[int]]) -> str:
    if text is None:
        return f"<div><h4>{html_text(student)}</h4>" + _note("The text is not in files/.") + "</div>"
    matched = {n for first, last in ranges for n in range(first, last + 1)}
    lines = text.split("\n")
    shown = _lines_shown(len(lines), matched)
    spans, last = [], 0
    for n in shown:
        if n > last + 1:  # lines left out: a file padded to 1 MiB made a 29.5 MB page (a review's)
            spans.append(f'<span class="line gap">{n - last - 1} lines not shown</span>')
        spans.append(
            f'<span class="line{" match" * (n in matched)}"><span class="no">{n}</span>{html_text(lines[n - 1])}</span>'
        )
        last = n
    if last < len(lines):
        spans.append(f'<span class="line gap">{len(lines) - last} lines not shown</span>')
    return f"<div><h4>{html_text(student)}</h4><pre>{''.join(spans)}</pre></div>"


def _lines_shown(count: int, matched: set[int]) -> list[int]:
    """Every line of a file of at most LINES_SHOWN; else the matched ones with CONTEXT_LINES around them, the
    first LINES_SHOWN of those (a review's file, padded to 1 MiB with 516,000 lines, took Chromium a minute)."""
    if count <= LINES_SHOWN:
        return list(range(1, count + 1))
    near = sorted({n + d for n in matched for d in range(-CONTEXT_LINES, CONTEXT_LINES + 1) if 1 <= n + d <= count})
    return near[:LINES_SHOWN] if near else list(range(1, LINES_SHOWN + 1))


def similar(folder: ClassFolder) -> str:
    found = folder.similar
    if found is None:
        return _section("similar", "Similar submissions", _note("Not compared (--similarity-threshold off)."))
    pairs = found["pairs"]
    parts = [
        _note(
            f"{_plural(len(pairs), 'pair')} of the {found['compared']} files compared share at least "
            f"{found['threshold'] * 100:g}% of one file's code (copydetect's winnowing: names and comments ignored, "
            "the lab's starter left out; identical submissions are listed above, not here)."
        )
    ]
    if found["not_compared"]:
        parts.append(_note(f"Not compared (their text is missing from files/): {', '.join(found['not_compared'])}."))
    scores = {identical.version_label(r): r["score"] for r in folder.records if r["status"] == "graded"}
    rows = []
    for pair in pairs[:SIMILAR_LISTED]:
        (a, b), (share_a, share_b) = pair["students"], pair["scores"]
        grades = " / ".join(f"{scores[s]:g}" if s in scores else "?" for s in (a, b))
        rows.append([_names([a, b]), f"{share_a:.0%} / {share_b:.0%}", str(pair["token_overlap"]), html_text(grades)])
    if rows:
        parts.append(_table(["students", "shared", "tokens", "their scores"], rows, numbers={1, 2, 3}))
    if len(pairs) > SIMILAR_LISTED:
        parts.append(_note(f"... and {len(pairs) - SIMILAR_LISTED} more in similarity.json."))
    for pair in pairs[:SIDE_BY_SIDE]:
        (a, b), (share_a, share_b) = pair["students"], pair["scores"]
        parts.append(f"<h3>{_names([a, b])}: {share_a:.0%} / {share_b:.0%}</h3>")
        columns = [
            _file_column(s, folder.texts.get(s), r) for s, r in zip(pair["students"], pair["lines"], strict=True)
        ]
        parts.append(f'<div class="pair">{"".join(columns)}</div>')
    return _section("similar", "Similar submissions", *parts)


def not_graded(folder: ClassFolder) -> str:
    rows = [
        [html_text(r["student"]), html_text(r["status"]), html_text(r["reason"])] for r in folder.summary["not_graded"]
    ]
    body = _table(["student", "status", "reason"], rows) if rows else _note("Every student was graded.")
    return _section("not-graded", "Not graded", body)


def late_work(folder: ClassFolder) -> str:
    late = [r for r in folder.summary.get("collected", []) if r["late_commit"]]
    if not late:
        return _section("late", "Late work", _note("No late work."))
    rows = [
        [
            html_text(r["student"]),
            f"<code>{html_text(r['commit'][:12])}</code>" if r["commit"] else "nothing",
            f"<code>{html_text(r['late_commit'][:12])}</code>",
            html_text(r["late_by"]),
            html_text(r["late_score"]),
        ]
        for r in late
    ]
    return _section(
        "late",
        "Late work",
        _note("Each student's latest commit, after the deadline, graded apart: their score is the on-time one."),
        _table(["student", "on time", "late commit", "late by", "late score"], rows, numbers={3, 4}),
    )


def _override_words(override: dict) -> str:
    was = "nothing" if override["was"] is None else f"{override['was']:g}"
    return f"{override['target']}: {was} \u2192 {override['points']:g} ({override['reason']}; {override['who']})"


def _points(value: float | None) -> str:
    return "" if value is None else html_text(f"{value:g}")


def final_grades_section(folder: ClassFolder) -> str:
    """What the last ``grader export`` gave: each late penalty and override, with who and why (its audit line
    in audit.jsonl says the same), and whether the grades changed since."""
    doc = folder.final
    if doc is None:
        return _section(
            "final-grades",
            "Final grades: late penalties and overrides",
            _note(
                "Not exported yet: grader export OUT --format canvas|moodle|csv --roster FILE applies the late policy "
                "and OUT/overrides.csv, and this section then lists every grade they changed."
            ),
        )
    students = doc["students"]
    missing = sum(e["status"] == final_grades.MISSING for e in students)
    policy = doc.get("late_policy")
    policy_words = (
        f"{policy['per_day_percent']:g}% a day begun, at most {policy['cap_percent']:g}%, "
        f"{policy['grace_seconds']} s of grace"
        if policy
        else "none (late work not counted)"
    )
    parts = [
        _note(
            f"Exported {doc['exported_at']}: {_plural(len(students), 'roster student')}, {missing} missing "
            f"(no grade{'' if missing == 0 else ' unless --missing-as-zero'}); late policy: {policy_words}."
        )
    ]
    if doc.get("grades_sha256") != final_grades.grades_fingerprint(folder.records):
        parts.append(
            '<p class="warning">'
            + html_text("The grades changed since this export (a regrade or a resume): run grader export again.")
            + "</p>"
        )
    rows = [
        [
            html_text(e["student"]),
            _points(e["graded_score"]),
            html_text(e["late_by"]),
            _points(e["late_penalty"]) if e["late_penalty"] else "",
            "<br>".join(html_text(_override_words(o)) for o in e["overrides"]),
            _points(e["final"]),
        ]
        for e in students
        if final_grades.adjusted(e)
    ]
    if rows:
        headings = ["student", "graded", "late by", "late penalty", "overrides (was \u2192 now; why; who)", "final"]
        parts.append(_table(headings, rows, numbers={1, 3, 5}))
    else:
        parts.append(_note("No late penalty and no override: every final grade is the graded score."))
    if doc.get("not_on_roster"):
        names = _names([e["student"] for e in doc["not_on_roster"]])
        parts.append(f'<p class="note">Graded but not on the roster (not exported): {names}</p>')
    return _section("final-grades", "Final grades: late penalties and overrides", *parts)


ROUND_TESTS = 20  # the tests whose pass rate changed most, shown round by round


def _percent(value: float | None) -> str:
    return "" if value is None else html_text(f"{value:g}%")


def over_rounds(folder: ClassFolder) -> str:
    """The class round by round (grader report OUT --round EARLIER ...): scores, and the tests that changed most."""
    title = "Over rounds"
    if not folder.rounds:
        return _section(
            "over-rounds",
            title,
            _note(
                "One round: grader report OUT --round EARLIER_OUT ... (this lab's earlier batch folders, oldest first) "
                "compares the class with its earlier rounds here."
            ),
        )
    rounds = [*folder.rounds, ("this round", folder.summary)]
    labels = [label for label, _ in rounds]
    dists = [summary["distribution"] for _, summary in rounds]
    means = [d.get("mean_percent") if d["count"] else None for d in dists]
    medians = [d.get("median_percent") if d["count"] else None for d in dists]
    rows = [
        [html_text(label), str(d["count"]), _percent(mean), _percent(median)]
        for label, d, mean, median in zip(labels, dists, means, medians, strict=True)
    ]
    parts = [
        _note("Each round's students counted in the statistics, their mean and median score; oldest first."),
        _plot(plots.rounds, labels, {"mean": means, "median": medians}),
        _table(["round", "students counted", "mean", "median"], rows, numbers={1, 2, 3}),
    ]
    rates = [{t["id"]: t["pass_rate"] for t in summary["tests"]} for _, summary in rounds]
    ids = sorted({i for r in rates for i in r})

    def change(test_id: str) -> float:
        known = [r[test_id] for r in rates if test_id in r]
        return max(known) - min(known)

    moved = sorted(ids, key=lambda i: (-change(i), i))[:ROUND_TESTS]
    test_rows = [
        [f"<code>{html_text(i)}</code>", *("" if i not in r else html_text(f"{r[i]:.0%}") for r in rates)]
        for i in moved
    ]
    parts.append(_note(f"The {len(moved)} tests whose pass rate changed most from round to round:"))
    parts.append(_table(["test", *labels], test_rows, numbers=set(range(1, len(labels) + 1))))
    return _section("over-rounds", title, *parts)


SECTIONS: list[Callable[[ClassFolder], str]] = [
    overview,
    scores,
    tasks,
    tests,
    failures,
    below_full,
    flagged,
    similar,
    not_graded,
    late_work,
    over_rounds,
    final_grades_section,
]


def shown_pairs(similar_doc: dict | None) -> list[str]:
    """The students whose texts the page shows (those of the pairs side by side): what ``texts`` must hold."""
    if not similar_doc:
        return []
    return sorted({s for pair in similar_doc["pairs"][:SIDE_BY_SIDE] for s in pair["students"]})


def render(folder: ClassFolder) -> str:
    """The whole page."""
    doc = folder.summary
    title = f"{doc['lab']}: {doc['lab_title']}: class report"
    body = [f"<h1>{html_text(title)}</h1>", *(section(folder) for section in SECTIONS)]
    return html_page(title, "\n".join(body), STYLE)

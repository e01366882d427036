"""The canonical report in the formats other tools read: JUnit XML, Gradescope, GitHub Classroom, job summaries.

Each export is a pure function of the report (no clock, no files, no environment), so
the same report always gives the same bytes, and a message with odd text in it (markup,
table pipes, control characters, which every export shows as \\x00-style escapes) is
carried through escaped rather than breaking a format or the store behind it.

Formats followed:
- JUnit XML: the de facto schema read by CI test viewers (testsuites > testsuite >
  testcase, with failure / error / skipped children).
- Gradescope: https://gradescope-autograders.readthedocs.io/en/latest/specs/ ("Output format").
  The top-level ``score`` overrides the tests' total and is required when there are no
  tests, so it is always given, equal to that total; ``execution_time`` is in seconds; the
  ``*_format`` keys take text, html, simple_format, md or ansi; a test's ``status`` is
  passed or failed; ``visibility`` is visible, hidden, after_due_date or after_published; a
  test's ``number`` ("1.3") orders and groups the tests, its ``tags`` and ``extra_data`` are
  kept for the instructor; ``stdout_visibility`` hides run_autograder's own output from students.
- GitHub Classroom (sunset; kept for instructors who still run its reporter): a grader step's
  result as built by classroom-resources/autograding-io-grader (src/main.js: ``version: 1``,
  ``status`` pass/fail/error, ``max_score``, tests with ``name``, ``status``, ``message``,
  ``test_code``, ``filename``, ``line_no`` (0: none), ``execution_time`` as "<seconds>s",
  ``score``), which classroom-resources/autograding-grading-reporter reads from the environment
  variable ``<STEP ID>_RESULTS``, base64-encoded; its src/notify-classroom.js sums the tests'
  ``score`` and the ``max_score`` into ``Points X/Y``, posted as a notice annotation titled
  "Autograding complete", and its console prints `` - line N`` after a test's name. One result
  is one lab, in whole points: the score rounded down (text.whole_points).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.labs import TIERS  # a test's "tier" in the report: from test_lab.py, or from a hidden test file
from grader.report.text import as_text, code_span, for_terminal, markdown, points, visible, whole_points
from grader.verdicts import OUTCOMES

GRADESCOPE_VISIBILITY = ("visible", "hidden", "after_due_date", "after_published")
GRADESCOPE_DEFAULT_VISIBILITY = {"visible": "visible", "hidden": "after_due_date"}
SHOWN_WHEN = {
    "hidden": "never shown to students",
    "after_due_date": "shown after the due date",
    "after_published": "shown when grades are published",
}
ERROR_OUTCOMES = ("error", "timeout", "crashed")
# Classroom knows pass, fail and error: a test that did not run to a verdict is an error, not a wrong answer.
CLASSROOM_STATUS = {"passed": "pass", "failed": "fail", **dict.fromkeys((*ERROR_OUTCOMES, "not_run"), "error")}


def _feedback(test: dict) -> str:
    """What a student reads about a test: its message, then its hint."""
    parts = [as_text(test.get("message"))] if test.get("message") else []
    if test.get("hint"):
        parts.append(f"hint: {as_text(test['hint'])}")
    return visible("\n".join(parts))


def _summary(report: dict) -> str:
    """Score and outcome counts in one line: '40/100 (30 passed, 46 failed)'."""
    counts = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report["counts"].items() if n) or "no tests"
    return f"{points(report['score'])}/{points(report['max_score'])} ({counts})"


def _isolation(report: dict, *, protections: bool = True) -> str:
    """The isolation mode and sandbox level; with ``protections``, what the kernel enforced."""
    isolation = report["isolation"]
    mode = isolation["mode"] + (f", {as_text(isolation['level'])} sandbox" if isolation.get("level") else "")
    enforced = "; ".join(as_text(p) for p in isolation.get("protections", [])) if protections else ""
    return f"{mode} ({enforced})" if enforced else mode


def _flag_line(flag: dict) -> str:
    return f"line {flag.get('line', '?')} [{flag.get('code', '?')}] {as_text(flag.get('message', flag))}"


def junit_xml(report: dict) -> str:
    """JUnit XML: one testsuite for the lab, one testcase per test, failures and errors with their text."""
    tests = report["tests"]
    counts = {
        "tests": str(len(tests)),
        "failures": str(sum(t["outcome"] == "failed" for t in tests)),
        "errors": str(sum(t["outcome"] in ERROR_OUTCOMES for t in tests)),
        "skipped": str(sum(t["outcome"] == "not_run" for t in tests)),
        "time": f"{float(report['duration_s']):.3f}",
    }
    root = ET.Element("testsuites", {"name": visible(report["lab"]), **counts})
    suite = ET.SubElement(root, "testsuite", {"name": visible(report["lab"]), **counts})
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("score", points(report["score"])),
        ("max_score", points(report["max_score"])),
        ("implementation", report["implementation"]["name"]),
        ("isolation", _isolation(report)),
    ):
        ET.SubElement(properties, "property", {"name": name, "value": visible(value)})
    for test in tests:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": visible(f"{report['lab']}.{test['task']}"),
                "name": visible(test["id"]),
                "time": f"{float(test['duration_s']):.3f}",
            },
        )
        outcome, message = test["outcome"], visible(test["message"])
        if outcome == "failed":
            ET.SubElement(case, "failure", {"message": message, "type": "failed"}).text = _feedback(test)
        elif outcome in ERROR_OUTCOMES:
            ET.SubElement(case, "error", {"message": message, "type": outcome}).text = _feedback(test)
        elif outcome == "not_run":
            ET.SubElement(case, "skipped", {"message": message})
    if report["flags"]:
        ET.SubElement(suite, "system-out").text = visible("\n".join(_flag_line(f) for f in report["flags"]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def gradescope_visibility(choices: dict[str, str] | None = None) -> dict[str, str]:
    """Each test tier's Gradescope visibility: ``choices`` over the defaults, checked (ValueError, one line)."""
    chosen = {**GRADESCOPE_DEFAULT_VISIBILITY, **(choices or {})}
    for tier, value in chosen.items():
        if tier not in TIERS:
            raise ValueError(f"unknown test tier {tier!r}: the tiers are {', '.join(TIERS)}")
        if value not in GRADESCOPE_VISIBILITY:
            raise ValueError(
                f"visibility of {tier} tests must be one of {', '.join(GRADESCOPE_VISIBILITY)}, not {value!r}"
            )
    return chosen


def tier_of(test: dict) -> str:
    """A test's tier; a report written before tiers has only visible tests. A tier this kit does not know is
    treated as hidden: what is not known to be for students is not shown to them."""
    return "visible" if test.get("tier", "visible") == "visible" else "hidden"


def _numbered(report: dict) -> list[tuple[str, str, dict]]:
    """(number, task title, test) for every test, in Gradescope's order: "2.3" is the lab's task 2, its third
    test; a task's visible tests in the lab's order, then its hidden ones."""
    titles = {task["id"]: task["title"] for task in report["tasks"]}
    for test in report["tests"]:  # a test of a task the lab does not list (never, from build_report) still shows
        titles.setdefault(test["task"], test["task"])
    order = {task: i for i, task in enumerate(titles, start=1)}
    ranked = sorted(report["tests"], key=lambda t: (order[t["task"]], tier_of(t) != "visible"))  # stable: lab's order
    numbered, seen = [], dict.fromkeys(titles, 0)
    for test in ranked:
        seen[test["task"]] += 1
        numbered.append((f"{order[test['task']]}.{seen[test['task']]}", titles[test["task"]], test))
    return numbered


def _tally(tests: list[dict]) -> str:
    """Score and outcome counts of ``tests`` in one line: '40/100 (30 passed, 46 failed)'."""
    tallied = {o: sum(t["outcome"] == o for t in tests) for o in OUTCOMES}
    counts = ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in tallied.items() if n)
    score, max_score = sum(t["points"] for t in tests), sum(t["max_points"] for t in tests)
    return f"{points(score)}/{points(max_score)} ({counts or 'no tests'})"


def counted(tests: list[dict], tier: str) -> str:
    """Tests a student cannot see, counted: how many and their points, never their names ('12 hidden tests
    (20 points)'); the Gradescope output and the batch's feedback files say it alike."""
    kind = "hidden test" if tier == "hidden" else "test"
    worth = points(sum(t["max_points"] for t in tests))
    return f"{len(tests)} {kind}{'s' if len(tests) != 1 else ''} ({worth} points)"


def not_shown(tests: list[dict], tier: str, visibility: str) -> str:
    """How a student is told of tests they cannot see yet: counted, and when they will see them."""
    return f"{counted(tests, tier)}, {SHOWN_WHEN[visibility]}"


def gradescope_results(report: dict, *, visibility: dict[str, str] | None = None) -> dict:
    """Gradescope's results.json: the lab's score, and per test its number, points, status and feedback.

    ``visibility`` maps each test tier to a Gradescope visibility (default GRADESCOPE_DEFAULT_VISIBILITY). The
    top-level ``output``, which a student sees, scores only the tests they see now and counts the others; how
    the sandbox holds (the isolation, its protections) is for the instructor (gradescope_instructor_notes)."""
    visibility = gradescope_visibility(visibility)
    numbered = _numbered(report)
    now = [test for _, _, test in numbered if visibility[tier_of(test)] == "visible"]
    lines = [f"{report['lab']}: {report['lab_title']}"]
    if len(now) == len(numbered):
        lines.append(f"Score: {_tally(now)}")
    elif now:
        lines.append(f"Score of the {len(now)} tests shown now: {_tally(now)}")
    for tier in TIERS:
        later = [test for _, _, test in numbered if tier_of(test) == tier and visibility[tier] != "visible"]
        if later:
            lines.append(not_shown(later, tier, visibility[tier]))
    if report["flags"]:  # what the scan saw in the file: `grader run` and CI show the student the same
        lines.append("Flags for the instructor to review (they do not change the score):")
        lines.extend(f"  {_flag_line(f)}" for f in report["flags"])
    return {
        "score": points(report["score"]),
        "execution_time": float(report["duration_s"]),
        "output": visible("\n".join(lines)),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": visibility["visible"],
        "stdout_visibility": "hidden",
        "tests": [
            {
                "number": number,
                "name": visible(f"{title}: {test['id']}" + (" (hidden test)" if tier_of(test) == "hidden" else "")),
                "score": points(test["points"]),
                "max_score": points(test["max_points"]),
                "status": "passed" if test["outcome"] == "passed" else "failed",
                "output": _feedback(test),
                "tags": [visible(test["task"]), *(["hidden"] if tier_of(test) == "hidden" else [])],
                "visibility": visibility[tier_of(test)],
                "extra_data": {"id": visible(test["id"]), "tier": tier_of(test), "outcome": test["outcome"]},
            }
            for number, title, test in numbered
        ],
    }


def gradescope_instructor_notes(report: dict, *, visibility: dict[str, str] | None = None) -> str:
    """What run_autograder prints for the instructor (its stdout, which results.json keeps hidden): the whole
    score, the tiers and when students see them, the isolation with its protections, the limits, the flags."""
    visibility = gradescope_visibility(visibility)
    tests = report["tests"]
    lines = [f"Score: {_summary(report)}"]
    for tier in TIERS:
        mine = [t for t in tests if tier_of(t) == tier]
        if mine:
            lines.append(f"{tier} tests: {_tally(mine)}; students: {visibility[tier]}")
    lines.append(f"Isolation: {_isolation(report, protections=False)}")
    lines.extend(f"  protection: {as_text(p)}" for p in report["isolation"].get("protections", []))
    lines.append("Limits: " + ", ".join(f"{name}={value}" for name, value in report.get("limits", {}).items()))
    lines.extend(f"Flag: {_flag_line(f)}" for f in report["flags"])
    return visible("\n".join(lines))


def _whole_scores(tests: list[dict]) -> list[int]:
    """Each test's points as whole ones that add up to the lab's score rounded down: a test gets the whole
    points its own completes in the running total (0.5 + 0.5: 0 then 1), so the reporter's sum is an integer."""
    earned, running = [], 0.0
    for test in tests:
        before = whole_points(running)
        running += test["points"]
        earned.append(whole_points(running) - before)
    return earned


def classroom_results(report: dict) -> dict:
    """A GitHub Classroom grader step's result, as the autograding-grading-reporter action reads it: one lab,
    in whole points (the reporter's ``Points X/Y`` is the tests' scores summed over ``max_score``)."""
    statuses = {CLASSROOM_STATUS[t["outcome"]] for t in report["tests"]}
    status = "fail" if "fail" in statuses else "error" if "error" in statuses else "pass"
    impl = report["implementation"]
    filename = visible(impl["name"]) if impl["kind"] != "ref" else ""  # the reference is a package: no one file
    return {
        "version": 1,
        "status": status,
        "max_score": whole_points(report["max_score"]),
        "tests": [
            {
                "name": visible(test["id"]),
                "status": CLASSROOM_STATUS[test["outcome"]],
                # The reporter prints it in the job's log: no workflow command, no control (for_terminal).
                "message": for_terminal(_feedback(test)),
                "test_code": "",
                "filename": filename if test.get("line") else "",
                "line_no": test.get("line") or 0,
                "execution_time": f"{float(test['duration_s']):.3f}s",
                "score": score,
            }
            for test, score in zip(report["tests"], _whole_scores(report["tests"]), strict=True)
        ],
    }


def job_summary_markdown(report: dict) -> str:
    """A GitHub job summary: the score, a row per task, the tests that lost points and why, the flags."""
    impl = report["implementation"]
    lines = [
        f"## {markdown(report['lab'])}: {markdown(report['lab_title'])}",
        "",
        f"**Score: {markdown(_summary(report))}**",
        "",
        f"Code under test: {markdown(impl['name'])}; isolation: {markdown(_isolation(report))}",
        "",
    ]
    if report["tasks"]:
        lines += ["| Task | Score | Passed |", "| :-- | --: | --: |"]
        lines += [
            f"| {markdown(t['title'], cell=True)} | {points(t['score'])}/{points(t['max_score'])} "
            f"| {t['passed']}/{t['tests']} |"
            for t in report["tasks"]
        ]
        lines.append("")
    lost = [t for t in report["tests"] if t["outcome"] != "passed"]
    if lost:
        lines += [
            f"### Tests that lost points ({len(lost)})",
            "",
            "| Test | Outcome | Points | Message | Hint |",
            "| :-- | :-- | --: | :-- | :-- |",
        ]
        previous = None
        for test in lost:
            said = (test["message"], test["hint"])
            # A starter fails many tests for one reason: say it once.
            message, hint = ("*same as above*", "") if said == previous else (markdown(s, cell=True) for s in said)
            previous = said
            lines.append(
                f"| {code_span(test['id'])} | {test['outcome'].replace('_', ' ')} "
                f"| {points(test['points'])}/{points(test['max_points'])} | {message} | {hint} |"
            )
        lines.append("")
    elif not report["tests"]:
        lines += ["No tests were collected.", ""]
    if report["flags"]:
        lines += ["### Flags for review (they do not change the score)", ""]
        lines += [f"- {markdown(_flag_line(f))}" for f in report["flags"]]
        lines.append("")
    return "\n".join(lines)

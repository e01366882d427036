"""Item analysis of a class: how each test did across the students, and the failures they share.

A test that every student passes, or every student fails, says nothing about who learned
what. The ones in between separate students, and the discrimination index says how: the
point-biserial correlation between passing the test (1 or 0) and the rest of the score (the
score minus that test's points). Near 1, the students who pass it are the strong ones; near
0, passing it has nothing to do with the rest; below 0, the strong students fail it: look at
the test, or at what the handout says about it.

Everything here is a pure function of canonical reports (grader.report).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from statistics import fmean

from grader.batch.messages import first_line, pattern

TOP_MESSAGES = 3  # per test
TOP_PATTERNS = 10  # for the class


def point_biserial(passed: Sequence[bool], rest: Sequence[float]) -> float | None:
    """Pearson's r between ``passed`` (as 1 and 0) and ``rest``; None when either does not vary."""
    if len(passed) != len(rest):
        raise ValueError("one outcome and one rest of the score per student")
    if len(set(passed)) < 2 or max(rest) == min(rest):
        return None
    xs = [1.0 if p else 0.0 for p in passed]
    mx, my = fmean(xs), fmean(rest)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, rest, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in rest)
    return sxy / math.sqrt(sxx * syy)


def about_the_file(test: dict) -> bool:
    """Whether a failure is the file's, not the test's: it does not parse or import, or lacks a name (as the kit
    marked the verdict: a message a submission raised can be worded as one)."""
    return test.get("about_the_file") is True


def failure_line(report: dict, test: dict) -> str:
    """A failed test's message as the class summary shows it: 'failed: <first line>'."""
    return f"{test['outcome']}: {first_line(test['message'], report['implementation']['name'])}"


def tests(reports: list[dict]) -> list[dict]:
    """Per test, in the order first seen: the pass rate, the failures, the discrimination index
    (None if the test separates no one) and its most common failures by pattern.

    A failure that is the file's (it does not parse or import, or lacks a name the test uses) says
    nothing of the test: such files fail every test they reach alike. They are counted apart
    (``file_failures``) and left out of the test's pass rate and index, which are over the files
    that reach it (``students``); otherwise a test every such file passes would show as separating,
    its index made by the files that do not load. A test no file reaches counts them all (0%)."""
    rows: dict[str, dict] = {}
    for report in reports:
        for test in report["tests"]:
            row = rows.setdefault(test["id"], {"id": test["id"], "task": test["task"], "outcomes": [], "file": 0})
            count, example = row.setdefault("count", Counter()), row.setdefault("example", {})
            passed = test["outcome"] == "passed"
            about_file = not passed and about_the_file(test)
            row["outcomes"].append((passed, report["score"] - test["points"], about_file))
            if about_file:
                row["file"] += 1
            elif not passed:
                line = failure_line(report, test)
                count[pattern(line)] += 1
                example.setdefault(pattern(line), line)
    found = []
    for row in rows.values():
        reached = [(p, rest) for p, rest, about_file in row["outcomes"] if not about_file]
        counted = reached or [(p, rest) for p, rest, _ in row["outcomes"]]
        passed, rest = [p for p, _ in counted], [r for _, r in counted]
        index = point_biserial(passed, rest)
        found.append(
            {
                "id": row["id"],
                "task": row["task"],
                "students": len(counted),
                "pass_rate": round(sum(passed) / len(passed), 4),
                "failures": passed.count(False),
                "discrimination": None if index is None else round(index, 3),
                "file_failures": row["file"],
                "common_failures": [
                    {"message": row["example"][m], "count": n}
                    for m, n in row["count"].most_common(TOP_MESSAGES)  # on a tie, the first seen
                ],
            }
        )
    return found


def separating(rows: list[dict]) -> list[dict]:
    """The tests some students pass and some fail (of ``tests``' rows), the most failed first; among
    equally failed ones, the most discriminating first."""
    between = [t for t in rows if 0 < t["pass_rate"] < 1]
    return sorted(between, key=lambda t: (t["pass_rate"], -(t["discrimination"] or 0), t["id"]))


def failure_patterns(reports: list[dict], top: int = TOP_PATTERNS) -> list[dict]:
    """The class's failure messages grouped by their wording (``messages.pattern``), the pattern most
    students met first: each with an example, how many students and which tests."""
    groups: dict[str, dict] = {}
    for student, report in enumerate(reports):  # one report a student (their files may share a name)
        for test in report["tests"]:
            if test["outcome"] == "passed":
                continue
            line = failure_line(report, test)
            group = groups.setdefault(pattern(line), {"example": line, "students": set(), "tests": set(), "count": 0})
            group["students"].add(student)
            group["tests"].add(test["id"])
            group["count"] += 1
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]["students"]), -kv[1]["count"], kv[0]))
    return [
        {
            "pattern": key,
            "example": group["example"],
            "students": len(group["students"]),
            "failures": group["count"],
            "tests": sorted(group["tests"]),
        }
        for key, group in ranked[:top]
    ]

"""Why a graded student lost points, in one short line, the most important cause first.

The gradebook's ``reason`` column and the summary say it for every score below full, from
the student's canonical report and what the batch read of their file without running it
(grader.batch.sources, kept in the record as ``code``). A cause that explains everything
(the file does not parse, is the untouched starter, does not import) is said alone; else
the missing public names, then per task the timeouts, crashes and failures, the task that
lost the most points first.
"""

from __future__ import annotations

from collections import Counter
from pathlib import PurePosixPath

from grader import verdicts
from grader.batch.messages import first_line, pattern

REASON_CHARS = 200
EXAMPLE_CHARS = 80
UNTOUCHED_STARTER = "the starter, unchanged"


def clip(text: str, limit: int) -> str:
    """``text`` on one line (a reason is a gradebook's cell: a new line in it read as a row of its own under
    `cat`), cut to ``limit`` characters."""
    text = " ".join(text.splitlines())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def does_not_parse(line: int | None) -> str:
    return f"does not parse (line {line})" if line else "does not parse"


def _looks_like(code: dict) -> str:
    return f" ({verdicts.looks_like_lab(code['looks_like'])})" if code.get("looks_like") else ""


def lacks(reported: list[str], code: dict) -> str:
    """The public names the file lacks: as the static read lists them when there is one (the tests
    stop at the first missing name they ask for, so the report may name fewer), else as reported."""
    missing = code.get("missing_names") or reported
    total = code.get("public_names")
    if total and len(missing) >= total:
        said = "defines none of the lab's names"
    elif total:
        said = f"lacks {len(missing)} of the lab's {total} names: {', '.join(missing)}"
    else:
        said = f"lacks {', '.join(missing)}"
    return said + _looks_like(code)


def _tasks(numbers: list[int]) -> str:
    ordered = sorted(set(numbers))
    return f"task {ordered[0]}" if len(ordered) == 1 else f"tasks {', '.join(map(str, ordered))}"


def _tests(n: int) -> str:
    return f"{n} test{'s' if n != 1 else ''}"


def per_task(report: dict, lost: list[dict]) -> list[str]:
    """The causes of the tests in ``lost``: timeouts, crashes, failures per task (most points first), not run."""
    number = {task["id"]: i + 1 for i, task in enumerate(report["tasks"])}
    name = report["implementation"]["name"]

    def task_of(test: dict) -> int:
        return number.get(test["task"], len(number) + 1)

    causes = []
    for outcome, said in (("timeout", "timeout"), ("crashed", "crashed")):
        hit = [task_of(t) for t in lost if t["outcome"] == outcome]
        if hit:
            causes.append(f"{said} in {_tasks(hit)}")
    failed: dict[int, list[dict]] = {}
    for test in lost:
        if test["outcome"] in ("failed", "error"):
            failed.setdefault(task_of(test), []).append(test)
    by_loss = sorted(failed.items(), key=lambda kv: (-sum(t["max_points"] - t["points"] for t in kv[1]), kv[0]))
    for task, tests in by_loss:
        causes.append(f"{_tests(len(tests))} failed in task {task}: {_most_common(tests, name)}")
    not_run = [t for t in lost if t["outcome"] == "not_run"]
    if not_run:
        causes.append(f"{_tests(len(not_run))} not run: {_most_common(not_run, name).removeprefix('not run: ')}")
    return causes


def _most_common(tests: list[dict], file_name: str) -> str:
    lines = [first_line(t["message"], file_name) for t in tests]
    [(top, _)] = Counter(pattern(line) for line in lines).most_common(1)  # on a tie, the first seen
    return clip(next(line for line in lines if pattern(line) == top), EXAMPLE_CHARS)


def reason(report: dict, code: dict | None = None) -> str:
    """Why ``report`` is below full marks, in one line ("" at full marks); ``code`` is the record's
    static read of the file (grader.batch.sources.describe), if the batch made one."""
    if report["score"] >= report["max_score"]:
        return ""
    code = code or {}
    if code.get("parses") is False:
        return does_not_parse(code.get("syntax_error_line"))
    if code.get("starter"):
        return UNTOUCHED_STARTER
    lost = [t for t in report["tests"] if t["outcome"] != "passed"]
    file_name = PurePosixPath(report["implementation"]["name"]).name  # as the verdicts name the file
    for test in lost:
        # Only a verdict the kit marked as the file's: a submission can raise a message worded as one (a review's
        # AssertionError "lab.py does not parse: ..." read as the file's reason).
        problem = verdicts.import_problem(test["message"], file_name) if test.get("about_the_file") else None
        if problem is not None and not problem.parses:
            return does_not_parse(problem.line)
        if problem is not None:
            return clip(f"import failed: {problem.cause}" + _looks_like(code), REASON_CHARS)
    missing = [verdicts.missing_name_in(t["message"]) if t.get("about_the_file") else None for t in lost]
    reported = list(dict.fromkeys(n for n in missing if n))
    causes = [lacks(reported, code)] if reported else []
    causes += per_task(report, [t for t, name in zip(lost, missing, strict=True) if not name])
    return clip("; ".join(causes), REASON_CHARS)

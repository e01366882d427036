"""Each student's feedback file (grader.batch.feedback): what a solo `grader run` of their file prints in their
own copy of the kit, the hidden tests counted (or scored, or listed) as the batch's --hidden-feedback says,
a short file for a student not graded, and everything the student controls escaped."""

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.batch import feedback, lms
from grader.cli import main
from grader.report.page import CONTENT_SECURITY_POLICY
from grader.report.text import markdown
from tests import handmade, instructor
from tests.mutation import apply, catalogue, reference_source

# make test gives a whole module to one xdist worker (--dist loadscope): the class is graded once

LAB = "ch06"
GRADED = ("ref", "pristine", "mutant", "tuned")
STILL_RUNNING = re.compile(r"^  \.\.\. .* is still running \(")  # a live line, when the machine is slow


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> Path:
    """A class of ch06 graded by a real `grader batch`: the four real submissions, a student with no file
    and one with an empty file; returns the batch's output folder."""
    root = tmp_path_factory.mktemp("feedback")
    folder = root / "class"
    folder.mkdir()
    (folder / "ref.py").write_text(reference_source(LAB))
    (folder / "pristine.py").write_text(labs.get(LAB).starter.read_text())
    (folder / "mutant.py").write_text(apply(reference_source(LAB), catalogue(LAB)[0]))
    (folder / "tuned.py").write_text(instructor.tuned(LAB).read_text())
    (folder / "nobody").mkdir()  # missing
    (folder / "blank.py").write_text("")  # invalid
    out = root / "out"
    result = CliRunner().invoke(main, ["batch", str(folder), "--lab", LAB, "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    return out


def _table(markdown: str) -> list[str]:
    """The lines inside the feedback's fenced block (what the terminal would show)."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("```"))
    fence = lines[start].removesuffix("text")
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == fence)
    return lines[start + 1 : end]


def _solo(path: Path, *args: str) -> list[str]:
    result = CliRunner().invoke(main, ["run", "--lab", LAB, "--submission", str(path), *args])
    assert result.exit_code in (0, 1), result.output
    return [line for line in result.output.splitlines() if not STILL_RUNNING.match(line)]


def _hidden(report: dict) -> list[dict]:
    return [t for t in report["tests"] if t["tier"] == labs.HIDDEN]


@pytest.mark.parametrize("student", GRADED)
def test_the_feedback_is_what_a_solo_run_in_the_students_copy_prints(graded_class, student):
    text = (graded_class / "feedback" / f"{student}.md").read_text()
    solo = _solo(graded_class.parent / "class" / f"{student}.py", "--visible-only")
    assert _table(text) == solo
    report = json.loads((graded_class / "reports" / f"{student}.json").read_text())
    hidden = _hidden(report)
    assert hidden, "the batch graded no hidden test"
    shown = {s for t in report["tests"] if t["tier"] == "visible" for s in (t["message"], t["hint"])}
    for test in hidden:
        assert test["id"] not in text and test["id"].split("::")[-1] not in text
        for said in (test["message"], test["hint"]):  # what a visible test says too may show, as a solo run shows it
            assert not said or said in shown or said not in text, said
    worth = sum(t["max_points"] for t in hidden)
    assert f"{len(hidden)} hidden tests ({worth:g} points)" in text
    assert f"{report['score']:g}/{report['max_score']:g}" not in text or not any(t["points"] for t in hidden)


def test_the_tuned_submission_loses_hidden_points_its_feedback_does_not_show(graded_class):
    report = json.loads((graded_class / "reports" / "tuned.json").read_text())
    assert report["score"] < report["max_score"] and all(t["outcome"] != "passed" for t in _hidden(report))
    table = _table((graded_class / "feedback" / "tuned.md").read_text())
    assert "Total: 100/100  (78 passed)" in table and "next: nothing: every test passed" in table


def test_a_student_not_graded_gets_the_reason_and_what_to_hand_in(graded_class):
    records = {p.stem: json.loads(p.read_text()) for p in (graded_class / "records").glob("*.json")}
    assert sorted(p.stem for p in (graded_class / "feedback").glob("*.md")) == sorted(records)
    for student in ("nobody", "blank"):
        record = records[student]
        assert record["status"] in ("missing", "invalid") and record["reason"]
        text = (graded_class / "feedback" / f"{student}.md").read_text()
        assert f"Not graded ({record['status']})" in text
        assert markdown(record["reason"]) in text
        assert "What to hand in" in text and "labs/ch06/starter.py" in text
        assert "```" not in text and "Total" not in text


def _html_text(page: str) -> str:
    """What a feedback page's <pre> says, unescaped."""
    (pre,) = re.findall(r'<pre id="feedback">(.*?)</pre>', page, re.S)
    return html.unescape(pre)


def test_the_html_feedback_says_what_the_markdown_says(graded_class):
    pages = sorted((graded_class / "feedback").glob("*.html"))
    assert [p.stem for p in pages] == sorted(p.stem for p in (graded_class / "feedback").glob("*.md"))
    for page_path in pages:
        page = page_path.read_text(encoding="utf-8")
        assert _html_text(page) == page_path.with_suffix(".md").read_text(encoding="utf-8"), page_path.name
        assert f'content="{CONTENT_SECURITY_POLICY}"' in page and "<script" not in page


def test_merge_with_full_lists_the_hidden_tests_as_a_solo_instructors_run_does(graded_class, tmp_path):
    merged = tmp_path / "all"
    result = CliRunner().invoke(
        main, ["merge", str(graded_class), "--lab", LAB, "--out", str(merged), "--hidden-feedback", "full"]
    )
    assert result.exit_code == 0, result.output
    for student in ("tuned", "mutant"):
        text = (merged / "feedback" / f"{student}.md").read_text()
        assert _table(text) == _solo(graded_class.parent / "class" / f"{student}.py")
        report = json.loads((merged / "reports" / f"{student}.json").read_text())
        lost = [t for t in _hidden(report) if t["outcome"] != "passed"]
        assert lost and all(t["id"] in text or "more" in text for t in lost)
        assert "which this feedback does not show" not in text
    assert (merged / "feedback" / "nobody.md").read_text() == (graded_class / "feedback" / "nobody.md").read_text()


def test_a_resume_writes_what_one_run_would_and_drops_a_student_gone(graded_class, tmp_path):
    before = {p.name: p.read_text() for p in (graded_class / "feedback").glob("*.md")}
    folder = graded_class.parent / "class"
    (folder / "nobody").rmdir()
    try:
        resume = ["batch", str(folder), "--lab", LAB, "--out", str(graded_class), "--resume"]
        result = CliRunner().invoke(main, resume)
        assert result.exit_code == 2 and "nobody" in result.output, result.output  # an input left out, perhaps
        result = CliRunner().invoke(main, [*resume, "--forget-missing"])
        assert result.exit_code == 0, result.output
        after = {p.name: p.read_text() for p in (graded_class / "feedback").glob("*.md")}
    finally:
        (folder / "nobody").mkdir()
    assert after == {name: text for name, text in before.items() if name != "nobody.md"}
    again = ["batch", str(folder), "--lab", LAB, "--out", str(graded_class), "--resume", "--hidden-feedback", "scores"]
    result = CliRunner().invoke(main, again)
    assert result.exit_code == 0 and "graded now 0" in result.output, result.output
    worth = sum(t["max_points"] for t in _hidden(json.loads((graded_class / "reports" / "tuned.json").read_text())))
    assert f"You earned 0 of their {worth:g} points" in (graded_class / "feedback" / "tuned.md").read_text()


def test_scores_says_the_hidden_points_earned_and_nothing_else_of_them(graded_class):
    report = json.loads((graded_class / "reports" / "mutant.json").read_text())
    hidden = _hidden(report)
    text = feedback.graded(report, "mutant", hidden_feedback="scores")
    earned, worth = sum(t["points"] for t in hidden), sum(t["max_points"] for t in hidden)
    assert f"You earned {earned:g} of their {worth:g} points" in text
    assert f"your grade is {report['score']:g}/{report['max_score']:g}" in text
    assert not [t["id"] for t in hidden if t["id"] in text]
    assert _table(text) == _table(feedback.graded(report, "mutant"))


def test_a_bad_hidden_feedback_choice_is_refused_in_one_line(tmp_path):
    result = CliRunner().invoke(
        main, ["batch", str(tmp_path), "--lab", LAB, "--out", str(tmp_path / "o"), "--hidden-feedback", "all"]
    )
    assert result.exit_code == 2 and "--hidden-feedback" in result.output
    with pytest.raises(ValueError, match="hidden-feedback must be one of count, scores, full"):
        feedback.graded(handmade.report([]), "x", hidden_feedback="all")


HOSTILE = "<script>alert(1)</script> **bold** [link](http://x) | cell\n``` fence\n~~~\x1b[2J\rover\u202e\ud800"


def test_what_a_student_controls_is_escaped():
    tests = [
        handmade.test_row("test_a", "t1", "failed", 0, 2, message=HOSTILE, hint="`````" + HOSTILE),
        handmade.test_row("test_<b>", "t1", "passed", 1, 1),
    ]
    flag = {"code": "X1", "line": 1, "message": "import <os> ```"}
    report = handmade.report(tests, flags=[flag], implementation={"kind": "submission", "name": "<i>.py", "sha256": ""})
    text = feedback.graded(report, "<b>eve</b> `x` *")
    text.encode("utf-8")  # no lone surrogate left: the file can be written
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert "\\x1b[2J" in text and "\\u202e" in text and "\\ud800" in text  # shown as escapes
    table = _table(text)
    assert any("<script>alert(1)</script>" in line for line in table)  # shown as itself, inside the code block
    assert "hint: `````" in "\n".join(table)  # the fence is longer than the hint's run of backticks
    assert "Feedback for \\<b\\>eve\\</b\\> \\`x\\` \\*." in text
    outside = "\n".join(line for line in text.splitlines() if line not in table)
    assert "<" not in outside.replace("\\<", "")
    missing = {"student": "<img src=x onerror=alert(1)>", "lab": LAB, "status": "missing", "reason": "no `.py` | <b>"}
    said = feedback.not_graded(missing, "Odd <lab> & title")
    assert "<img" not in said.replace("\\<img", "") and "<b>" not in said and "<lab>" not in said
    assert "\\<img src=x onerror=alert(1)\\>" in said and "no \\`.py\\` \\| \\<b\\>" in said
    for record, said_md in (({"lab": LAB, "student": "<b>eve</b>"}, text), (missing, said)):
        page = feedback.as_html(said_md, record)
        assert _html_text(page) == said_md  # the same text, shown as itself
        assert "<script" not in page and "<img" not in page and "<b>" not in page and page.count("</pre>") == 1


# -- a fork's feedback: what a student of grader collect reads ----------------------------------------------


def _fork_record(status: str, reason: str, version: str = "on-time") -> dict:
    collected = {"version": version, "commit": "0126dbc708b1aa", "committed_at": "2026-12-02T10:00:00+00:00"}
    if version == "late":
        collected |= {"late_by_seconds": 36000, "late_by": "10:00:00"}
    key = "nina~late" if version == "late" else "nina"
    return {"student": "nina", "key": key, "lab": LAB, "status": status, "reason": reason, "collected": collected}


def test_a_forks_feedback_keeps_the_instructors_reasons_and_speaks_of_the_fork(graded_class):
    """A review read, in students' feedback, an accusation ('dates rewritten') before the instructor decided,
    the instructor's own paths in git's error, a late-only student told to hand in a file when their late work
    was graded, and late work's feedback that never said it was late work."""
    suspect = feedback.not_graded(
        _fork_record("suspect", "commit 9f09 is dated before its parent: dates rewritten"), "T"
    )
    assert "waiting for your instructor's review" in suspect and "rewritten" not in suspect and "9f09" not in suspect
    unreachable = feedback.not_graded(_fork_record("unreachable", "fatal: '/tmp/forks/nope' does not appear"), "T")
    assert "/tmp/forks" not in unreachable and "could not be fetched" in unreachable
    late_only = feedback.not_graded(_fork_record("late", "nothing committed before the deadline; late work: x"), "T")
    assert "`nina~late.md`" in late_only and "What to hand in" not in late_only and "notebook" not in late_only
    missing = feedback.not_graded(_fork_record("missing", "the fork has no labs/ch06/starter.py in commit 0126"), "T")
    assert "as committed to your fork" in missing and "notebook" not in missing
    report = json.loads((graded_class / "reports" / "tuned.json").read_text())
    late_work = feedback.for_record(_fork_record("graded", "", "late"), report, "T")
    assert "Feedback for nina's late work: commit 0126dbc708b1, 10:00:00 late." in late_work
    for status, words in (("suspect", "rewritten"), ("unreachable", "/tmp/forks")):
        entry = {"status": status, "reason": f"{words} here", "late_penalty": 0, "overrides": []}
        assert words not in lms.feedback(entry) and "not graded" in lms.feedback(entry)  # Moodle's column too

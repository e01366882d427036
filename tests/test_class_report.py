"""The class report (grader.batch.class_report, `grader report`): a real class graded by `grader batch`, its
OUT/report.html opened in headless Chromium, every section shown with its content, no console error, no
violation of the page's Content-Security-Policy, no script run by what students wrote.

The browser is driven with playwright (the `dev` extra) on the system's Chromium (/usr/bin/chromium, the
Makefile's `browser` target installs it; LABKIT_CHROMIUM names another): no browser is downloaded. Without
one the browser tests are skipped with the reason, except in CI (the variable CI set), where they fail.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader import labs
from grader.batch import class_report, gradebook
from grader.cli import main
from grader.report.page import CONTENT_SECURITY_POLICY
from tests import instructor
from tests.mutation import CH06_RENAMES, apply, catalogue, reference_source, renamed

LAB = "ch06"
SECTIONS = (
    "overview",
    "scores",
    "tasks",
    "tests",
    "failures",
    "below-full",
    "flagged",
    "similar",
    "not-graded",
    "late",
    "over-rounds",
    "final-grades",
)
HOSTILE = "</pre></td><script>alert(1)</script><img src=x onerror=alert(2)>"
HOSTILE_ID = "eve\"'<b>"  # a quote of each kind and a tag in a student's id (their file's name)


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory) -> Path:
    """ch06 graded by a real `grader batch`: an independent file with a hostile comment and its renamed copy, the
    other independent file, the reference with a bug (and an import the lab does not allow, never run: flagged),
    a student with a hostile id whose file fails to import with a hostile message, an empty file, one with no file."""
    root = tmp_path_factory.mktemp("class_report")
    folder = root / "class"
    folder.mkdir()
    original = f"# {HOSTILE}\n" + instructor.submission_text(LAB, "correct_functional")
    (folder / "orla.py").write_text(original, encoding="utf-8")
    (folder / "colm.py").write_text(renamed(original, CH06_RENAMES), encoding="utf-8")
    (folder / "ada.py").write_text(instructor.submission_text(LAB, "correct_alt_style"), encoding="utf-8")
    never_called = "\n\ndef _peek():\n    import os\n\n    return os.environ\n"  # flagged by the static scan
    (folder / "mia.py").write_text(apply(reference_source(LAB), catalogue(LAB)[0]) + never_called, encoding="utf-8")
    (folder / f"{HOSTILE_ID}.py").write_text(f"raise ValueError({HOSTILE!r})\n", encoding="utf-8")
    (folder / "blank.py").write_text("")  # invalid
    (folder / "nobody").mkdir()  # missing
    out = root / "out"
    result = CliRunner().invoke(main, ["batch", str(folder), "--lab", LAB, "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    return out


# -- the page, read as text ---------------------------------------------------------------------


def test_the_batch_writes_the_report_and_grader_report_writes_it_again(graded_class, tmp_path):
    page = (graded_class / "report.html").read_text(encoding="utf-8")
    for section in SECTIONS:
        assert re.search(rf'<section id="{section}">\s*<h2>', page), section
    (graded_class / "report.html").unlink()
    result = CliRunner().invoke(main, ["report", str(graded_class)])
    assert result.exit_code == 0, result.output
    assert (graded_class / "report.html").read_text(encoding="utf-8") == page  # from the folder's files alone
    result = CliRunner().invoke(main, ["merge", str(graded_class), "--lab", LAB, "--out", str(tmp_path / "merged")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "merged" / "report.html").read_text(encoding="utf-8") == page  # a merge writes the same


def test_the_page_needs_no_network_and_carries_no_script(graded_class):
    page = (graded_class / "report.html").read_text(encoding="utf-8")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">' in page
    assert "script-src" not in CONTENT_SECURITY_POLICY and "default-src 'none'" in CONTENT_SECURITY_POLICY
    assert "<script" not in page.lower() and "javascript:" not in page.lower()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page)  # nothing loaded from outside
    assert page.count("<svg") == 3  # the histogram, the tasks, the tests: inline
    assert html.escape(HOSTILE) in page and html.escape(HOSTILE_ID) in page


@pytest.mark.parametrize(
    "damage",
    [
        ("batch.json", "[]"),
        ("records/orla.json", "not json"),
        ("records/orla.json", "[1, 2]"),
        ("reports/orla.json", "{}"),
        ("reports/orla.json", "\xff"),
    ],
    ids=["batch-a-list", "record-not-json", "record-a-list", "report-empty", "report-not-utf8"],
)
def test_a_damaged_batch_folder_is_refused_in_one_line_by_report_export_and_merge(graded_class, tmp_path, damage):
    name, text = damage
    folder = tmp_path / "class"
    shutil.copytree(graded_class, folder)
    (folder / name).write_bytes(text.encode("latin-1"))
    roster = tmp_path / "roster.csv"
    roster.write_text("student\norla\n")
    for command in (
        ["report", str(folder)],
        ["export", str(folder), "--roster", str(roster), "--format", "csv"],
        ["merge", str(folder), "--lab", LAB, "--out", str(tmp_path / "merged")],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, (command, result.output, result.exception)
        assert "Traceback" not in result.output and name.split("/")[0] in result.output, (command, result.output)


@pytest.mark.parametrize("bad", ["missing", "not-a-batch", "a-file", "unfinished", "another-kit"])
def test_a_bad_folder_is_refused_in_one_line(tmp_path, bad):
    target = tmp_path / bad
    if bad == "not-a-batch":
        target.mkdir()
    elif bad == "a-file":
        target.write_text("x")
    elif bad in ("unfinished", "another-kit"):  # batch.json written, the class files not yet (or an old kit's)
        target.mkdir()
        (target / "batch.json").write_text(json.dumps({"lab": LAB}))
        if bad == "another-kit":
            (target / "summary.json").write_text(json.dumps({"schema": "labkit.batch-summary/1"}))
    result = CliRunner().invoke(main, ["report", str(target)])
    assert result.exit_code == 2 and result.output.strip().count("\n") == 0, result.output
    assert str(target) in result.output
    assert not (target / "report.html").exists() if target.is_dir() else True


def _late_folder() -> class_report.ClassFolder:
    summary = {
        "lab": LAB, "lab_title": "t <i>", "max_score": 10, "students": 1, "statuses": {"graded": 1},
        "statistics": {"students": 0, "left_out": {"untouched_starters": [], "not_graded": []}},
        "distribution": {"count": 0}, "tasks": [], "tests": [], "separating": [], "failure_patterns": [],
        "definitions": {}, "below_full": [], "not_graded": [], "flagged": [],
        "identical": {"same_file": [], "same_code": [], "untouched_starters": []},
        "collected": [{"student": "<u>zed</u>", "commit": "a" * 40, "committed_at": "", "late_commit": "b" * 40,
                       "late_by": "2 days", "late_score": "7"}],
    }  # fmt: skip
    return class_report.ClassFolder({}, summary, [], {})


def test_late_work_is_listed():
    page = class_report.render(_late_folder())
    section = page.split('<section id="late">')[1].split("</section>")[0]
    assert "&lt;u&gt;zed&lt;/u&gt;" in section and "b" * 12 in section and "2 days" in section
    assert "<u>" not in page and "<i>" not in page


# -- in a real browser --------------------------------------------------------------------------

CHROMIUM = os.environ.get("LABKIT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through playwright; skipped loudly without one, failed in CI."""
    problem = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        problem = "playwright is not installed (the dev extra: make dev)"
    if problem is None and not Path(CHROMIUM).is_file():
        problem = f"no Chromium at {CHROMIUM} (make browser installs Debian's chromium)"
    if problem:
        message = f"THE CLASS REPORT IS NOT TESTED IN A BROWSER: {problem}"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI must run it)")
        pytest.skip(message)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


class Opened:
    """A page opened from a file, with everything it said: console messages, uncaught errors, dialogs."""

    def __init__(self, browser, path: Path):
        self.console, self.errors, self.dialogs = [], [], []
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")

    def problems(self) -> list[str]:
        said = [m for m in self.console if m.startswith(("error", "warning"))]
        return said + self.errors + [f"dialog: {d}" for d in self.dialogs]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_report_shows_every_section_in_chromium(graded_class, browser, tmp_path):
    opened = Opened(browser, graded_class / "report.html")
    page = opened.page
    for section in SECTIONS:
        assert page.locator(f"section#{section}").is_visible(), section
        assert page.locator(f"section#{section} > h2").is_visible(), section
    for section in ("scores", "tasks", "tests"):  # the plots are drawn, with a size
        box = page.locator(f"section#{section} svg").bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100, (section, box)
    overview = page.locator("section#overview").inner_text()
    assert "ch06" in overview and "7 (" in overview and "mean, median" in overview
    tasks = page.locator("section#tasks table").inner_text()
    assert all(task.id in tasks for task in labs.get(LAB).tasks)
    tests = page.locator("section#tests table tbody tr")
    assert tests.count() > 10 and "%" in tests.first.inner_text()
    # the hostile id's file does not import: left out of each test's figures, and said so
    shown = page.locator("section#tests").inner_text()
    assert gradebook.FILES_LEFT_OUT in shown and "files that do not load: 1" in shown
    plot = page.locator("section#tests svg").text_content()  # the plot's words are text the page's fonts draw
    assert "pass rate (percent of the files that reach the test)" in plot
    assert "no index (every student alike, or the rest of the score)" in plot
    failures = page.locator("section#failures").inner_text()
    assert "mia" in failures and HOSTILE in failures  # example students, and the import failure as itself
    assert "mia" in page.locator("section#flagged").inner_text()

    similar = page.locator("section#similar")
    assert "colm, orla" in similar.locator("table").inner_text() and "ada" not in similar.locator("table").inner_text()
    pair = similar.locator(".pair").first
    assert pair.is_visible() and pair.locator("h4").all_inner_texts() == ["colm", "orla"]
    (found,) = json.loads((graded_class / "similarity.json").read_text())["pairs"]
    for column in (0, 1):
        matched = pair.locator("pre").nth(column).locator(".line.match")
        assert matched.count() > 50 and matched.first.is_visible()
        wanted = {n for first, last in found["lines"][column] for n in range(first, last + 1)}
        assert {int(n) for n in matched.locator(".no").all_inner_texts()} == wanted  # similarity.json's lines
        colour = matched.first.evaluate("e => getComputedStyle(e).backgroundColor")
        plain = pair.locator("pre").nth(column).locator(".line:not(.match)")
        assert plain.count() == 0 or colour != plain.first.evaluate("e => getComputedStyle(e).backgroundColor")
    records = {p.stem: json.loads(p.read_text()) for p in (graded_class / "records").glob("*.json")}
    not_graded = page.locator("section#not-graded tbody tr").all_inner_texts()
    for student, status in (("nobody", "missing"), ("blank", "invalid")):
        (row,) = [r for r in not_graded if r.startswith(student)]
        assert status in row and records[student]["reason"] in row
    assert "No late work" in page.locator("section#late").inner_text()
    assert "Not exported yet" in page.locator("section#final-grades").inner_text()

    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    width, height = _png_size(shot)
    assert width == 1280 and 2000 < height < 60000, (width, height)
    from matplotlib import image

    pixels = image.imread(str(shot))
    assert pixels.std() > 0.05 and (pixels[..., :3] < 0.5).mean() > 0.005  # not blank: text and plots drawn
    assert opened.problems() == []
    page.close()


def test_what_students_wrote_runs_nothing_in_chromium(graded_class, browser):
    opened = Opened(browser, graded_class / "report.html")
    page = opened.page
    assert page.locator("script").count() == 0 and page.locator("img").count() == 0
    assert page.get_by_text(HOSTILE_ID, exact=False).count() > 0  # the id shown as itself
    side = page.locator("section#similar .pair pre").first.inner_text()
    assert HOSTILE in side  # the comment, inside the file as the student wrote it
    assert opened.problems() == [] and opened.dialogs == []
    page.close()
    for student in ("orla", "nobody"):  # a feedback page: the .md's text, and nothing run
        opened = Opened(browser, graded_class / "feedback" / f"{student}.html")
        markdown = (graded_class / "feedback" / f"{student}.md").read_text(encoding="utf-8")
        assert opened.page.locator("pre#feedback").text_content() == markdown
        assert opened.page.locator("script").count() == 0 and opened.problems() == []
        opened.page.close()
    hostile = next((graded_class / "feedback").glob("eve*.html"))
    opened = Opened(browser, hostile)
    assert HOSTILE_ID in opened.page.locator("pre#feedback").text_content()
    assert opened.page.locator("script, img, b").count() == 0 and opened.problems() == []
    opened.page.close()


def test_marks_that_reorder_a_line_are_shown_as_escapes_in_chromium(browser, tmp_path):
    """A security review: an id `\\u202eecila` showed as "alice" and a message's `SPOOF \\u202e021/021` as
    "120/120 FOOPS", the kit's own words after it reversed too (the CSV, Markdown and terminal showed escapes)."""
    folder = tmp_path / "class"
    folder.mkdir()
    message = "score \u202e021/021"
    source = reference_source(LAB).replace(
        '        """Return tanh(self); its derivative is 1 - tanh(self) ** 2."""\n',
        '        """Return tanh(self); its derivative is 1 - tanh(self) ** 2."""\n'
        f"        raise ValueError({message!r})\n",
        1,
    )
    (folder / "\u202eecila.py").write_text(source, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(folder), "--lab", LAB, "--out", str(out)])
    assert result.exit_code == 0, result.output
    pages = [out / "report.html", *(out / "feedback").glob("*.html")]
    assert len(pages) == 2
    for path in pages:
        opened = Opened(browser, path)
        shown = opened.page.locator("body").inner_text()
        assert "\u202e" not in shown and "\\u202eecila" in shown, path.name
        if path.name == "report.html":
            assert "score \\u202e021/021" in shown
        assert opened.problems() == []
        opened.page.close()


def test_a_file_padded_to_the_size_limit_shows_its_matches_not_every_line(browser, tmp_path):
    """A security review: a renamed copy padded to 1 MiB with comment lines made report.html 29.5 MB (a span per
    line), which Chromium took 52 and 72 s to open. A long file shows its matched lines and a few around them
    (here 5,000 lines of padding: the page shows fewer lines than a long file may hold)."""
    folder = tmp_path / "class"
    folder.mkdir()
    original = instructor.submission_text(LAB, "correct_functional")
    (folder / "orla.py").write_text(original, encoding="utf-8")
    padding = "#\n" * (class_report.LINES_SHOWN + 3000)  # the review's had 516,000 such lines
    (folder / "colm.py").write_text(renamed(original, CH06_RENAMES) + padding, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(folder), "--lab", LAB, "--out", str(out)])
    assert result.exit_code == 0, result.output
    opened = Opened(browser, out / "report.html")
    pair = opened.page.locator("section#similar .pair").first
    assert pair.locator("h4").all_inner_texts() == ["colm", "orla"]
    colm = pair.locator("pre").first
    assert colm.locator(".line.match").count() > 50
    assert colm.locator(".line").count() <= class_report.LINES_SHOWN + 10  # matches, context and gaps: not 5,000
    assert "lines not shown" in colm.locator(".line.gap").last.inner_text()
    assert opened.problems() == []
    opened.page.close()


def test_the_checks_would_see_a_script_or_a_policy_violation(browser, tmp_path):
    """The control: a page with a script that the policy blocks, and one without the policy whose script runs."""
    from grader.report.page import html_page

    blocked = tmp_path / "blocked.html"
    blocked.write_text(html_page("x", "<script>alert(1)</script>"), encoding="utf-8")
    opened = Opened(browser, blocked)
    assert opened.dialogs == [] and any("Content Security Policy" in m for m in opened.problems())
    opened.page.close()
    ran = tmp_path / "ran.html"
    ran.write_text("<!DOCTYPE html><title>x</title><script>alert(1)</script>", encoding="utf-8")
    opened = Opened(browser, ran)
    assert opened.dialogs == ["1"]
    opened.page.close()


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def test_an_exports_late_penalties_and_overrides_show_in_chromium_until_the_grades_change(
    graded_class, browser, tmp_path
):
    """grader export writes the report again: its last section lists each late penalty and override with who and
    why; a regrade after it (grader batch --only) leaves the section saying the export is out of date."""
    out = _copy(graded_class, tmp_path / "out")
    classroom = _copy(graded_class.parent / "class", tmp_path / "class")
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "student,name,lms_id,section\n"
        + "".join(f"{s},{s.title()},{100 + i},A\n" for i, s in enumerate(["ada", "colm", "mia", "orla", "zoe"])),
        encoding="utf-8",
    )
    times = tmp_path / "times.csv"
    times.write_text("student,submitted_at\nmia,2026-12-03T01:00:00Z\nada,2026-12-01T20:00:00Z\n", encoding="utf-8")
    (out / "overrides.csv").write_text(
        "student,target,points,reason,who\norla,total,90,<b>copied</b> from colm: hearing of 2 December,dr &amp; co\n",
        encoding="utf-8",
    )
    export = [
        "export", str(out), "--format", "csv", "--roster", str(roster), "--late-per-day", "10",
        "--submission-times", str(times), "--due", "2026-12-01T23:59:00+00:00",
    ]  # fmt: skip
    result = CliRunner().invoke(main, export)
    assert result.exit_code == 0, result.output
    final = {e["student"]: e for e in json.loads((out / "final_grades.json").read_text())["students"]}
    assert final["mia"]["late_penalty"] > 0 and final["orla"]["final"] == 90 and final["zoe"]["status"] == "missing"

    opened = Opened(browser, out / "report.html")
    section = opened.page.locator("section#final-grades")
    assert section.is_visible()
    rows = {r.split("\t")[0]: r for r in section.locator("tbody tr").all_inner_texts()}
    assert sorted(rows) == ["mia", "orla"]  # ada was on time: not adjusted
    # 25 h 1 min late: two days begun, 20% of the score graded
    assert rows["mia"].split("\t")[1:4] == [
        f"{final['mia']['graded_score']:g}",
        "25:01:00",
        f"{final['mia']['graded_score'] * 0.2:g}",
    ]
    assert "<b>copied</b> from colm: hearing of 2 December; dr &amp; co" in rows["orla"] and "90" in rows["orla"]
    assert "changed since this export" not in section.inner_text() and opened.problems() == []
    assert opened.page.locator("section#final-grades b").count() == 0  # the reason shown as text
    opened.page.close()

    (classroom / "mia.py").write_text(reference_source(LAB), encoding="utf-8")  # fixed, and regraded
    result = CliRunner().invoke(main, ["batch", str(classroom), "--lab", LAB, "--out", str(out), "--only", "mia"])
    assert result.exit_code == 0, result.output
    opened = Opened(browser, out / "report.html")
    warning = opened.page.locator("section#final-grades .warning")
    assert warning.is_visible() and "run grader export again" in warning.inner_text()
    opened.page.close()


def test_earlier_rounds_show_the_class_over_time_in_chromium(graded_class, browser, tmp_path):
    """grader report OUT --round EARLIER: an earlier round of two students (a correct file, the starter) beside
    this one: its scores and the tests that changed, in a plot and tables; a round of another lab, or OUT itself,
    refused in one line."""
    early = tmp_path / "class-week1"
    early.mkdir()
    (early / "orla.py").write_text(instructor.submission_text(LAB, "correct_functional"), encoding="utf-8")
    (early / "mia.py").write_text(labs.get(LAB).starter.read_text(encoding="utf-8"), encoding="utf-8")
    first = tmp_path / "week1"
    result = CliRunner().invoke(main, ["batch", str(early), "--lab", LAB, "--out", str(first), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    out = _copy(graded_class, tmp_path / "week2")
    result = CliRunner().invoke(main, ["report", str(out), "--round", str(first)])
    assert result.exit_code == 0, result.output

    opened = Opened(browser, out / "report.html")
    section = opened.page.locator("section#over-rounds")
    box = section.locator("svg").bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100
    tables = section.locator("table")
    rounds = tables.nth(0).locator("tbody tr").all_inner_texts()
    earlier, now = (json.loads((folder / "summary.json").read_text())["distribution"] for folder in (first, out))
    assert [r.split("\t")[:3] for r in rounds] == [
        ["week1", str(earlier["count"]), f"{earlier['mean_percent']:g}%"],
        ["this round", str(now["count"]), f"{now['mean_percent']:g}%"],
    ]
    assert tables.nth(1).locator("thead th").all_inner_texts() == ["test", "week1", "this round"]
    assert tables.nth(1).locator("tbody tr").count() == class_report.ROUND_TESTS
    assert opened.problems() == []
    opened.page.close()

    other = _copy(first, tmp_path / "other-lab")
    summary = json.loads((other / "summary.json").read_text())
    (other / "summary.json").write_text(json.dumps({**summary, "lab": "lesson1_3"}))
    for rounds_given, wanted in (([other], "is a round of lab lesson1_3, not ch06"), ([out], "not an earlier round")):
        result = CliRunner().invoke(main, ["report", str(out), *(a for r in rounds_given for a in ("--round", str(r)))])
        assert result.exit_code == 2 and len(result.output.splitlines()) == 1 and wanted in result.output

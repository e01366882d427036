"""Shards that know themselves: what a batch folder records, and every refusal of `grader merge`,
on real folders that `grader batch --shard` wrote for a small class; and the example job array,
whose merge runs only on every shard.

The class, in id order: amy (the starter, graded), ben (nothing to grade), cat (an empty file),
dan (nothing to grade). Shard 1/2 is amy and cat, 2/2 ben and dan, 3/3 cat alone: only the
shards holding amy start a grading session, so each extra folder a test needs costs little.
"""

import csv
import hashlib
import io
import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from grader import __version__, labs
from grader.batch import outputs
from grader.batch.inputs import Entry
from grader.batch.shards import Shard
from grader.cli import main
from grader.kit import manifest
from grader.labs import KIT_ROOT

LAB = "ch06"
ROSTER = {"amy": "ok", "ben": "missing", "cat": "invalid", "dan": "missing"}


def _class(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "amy.py").write_text(labs.get(LAB).starter.read_text())
    (root / "ben").mkdir()
    (root / "cat.py").write_text("")
    (root / "dan").mkdir()
    return root


def _grader(*args) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output.splitlines()


def _shard(inputs: Path, out: Path, shard: str, lab: str = LAB) -> Path:
    status, output = _grader("batch", inputs, "--lab", lab, "--out", out, "--shard", shard, "--jobs", "1")
    assert status == 0, output
    return out


def _rows(out: Path) -> dict[str, dict]:
    rows = list(csv.DictReader(io.StringIO((out / "grades.csv").read_text())))
    assert len(rows) == len({r["student"] for r in rows})  # every student once
    return {r["student"]: r for r in rows}


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    """The class and its two shards' folders."""
    root = tmp_path_factory.mktemp("shards")
    inputs = _class(root / "class")
    return inputs, _shard(inputs, root / "shard1", "1/2"), _shard(inputs, root / "shard2", "2/2")


def test_each_shard_folder_says_which_shard_of_which_class_lab_and_kit(split):
    inputs, one, two = split
    about = {n: json.loads((folder / "batch.json").read_text()) for n, folder in ((1, one), (2, two))}
    assert about[1]["shard"] == {"index": 1, "count": 2} and about[2]["shard"] == {"index": 2, "count": 2}
    assert about[1]["lab"] == about[2]["lab"] == LAB
    # The whole class's roster in each, with the hash of every accepted file.
    assert about[1]["roster"] == about[2]["roster"]
    assert {s["student"]: s["status"] for s in about[1]["roster"]} == ROSTER
    amy = next(s for s in about[1]["roster"] if s["student"] == "amy")
    assert amy["sha256"] == hashlib.sha256((inputs / "amy.py").read_bytes()).hexdigest()
    # The kit: the one each record names, down to the manifest the version number alone would not tell.
    kit = about[1]["kit"]
    assert kit == about[2]["kit"] == json.loads((one / "records" / "amy.json").read_text())["kit"]
    assert kit["version"] == __version__
    assert kit["manifest_sha256"] == hashlib.sha256((KIT_ROOT / manifest.MANIFEST_RELPATH).read_bytes()).hexdigest()
    # Its own summary says it is not the whole class.
    assert json.loads((one / "summary.json").read_text())["shards"] == {
        "count": 2,
        "present": [1],
        "missing": [2],
        "unfinished": [],
    }
    assert "**Not the whole class**: shard 1/2 is here; shard 2/2 is missing." in (one / "summary.md").read_text()


def test_every_shard_merges_into_the_whole_class(split, tmp_path):
    _, one, two = split
    status, output = _grader("merge", two, one, "--lab", LAB, "--out", tmp_path / "all")
    assert status == 0, output
    assert output == [f"{LAB}: merged 4 students from 2 folders into {tmp_path / 'all'}"]
    assert {s: r["status"] for s, r in _rows(tmp_path / "all").items()} == {**ROSTER, "amy": "graded"}
    summary = json.loads((tmp_path / "all" / "summary.json").read_text())
    assert "shards" not in summary and "Not the whole class" not in (tmp_path / "all" / "summary.md").read_text()
    # The merged folder is the class in one (1/1): it merges, alone, again.
    status, output = _grader("merge", tmp_path / "all", "--lab", LAB, "--out", tmp_path / "again")
    assert status == 0, output
    assert (tmp_path / "again" / "grades.csv").read_text() == (tmp_path / "all" / "grades.csv").read_text()


def test_merge_refuses_a_missing_shard_and_writes_nothing(split, tmp_path):
    _, one, two = split
    status, output = _grader("merge", two, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (1, ["grader: error: shard 1/2 is missing: merge needs every shard, or --partial"])
    assert not (tmp_path / "m").exists()
    status, output = _grader("merge", one, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (1, ["grader: error: shard 2/2 is missing: merge needs every shard, or --partial"])


def test_a_partial_merge_lists_every_student_and_says_what_is_missing(split, tmp_path):
    _, _, two = split
    out = tmp_path / "partial"
    status, output = _grader("merge", two, "--lab", LAB, "--out", out, "--partial")
    assert status == 0, output
    assert output[1] == "partial: missing: shard 1/2; not graded: 2 students (see summary.md)"
    rows = _rows(out)
    assert {s: r["status"] for s, r in rows.items()} == {
        "amy": "shard-missing",
        "ben": "missing",
        "cat": "shard-missing",
        "dan": "missing",
    }
    assert rows["amy"]["reason"] == "shard 1/2 was not merged" and rows["amy"]["score"] == "0"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["shards"] == {"count": 2, "present": [2], "missing": [1], "unfinished": []}
    assert [r["student"] for r in summary["not_graded"]] == ["amy", "ben", "cat", "dan"]
    markdown = (out / "summary.md").read_text()
    assert "**Not the whole class**: shard 2/2 is here; shard 1/2 is missing." in markdown
    assert "| amy | shard-missing | shard 1/2 was not merged |" in markdown
    # A partial gradebook never passes for the class in a later merge.
    status, output = _grader("merge", out, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (1, [f"grader: error: {out} is a partial merge: merge the shards' own folders"])


def test_merge_refuses_a_shard_given_twice(split, tmp_path):
    _, one, two = split
    status, output = _grader("merge", one, two, one, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (1, [f"grader: error: shard 1/2 is given twice: {one} and {one}"])


def test_merge_refuses_shards_of_another_split(split, tmp_path):
    inputs, one, _ = split
    third = _shard(inputs, tmp_path / "third", "3/3")
    status, output = _grader("merge", one, third, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (
        1,
        [f"grader: error: {third} is shard 3/3 but {one} is shard 1/2: merge the shards of one split"],
    )


def test_merge_refuses_shards_graded_from_other_inputs(split, tmp_path):
    inputs, one, _ = split
    changed = tmp_path / "class"
    shutil.copytree(inputs, changed)
    (changed / "amy.py").write_text("x = 1\n")  # amy resubmitted between the two shards' runs
    other = _shard(changed, tmp_path / "other", "2/2")
    status, output = _grader("merge", one, other, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (
        1,
        [
            f"grader: error: {other} and {one} were graded from different inputs (1 with another file or status, "
            "e.g. 'amy'): grade every shard from the same submissions"
        ],
    )


def test_merge_refuses_shards_graded_under_other_limits(split, tmp_path):
    inputs, one, _ = split
    status, output = _grader(
        "batch", inputs, "--lab", LAB, "--out", tmp_path / "other", "--shard", "2/2", "--limit", "test_seconds=5"
    )
    assert status == 0, output
    status, output = _grader("merge", one, tmp_path / "other", "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (
        1,
        [
            f"grader: error: {tmp_path / 'other'} and {one} were graded under different limits "
            "(test_seconds 5 and 10): grade every shard with the same --limit"
        ],
    )
    assert not (tmp_path / "m" / "grades.csv").exists()


def test_merge_refuses_a_shard_of_another_lab(split, tmp_path):
    inputs, one, _ = split
    other = _shard(inputs, tmp_path / "other", "2/2", lab="lesson1_3")
    status, output = _grader("merge", one, other, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (1, [f"grader: error: {other} holds a batch of lab lesson1_3, not {LAB}"])


def test_merge_refuses_a_shard_graded_by_another_kit(split, tmp_path, monkeypatch):
    inputs, one, _ = split
    with monkeypatch.context() as patched:  # a kit whose files differ under the same version number
        patched.setattr(manifest, "fingerprint", lambda: "0" * 64)
        other = _shard(inputs, tmp_path / "other", "2/2")
    status, output = _grader("merge", one, other, "--lab", LAB, "--out", tmp_path / "m")
    assert status == 1 and len(output) == 1, output
    assert output[0].startswith(f"grader: error: {other} was graded by another kit (version {__version__}, tests ")
    assert "manifest 000000000000) than this one" in output[0]
    assert output[0].endswith("grade every shard and merge them with one kit")


def test_an_unfinished_shard_is_refused_or_listed_with_partial(split, tmp_path):
    _, one, two = split
    stopped = tmp_path / "stopped"
    shutil.copytree(one, stopped)
    (stopped / "records" / "amy.json").unlink()  # as a shard killed before amy's record leaves it
    status, output = _grader("merge", stopped, two, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (
        1,
        [
            f"grader: error: shard 1/2 in {stopped} is unfinished: 1 of its 2 students has no record; "
            "finish it with grader batch --resume, or merge with --partial"
        ],
    )
    status, output = _grader("merge", stopped, two, "--lab", LAB, "--out", tmp_path / "m", "--partial")
    assert status == 0, output
    rows = _rows(tmp_path / "m")
    assert rows["amy"]["status"] == "shard-unfinished" and rows["cat"]["status"] == "invalid"
    assert json.loads((tmp_path / "m" / "summary.json").read_text())["shards"]["unfinished"] == [1]


def test_a_folder_that_is_no_batch_is_a_usage_error(split, tmp_path):
    _, one, _ = split
    (tmp_path / "empty").mkdir()
    status, output = _grader("merge", one, tmp_path / "empty", "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (2, [f"grader: error: {tmp_path / 'empty'} is not a batch folder (no batch.json)"])


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("key", "../../../../escaped/OWNED", "its key is not its file's name"),
        ("key", "{tmp}/escaped/OWNED", "its key is not its file's name"),
        ("report", "../../../../etc/a.json", "its report is not its own"),
        ("score", "lots", "its score is not a number from 0 to its maximum"),
        ("score", 1e9, "its score is not a number from 0 to its maximum"),
    ],
)
def test_merge_refuses_a_shard_whose_record_claims_what_the_kit_never_writes(split, tmp_path, field, value, why):
    """A record is read back as a claim: its key names the files written for its student (a review's shard
    wrote feedback outside --out through it), its report the file read, its score a grade."""
    _, one, two = split
    forged = [shutil.copytree(shard, tmp_path / shard.name) for shard in (one, two)]
    path = next(
        p for shard in forged for p in sorted((shard / "records").glob("*.json")) if '"graded"' in p.read_text()
    )
    record = json.loads(path.read_text())
    record[field] = value.format(tmp=tmp_path) if type(value) is str else value
    path.write_text(json.dumps(record))
    status, output = _grader("merge", *forged, "--lab", LAB, "--out", tmp_path / "m")
    assert (status, output) == (
        2,
        [f"grader: error: {path} is not a student's record ({why}): {outputs.DAMAGED}"],
    )
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "m" / "grades.csv").exists()


def test_resume_refuses_to_turn_a_shard_into_another(split):
    inputs, _, two = split
    status, output = _grader("batch", inputs, "--lab", LAB, "--out", two, "--shard", "1/2", "--resume")
    assert (status, output) == (
        2,
        [f"grader: error: {two} holds shard 2/2, not 1/2: resume it with --shard 2/2, or choose another --out"],
    )


def test_the_example_job_array_merges_only_when_every_shard_succeeded():
    workflow = yaml.safe_load((KIT_ROOT / "examples" / "batch-matrix.yml").read_text())
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    grading = next(step for step in shard["steps"] if "make batch" in step.get("run", ""))
    assert grading["env"]["SHARD"] == "${{ matrix.shard }}/${{ strategy.job-total }}"  # N is the matrix's own size
    # What a dispatcher types reaches the scripts as a variable's value, never as script text.
    scripts = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    assert not [s for s in scripts if "inputs." in s], scripts
    assert merge["needs"] == "shard"
    # The merge job runs after a failed shard only to fail: its first step stops it unless every shard succeeded.
    # The shards' result reaches the script through the environment (zizmor: no expression in run:).
    guard = merge["steps"][0]
    assert guard["env"] == {"SHARDS": "${{ needs.shard.result }}"}
    assert guard["run"].splitlines()[0] == 'if [ "$SHARDS" != success ]; then'
    assert "exit 1" in guard["run"]
    commands = [step["run"] for step in merge["steps"] if "grader merge" in step.get("run", "")]
    assert len(commands) == 1 and "--partial" not in commands[0]
    # Nothing of the class on the run's page, which whoever reads the repository reads (a review found the
    # summary, every student's name and score and the hidden tests' names, appended to it)
    for script in scripts:
        for line in script.splitlines():
            if "GITHUB_STEP_SUMMARY" in line:
                assert not any(f in line for f in ("summary.md", "grades.csv", "cat ", "report")), line


def test_only_a_whole_class_is_exported_not_a_shard_nor_a_partial_merge(split, tmp_path):
    """A shard's folder, or a partial merge, holds the other shards' students as not graded: exported, they
    would read missing, or 0 (a review's finding: `grader export --missing-as-zero` of a partial merge gave
    full-mark files 0). Refused, with what to do; nothing written."""
    inputs, one, two = split
    roster = tmp_path / "roster.csv"
    roster.write_text("student\n" + "".join(f"{student}\n" for student in ROSTER))
    partial = tmp_path / "partial"
    assert _grader("merge", two, "--lab", LAB, "--out", partial, "--partial")[0] == 0
    for folder, held in ((one, "missing: shard 2/2"), (partial, "missing: shard 1/2")):
        before = sorted(p.name for p in folder.iterdir())
        status, output = _grader("export", folder, "--format", "csv", "--roster", roster, "--missing-as-zero")
        assert (status, output) == (
            2,
            [
                f"grader: error: {folder} holds part of the class only ({held}): merge every finished shard "
                "(grader merge, without --partial) and export the merge"
            ],
        )
        assert sorted(p.name for p in folder.iterdir()) == before
    whole = tmp_path / "whole"
    assert _grader("merge", one, two, "--lab", LAB, "--out", whole)[0] == 0
    status, output = _grader("export", whole, "--format", "csv", "--roster", roster, "--missing-as-zero")
    assert status == 0, output


def test_a_students_late_work_is_in_the_shard_of_their_submission():
    """Shards were counted by entry: bob's late work fell to another shard than bob's submission, so neither
    shard could choose the better of the two, --only bob regraded half of him, and a shard's summary counted
    other students than its console (a helper agent's review)."""
    entries = [Entry(s, "ok", version="on-time") for s in ("alice", "bob", "carol", "dave")]
    entries += [Entry(s, "ok", version="late") for s in ("bob", "carol")]
    halves = [Shard(i, 2).select(entries) for i in (1, 2)]
    assert sorted(e.key for half in halves for e in half) == sorted(e.key for e in entries)
    for half in halves:
        students = {e.student for e in half}
        assert len(students) == 2, students  # balanced by students, whatever their late work
        assert all(e.student in students for e in entries if e.version == "late" and e.student in students)
        assert {e.key for e in half} >= {f"{s}~late" for s in students if s in ("bob", "carol")}

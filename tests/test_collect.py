"""`grader collect`: students' forks at a deadline, from local bare repositories (file://), no network.

Each fork is a work repository whose commits have fixed author and committer dates, pushed to
a bare repository that offers blobless clones (uploadpack.allowFilter, as GitHub does). The
class: commits before and after the deadline, only late work, dates rewritten backwards, a
commit dated in the future, an unreachable URL, an empty repository, a 2 MiB starter, a fork
without the lab's file; then two collections with a force-push between them, a commit pushed
after the deadline with an earlier date, and `grader batch` on a collection, end to end.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import ssl
import subprocess
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.batch import git, history
from grader.batch.git import Commit
from grader.cli import main
from tests import processes
from tests.mutation import apply, catalogue, reference_source

assert git.git_version(), "git is not installed: the tests of grader collect need it (apt-get install git)"

LAB = "lesson1_3"
STARTER = f"labs/{LAB}/starter.py"
TOO_LARGE = (  # a file over intake's limit, in the words every way in says it
    f"{STARTER} is 2100 KiB, over the limit of 1024 KiB: hand in your code alone "
    "(a lab's file is a few tens of KiB; data or output pasted into it does not belong there)"
)
DEADLINE = "2026-11-20T23:59:00+00:00"
DEADLINE_S = int(datetime.fromisoformat(DEADLINE).timestamp())
HOUR = 3600


def _date(offset: int) -> str:
    """A git date ``offset`` seconds from the deadline."""
    return f"@{DEADLINE_S + offset} +0000"


def _git(*args, cwd: Path, date: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    done = subprocess.run(
        ["git", "-c", "user.name=Student", "-c", "user.email=s@example.org", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


class Fork:
    """A student's work repository and the bare repository it pushes to (the fork, as file://)."""

    def __init__(self, root: Path, name: str):
        self.work = root / "work" / name
        self.bare = root / "forks" / f"{name}.git"
        self.work.mkdir(parents=True)
        self.bare.mkdir(parents=True)
        _git("init", "--bare", "-q", cwd=self.bare)
        _git("config", "uploadpack.allowFilter", "true", cwd=self.bare)  # blobless clones, as GitHub allows
        _git("init", "-q", cwd=self.work)
        _git("remote", "add", "origin", str(self.bare), cwd=self.work)

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    def commit(self, offset: int, files: dict[str, str | bytes], *, amend: bool = False) -> str:
        """Commit ``files`` dated ``offset`` seconds from the deadline, push (forced), return the SHA."""
        for name, content in files.items():
            path = self.work / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        _git("add", "-A", cwd=self.work)
        _git(
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            f"work at {offset}",
            *["--amend"] * amend,
            cwd=self.work,
            date=_date(offset),
        )
        _git("push", "-q", "--force", "origin", "HEAD:main", cwd=self.work)
        return _git("rev-parse", "HEAD", cwd=self.work)


def _roster(path: Path, rows: list[tuple[str, str]], header: str = "student,url") -> Path:
    path.write_text(header + "\n" + "".join(f"{s},{u}\n" for s, u in rows))
    return path


def _grader(*args) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def _record(out: Path) -> dict[str, dict]:
    return {s["student"]: s for s in json.loads((out / "collection.json").read_text())["students"]}


CORRECT = reference_source(LAB)
FULL = 130  # lesson1_3's visible tests (100 points) and its hidden ones (30), which a batch grades
BUGGY = apply(CORRECT, catalogue(LAB)[0])


# -- the roster and the deadline: refused in one line, exit 2, nothing written ------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"student,url\nal\xe9,file:///x\n", "roster.csv is not UTF-8 text (byte 0xe9 at line 2)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "roster.csv is not UTF-8 text"),
        (b'student,url\n"alice,file:///x\n', "roster.csv, line 2: not a CSV file"),
        (b"name,email\nalice,a@x\n", "roster.csv, line 1: the header has no column for a student id"),
        (b"student,email\nalice,a@x\n", "roster.csv, line 1: the header has no column for a git URL"),
        (
            b"student,url\nalice,file:///a\nbob,file:///b\nalice,file:///c\n",
            "line 4: student 'alice' is already on line 2",
        ),
        (b"student,url\n,file:///a\n", "roster.csv, line 2: the student id is empty"),
        (b"student,url\nalice,\n", "roster.csv, line 2: student 'alice' has no git URL"),
        (
            b"student,url\nalice,http://example.org/a.git\n",
            "line 2: the URL 'http://example.org/a.git' of student 'alice' is not a git URL",
        ),
        (b"student,url\nalice,ext::sh -c touch% /tmp/pwned\n", "of student 'alice' is not a git URL"),
        (b"student,url\nalice,-oProxyCommand=touch /tmp/x:y\n", "starts with '-'"),
        (b"student,url\nalice,https://alice:ghp_secret@github.com/a/b\n", "holds a password or token"),
        (b"student,url\n", "roster.csv lists no student"),
        (b"", "roster.csv is empty"),
    ],
)
def test_a_bad_roster_is_refused_in_one_line_naming_the_line(tmp_path, content, message):
    roster = tmp_path / "roster.csv"
    roster.write_bytes(content)
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out")
    assert status == 2, output
    assert output.startswith("grader: error: ") and output.count("\n") == 1, output
    assert message in output
    assert not (tmp_path / "out").exists()


def test_the_roster_takes_a_spreadsheets_spellings_and_byte_order_mark(tmp_path):
    fork = Fork(tmp_path, "alice")
    fork.commit(-HOUR, {STARTER: CORRECT})
    roster = tmp_path / "roster.csv"
    roster.write_bytes(f"\ufeffName,GitHub Username,Repository URL\nAlice A,alice,{fork.url}\n\n".encode())
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out", "--lab", LAB)
    assert status == 0, output
    assert _record(tmp_path / "out")["alice"]["status"] == "on-time"


@pytest.mark.parametrize(
    ("deadline", "message"),
    [
        ("2026-11-20T23:59:00", "has no time zone"),
        ("2026-11-20T23:59", "write e.g. 2026-11-20T23:59:00+01:00, or 2026-11-20T23:59:00Z for UTC"),
        # a date alone was told to add the zone it had ('2026-11-20ZZ'), or one that was refused again
        ("2026-11-20", "'2026-11-20' has no time of day: write e.g. 2026-11-20T23:59:00+01:00"),
        ("2026-11-20Z", "has no time of day"),
        ("2026-11-20+01:00", "has no time of day"),
        ("next friday", "is not an ISO 8601 time"),
    ],
)
def test_a_deadline_without_its_offset_is_refused(tmp_path, deadline, message):
    roster = _roster(tmp_path / "roster.csv", [("alice", "file:///nowhere")])
    status, output = _grader("collect", roster, "--deadline", deadline, "--out", tmp_path / "out")
    assert status == 2 and message in output and output.count("\n") == 1, output


# -- which commits, and when history cannot be trusted: the pure rules ---------------------------------


def _chain(*offsets: int) -> list[Commit]:
    """A first-parent history, newest first, dated ``offsets`` from the deadline."""
    return [Commit(f"{i:040x}", DEADLINE_S + offset) for i, offset in enumerate(offsets, 1)]


NOW = DEADLINE_S + 30 * 24 * HOUR


def test_the_newest_commit_before_the_deadline_is_graded_and_the_head_is_late_work():
    chain = _chain(5 * HOUR, 2 * HOUR, -60, -HOUR)
    choice = history.choose(chain, DEADLINE_S, NOW, None, lambda sha: True)
    assert choice.on_time == chain[2] and choice.later == chain[:2] and choice.late == chain[0]
    assert not choice.suspect
    assert history.duration(choice.late.time - DEADLINE_S) == "5:00:00"
    assert history.duration(27 * HOUR + 61) == "27:01:01"  # hours past a day, as a spreadsheet reads them


def test_a_commit_exactly_at_the_deadline_is_on_time_and_only_late_work_is_late_not_missing():
    at = history.choose(_chain(0), DEADLINE_S, NOW, None, lambda sha: True)
    assert at.on_time is not None and at.late is None
    late = history.choose(_chain(2, 1), DEADLINE_S, NOW, None, lambda sha: True)
    assert late.on_time is None and late.late.time == DEADLINE_S + 2 and not late.suspect


@pytest.mark.parametrize(
    ("offsets", "earlier", "gone", "reason"),
    [
        ((-10, 2 * HOUR, -HOUR), None, set(), "is dated before the deadline but its parent"),  # dated back
        ((HOUR, -10, 2 * HOUR, -HOUR), None, set(), "2:00:00 after): dates rewritten"),  # further down the chain
        ((40 * 24 * HOUR, -HOUR), None, set(), "after this collection"),  # a clock set forward
        ((-HOUR,), history.Earlier((f"{9:040x}",), None, None), {f"{9:040x}"}, "no longer in the branch"),
        ((-HOUR, -2 * HOUR), history.Earlier((f"{2:040x}",), DEADLINE_S + HOUR, f"{2:040x}"), set(), "pushed after"),
        ((-HOUR,), history.Earlier((), DEADLINE_S + HOUR, None), set(), "pushed after the deadline"),
    ],
)
def test_history_git_can_tell_was_rewritten_is_suspect(offsets, earlier, gone, reason):
    choice = history.choose(_chain(*offsets), DEADLINE_S, NOW, earlier, lambda sha: sha not in gone)
    assert reason in choice.suspect


def test_dates_out_of_order_on_one_side_of_the_deadline_and_an_early_collection_are_not_suspect():
    honest = [
        (_chain(3 * HOUR, 5 * HOUR, -HOUR), None),  # a rebase after the deadline: both dates after it
        (_chain(-HOUR, -30, -2 * HOUR), None),  # before it
        # collected before the deadline, which graded the parent: new work before the deadline is fine
        (_chain(-60, -HOUR), history.Earlier((f"{2:040x}",), DEADLINE_S - 2 * 60, f"{2:040x}")),
        # collected after it: the same commit graded on time, late work added since
        (_chain(HOUR, -HOUR), history.Earlier((f"{2:040x}",), DEADLINE_S + 60, f"{2:040x}")),
    ]
    for chain, earlier in honest:
        assert not history.choose(chain, DEADLINE_S, NOW, earlier, lambda sha: True).suspect


# -- one collection of a whole class ------------------------------------------------------------------


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    root = tmp_path_factory.mktemp("collect")
    forks, shas = {}, {}
    for name in ("alice", "bob", "carol", "erin", "fay", "gus", "hank"):
        forks[name] = Fork(root, name)
    shas["alice"] = [
        forks["alice"].commit(-2 * HOUR, {STARTER: "draft = 1\n", "data.bin": os.urandom(3 << 20)}),
        forks["alice"].commit(-60, {STARTER: BUGGY}),
        forks["alice"].commit(90 * 60, {STARTER: CORRECT}),
        forks["alice"].commit(3 * HOUR, {"notes.md": "done\n"}),
    ]
    shas["bob"] = [forks["bob"].commit(26 * HOUR, {STARTER: CORRECT})]
    shas["carol"] = [
        forks["carol"].commit(5 * HOUR, {STARTER: BUGGY}),
        forks["carol"].commit(-HOUR, {STARTER: CORRECT}),
    ]
    # erin pushes nothing: an empty repository
    shas["fay"] = [forks["fay"].commit(-HOUR, {STARTER: "x = 1\n" * (350 << 10)})]  # 2.1 MiB
    shas["gus"] = [forks["gus"].commit(-HOUR, {"README.md": "my fork\n"})]
    shas["hank"] = [forks["hank"].commit(-HOUR, {STARTER: CORRECT}), forks["hank"].commit(400 * 24 * HOUR, {})]
    rows = [(name, fork.url) for name, fork in forks.items()] + [("dave", (root / "nowhere.git").as_uri())]
    roster = _roster(root / "roster.csv", rows)
    out = root / "collection"
    started = time.time()
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", out, "--jobs", "2")
    return root, forks, shas, out, status, output, time.time() - started


def test_each_student_is_collected_at_the_last_commit_before_the_deadline(collected):
    root, forks, shas, out, status, output, _ = collected
    assert status == 0, output
    record = json.loads((out / "collection.json").read_text())
    assert (
        record["deadline"] == DEADLINE and record["labs"] == ["ch06", "lesson1_3"] and record["roster"] == "roster.csv"
    )
    students = _record(out)
    alice = students["alice"]
    assert alice["status"] == "on-time" and alice["commit"] == shas["alice"][1]
    assert alice["committed_at"] == "2026-11-20T23:58:00+00:00"
    assert [c["commit"] for c in alice["later_commits"]] == [shas["alice"][3], shas["alice"][2]]
    assert alice["late"] == {
        "commit": shas["alice"][3],
        "committed_at": "2026-11-21T02:59:00+00:00",
        "late_by_seconds": 3 * HOUR,
        "late_by": "3:00:00",
    }
    files = out / record["files"]
    assert (files / "on-time" / "alice" / STARTER).read_text() == BUGGY  # the file as it stood at the deadline
    assert (files / "late" / "alice" / STARTER).read_text() == CORRECT  # at the latest commit
    assert not list(files.rglob("data.bin"))  # only the labs' files
    # The screen: a line per student, then what was collected and what to run next.
    assert "alice: on time at " + shas["alice"][1][:12] in output
    assert "next: grader batch " in output


def test_a_student_with_only_late_work_is_late_not_missing(collected):
    _, _, shas, out, *_ = collected
    bob = _record(out)["bob"]
    assert bob["status"] == "late" and bob["commit"] is None
    assert bob["late"]["commit"] == shas["bob"][0] and bob["late"]["late_by"] == "26:00:00"
    assert bob["versions"]["late"][STARTER]["size"] == len(CORRECT.encode())


def test_history_dated_back_across_the_deadline_or_into_the_future_is_suspect_and_not_collected(collected):
    _, _, shas, out, _, output, _ = collected
    students = _record(out)
    carol, hank = students["carol"], students["hank"]
    assert carol["status"] == "suspect" and carol["versions"] == {}
    assert carol["problem"] == (
        f"commit {shas['carol'][1][:12]} is dated before the deadline but its parent {shas['carol'][0][:12]} "
        "after it (5:00:00 after): dates rewritten"
    )
    assert carol["commit"] == shas["carol"][1]  # what would have been graded, for the instructor to decide
    assert hank["status"] == "suspect" and "after this collection" in hank["problem"]
    assert f"suspect, graded by nobody until you decide: carol: {carol['problem']}" in output
    files = out / json.loads((out / "collection.json").read_text())["files"]
    assert not (files / "on-time" / "carol").exists()


def test_an_unreachable_an_empty_and_a_forkless_student_get_a_status_and_a_reason(collected):
    _, _, _, out, status, _, _ = collected
    students = _record(out)
    assert status == 0
    assert students["dave"]["status"] == "unreachable"
    assert students["dave"]["problem"].startswith("git could not clone it: fatal: ")
    assert "does not appear to be a git repository" in students["dave"]["problem"]
    assert students["erin"]["status"] == "empty" and students["erin"]["problem"] == "the default branch has no commit"
    gus = students["gus"]
    assert gus["status"] == "missing"
    assert gus["problem"] == f"no labs/ch06/starter.py or labs/lesson1_3/starter.py in commit {gus['commit'][:12]}"


def test_a_huge_blob_is_measured_never_read(collected):
    _, _, shas, out, *_ = collected
    fay = _record(out)["fay"]
    info = fay["versions"]["on-time"][STARTER]
    assert info["size"] == len("x = 1\n" * (350 << 10)) == 2100 * 1024
    assert info["problem"] == TOO_LARGE
    files = out / json.loads((out / "collection.json").read_text())["files"]
    assert not (files / "on-time" / "fay").exists()


def test_the_clone_is_blobless_and_bare(collected, tmp_path):
    root, forks, shas, *_ = collected
    fork = git.Fork(forks["alice"].url, tmp_path / "clone", timeout=60)
    fork.clone()
    assert not (tmp_path / "clone" / "labs").exists() and (tmp_path / "clone" / "HEAD").is_file()  # no work tree
    size = sum(p.stat().st_size for p in (tmp_path / "clone").rglob("*") if p.is_file())
    assert size < 200_000, size  # every commit and tree, not alice's 3 MiB of data
    entry = fork.entry(shas["alice"][1], STARTER)
    assert fork.blob(entry.sha, fork.object_of(entry.sha, 1 << 20)[1]).decode() == BUGGY  # fetched alone, when asked
    assert [c.sha for c in fork.first_parent_history()] == shas["alice"][::-1]


def _files_over(folder: Path, size: int) -> list[tuple[str, int]]:
    return [(p.name, p.stat().st_size) for p in folder.rglob("*") if p.is_file() and p.stat().st_size > size]


def test_a_file_too_large_to_read_is_never_fetched_whole_the_kernel_stops_git(tmp_path):
    """A blob over the limit that does not compress: git's fetch of it is killed by the kernel (RLIMIT_FSIZE's
    SIGXFSZ) a little past the limit, so the clone never holds it; its record says it is too large."""
    fork = Fork(tmp_path, "ivy")
    sha = fork.commit(-HOUR, {STARTER: os.urandom(6 << 20)})
    clone = git.Fork(fork.url, tmp_path / "clone", timeout=60)
    clone.clone()
    entry = clone.entry(sha, STARTER)
    limit = 1 << 20
    assert clone.object_of(entry.sha, limit) is None
    left = list((tmp_path / "clone" / "objects" / "pack").glob("tmp_pack_*"))
    assert left and max(p.stat().st_size for p in left) <= limit + git.PACK_SLACK  # the write the kernel cut
    assert not _files_over(tmp_path / "clone", limit + git.PACK_SLACK)
    # Without the kernel's bound the same command fetches all 6 MiB: what the bound is for.
    assert clone.object_of(entry.sha, 64 << 20) == ("blob", 6 << 20)
    assert _files_over(tmp_path / "clone", 6 << 20)
    # The whole collection says so, in intake's words (no size: it was never read whole).
    roster = _roster(tmp_path / "roster.csv", [("ivy", fork.url)])
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out")
    assert status == 0, output
    info = _record(tmp_path / "out")["ivy"]["versions"]["on-time"][STARTER]
    assert info["size"] is None
    assert info["problem"] == TOO_LARGE.replace("2100 KiB, ", "")


def test_a_history_past_the_clones_bound_is_stopped_by_the_kernel(tmp_path, monkeypatch):
    """A fork whose clone would write more than CLONE_BYTES: git is killed at the bound, and the fork is
    unreachable with the reason (here a server that cannot filter, so the files come with the history)."""
    fork = Fork(tmp_path, "jo")
    _git("config", "uploadpack.allowFilter", "false", cwd=fork.bare)
    fork.commit(-HOUR, {STARTER: CORRECT, "data.bin": os.urandom(3 << 20)})
    monkeypatch.setattr(git, "CLONE_BYTES", 1 << 20)
    clone = git.Fork(fork.url, tmp_path / "clone", timeout=60)
    with pytest.raises(git.GitError, match=r"^git was stopped at 1 MiB fetching its history$"):
        clone.clone()
    monkeypatch.setattr(git, "CLONE_BYTES", 8 << 20)
    clone.clone()  # the same fork within a larger bound


def test_a_history_that_expands_past_gits_memory_bound_is_stopped_by_the_kernel(tmp_path, monkeypatch):
    """git holds a commit whole: a review's 17 KB fork expanded to a 4 GiB commit (4.2 GB in index-pack). Under
    the kernel's bound on git's memory (RLIMIT_DATA, lowered here to 32 MiB for a 64 MiB commit message) the
    allocation fails and the fork is unreachable with the reason; within the default bound the same fork clones."""
    fork = Fork(tmp_path, "kim")
    message = tmp_path / "message"
    message.write_bytes(b"a" * (64 << 20))
    (fork.work / "notes.md").write_text("x\n")
    _git("add", "-A", cwd=fork.work)
    _git("commit", "-q", "-F", str(message), cwd=fork.work, date=_date(-HOUR))
    _git("push", "-q", "origin", "HEAD:main", cwd=fork.work)
    monkeypatch.setattr(git, "GIT_MEMORY", 32 << 20)
    with pytest.raises(git.GitError, match=r"^git was stopped at 32 MiB of memory fetching its history$"):
        git.Fork(fork.url, tmp_path / "clone", timeout=60).clone()
    monkeypatch.undo()
    git.Fork(fork.url, tmp_path / "clone2", timeout=60).clone()


def _object(bare: Path, kind: str, data: bytes) -> str:
    done = subprocess.run(
        ["git", "hash-object", "-t", kind, "--literally", "-w", "--stdin"], cwd=bare, input=data, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


def _tree(bare: Path, *entries: tuple[str, str, str]) -> str:
    """A tree written as given (mode, name, object), in that order and unchecked: what a hostile fork can push."""
    return _object(bare, "tree", b"".join(f"{m} {n}".encode() + b"\0" + bytes.fromhex(sha) for m, n, sha in entries))


def _commit_tree(bare: Path, tree: str, offset: int) -> str:
    sha = _git("commit-tree", tree, "-m", "crafted", cwd=bare, date=_date(offset))
    _git("update-ref", "refs/heads/main", sha, cwd=bare)
    _git("symbolic-ref", "HEAD", "refs/heads/main", cwd=bare)
    return sha


def test_a_file_entry_naming_a_tag_or_behind_a_folder_named_twice_is_not_collected(tmp_path):
    """Two trees git itself never writes, which a review pushed: (1) the lab file's entry names a tag of a small
    blob (cat-file -s measured the tag, cat-file blob read the blob); (2) the root names labs/ twice, the lab file
    in the second, so that `git show COMMIT:PATH` (and the instructor's re-check) finds none. Neither is collected."""
    forks = {name: Fork(tmp_path, name) for name in ("tag", "dup")}
    tagged = forks["tag"].bare
    blob = _object(tagged, "blob", CORRECT.encode())
    tag = _object(tagged, "tag", f"object {blob}\ntype blob\ntag v1\ntagger S <s@e> 1700000000 +0000\n\nx\n".encode())
    ch06 = _tree(tagged, ("100644", "starter.py", tag))
    _commit_tree(tagged, _tree(tagged, ("40000", "labs", _tree(tagged, ("40000", LAB, ch06)))), -HOUR)
    doubled = forks["dup"].bare
    blob = _object(doubled, "blob", CORRECT.encode())
    hidden = _tree(doubled, ("40000", LAB, _tree(doubled, ("100644", "starter.py", blob))))
    shown = _tree(doubled, ("100644", "notes.md", _object(doubled, "blob", b"notes\n")))
    _commit_tree(doubled, _tree(doubled, ("40000", "labs", shown), ("40000", "labs", hidden)), -HOUR)
    roster = _roster(tmp_path / "roster.csv", [(n, f.url) for n, f in forks.items()])
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out")
    assert status == 0, output
    students = _record(tmp_path / "out")
    files = tmp_path / "out" / json.loads((tmp_path / "out" / "collection.json").read_text())["files"]
    for name, problem in (
        ("tag", "is a tag object, not a file's content"),
        ("dup", "is not the file git shows at that path: not collected"),
    ):
        info = students[name]["versions"]["on-time"][STARTER]
        assert info["problem"] == f"{STARTER} in commit {students[name]['commit'][:12]} {problem}", name
        assert not (files / "on-time" / name).exists()


def test_a_fork_collected_empty_after_the_deadline_then_showing_earlier_work_is_suspect(tmp_path):
    """A review's fork aimed HEAD at a branch that does not exist, with its work on main, for the collection at
    the deadline (empty), then aimed it at main: work dated before the deadline that the collection after the
    deadline did not see is suspect, as a backdated push is on a fork that was read."""
    deadline = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=1)
    shift = int(deadline.timestamp()) - DEADLINE_S
    fork = Fork(tmp_path, "eve")
    work = fork.commit(shift - HOUR, {STARTER: CORRECT})
    _git("symbolic-ref", "HEAD", "refs/heads/elsewhere", cwd=fork.bare)
    roster = _roster(tmp_path / "roster.csv", [("eve", fork.url)])
    out = tmp_path / "out"

    def collect() -> dict:
        status, output = _grader("collect", roster, "--deadline", deadline.isoformat(), "--out", out)
        assert status == 0, output
        return _record(out)["eve"]

    assert collect()["status"] == "empty"
    _git("symbolic-ref", "HEAD", "refs/heads/main", cwd=fork.bare)
    time.sleep(1.1)  # a later second: the collections' folders of files are told apart by their time
    eve = collect()
    assert eve["status"] == "suspect" and eve["commit"] == work
    assert eve["problem"] == (
        f"commit {work[:12]} is dated before the deadline but was not there when the fork was collected after it "
        "(which graded nothing): pushed after the deadline"
    )


def test_no_hook_of_the_instructors_configuration_runs(tmp_path, monkeypatch):
    hooks, marker = tmp_path / "hooks", tmp_path / "hook-ran"
    hooks.mkdir()
    for name in ("reference-transaction", "post-checkout"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / name).chmod(0o755)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n")
    fork = Fork(tmp_path, "alice")
    fork.commit(-HOUR, {STARTER: CORRECT})
    marker.unlink(missing_ok=True)  # the student's own commits ran it
    subprocess.run(["git", "clone", "-q", "--bare", fork.url, str(tmp_path / "plain")], check=True)
    assert marker.exists()  # a plain clone runs the hook: the check below can fail
    marker.unlink()
    roster = _roster(tmp_path / "roster.csv", [("alice", fork.url)])
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out")
    assert status == 0 and _record(tmp_path / "out")["alice"]["status"] == "on-time", output
    assert not marker.exists()


def _https_server(tmp_path: Path) -> tuple[HTTPServer, Path]:
    """An https server on this machine that asks for a password, with a certificate git is told to trust."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )

    class AskForPassword(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="fork"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), AskForPassword)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, cert


def test_a_fork_that_asks_for_a_password_fails_at_once_without_prompting(tmp_path, monkeypatch):
    server, cert = _https_server(tmp_path)
    asked = tmp_path / "asked"
    askpass = tmp_path / "askpass"
    askpass.write_text(f"#!/bin/sh\ntouch {asked}\necho secret\n")  # what a desktop's password window does
    askpass.chmod(0o755)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_ASKPASS", str(askpass))
    monkeypatch.setenv("SSH_ASKPASS", str(askpass))
    (tmp_path / ".gitconfig").write_text(f"[http]\n\tsslCAInfo = {cert}\n")
    url = f"https://127.0.0.1:{server.server_port}/alice/labkit.git"
    roster = _roster(tmp_path / "roster.csv", [("alice", url)])
    try:
        started = time.monotonic()
        status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out")
        elapsed = time.monotonic() - started
    finally:
        server.shutdown()
    assert status == 0, output
    alice = _record(tmp_path / "out")["alice"]
    assert alice["status"] == "unreachable"
    assert "terminal prompts disabled" in alice["problem"], alice["problem"]
    assert not asked.exists() and elapsed < 20


# -- two collections: at the deadline, then later -----------------------------------------------------


def test_a_commit_dated_beyond_any_calendar_makes_its_student_suspect_and_the_class_is_collected(tmp_path):
    """Git takes any 64-bit time for a commit; a review's fork dated one in the year 3,170,843 (written with
    `git hash-object --literally`, which fsck accepts) and the whole collection stopped on it."""
    forks = {name: Fork(tmp_path, name) for name in ("amy", "ben")}
    on_time = {name: fork.commit(-HOUR, {STARTER: CORRECT}) for name, fork in forks.items()}
    ben = forks["ben"]
    tree = _git("rev-parse", "HEAD^{tree}", cwd=ben.work)
    stamp = "Student <s@example.org> 99999999999999 +0000"
    commit = f"tree {tree}\nparent {on_time['ben']}\nauthor {stamp}\ncommitter {stamp}\n\nfrom the future\n"
    path = tmp_path / "commit.txt"
    path.write_text(commit)
    future = _git("hash-object", "-t", "commit", "-w", "--literally", str(path), cwd=ben.work)
    _git("push", "-q", "--force", "origin", f"{future}:refs/heads/main", cwd=ben.work)
    roster = _roster(tmp_path / "roster.csv", [(n, f.url) for n, f in forks.items()])
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out")
    assert status == 0, output
    students = _record(tmp_path / "out")
    assert students["amy"]["status"] == "on-time" and students["amy"]["commit"] == on_time["amy"]
    assert students["ben"]["status"] == "suspect" and "after this collection" in students["ben"]["problem"]
    assert students["ben"]["later_commits"] == [{"commit": future, "committed_at": "9999-12-31T23:59:59+00:00"}]


def test_a_force_push_or_a_backdated_push_between_two_collections_is_suspect(tmp_path):
    # The first collection runs just after the deadline; the second, later, sees what changed since.
    deadline = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=1)
    shift = int(deadline.timestamp()) - DEADLINE_S  # Fork.commit dates from the module's DEADLINE
    forks = {name: Fork(tmp_path, name) for name in ("amy", "ben", "cy")}
    first = {}
    for name, fork in forks.items():
        fork.commit(shift - 2 * HOUR, {STARTER: BUGGY})
        first[name] = fork.commit(shift - HOUR, {STARTER: CORRECT})
    roster = _roster(tmp_path / "roster.csv", [(n, f.url) for n, f in forks.items()])
    out = tmp_path / "out"

    def collect() -> dict[str, dict]:
        status, output = _grader("collect", roster, "--deadline", deadline.isoformat(), "--out", out)
        assert status == 0, output
        return _record(out)

    assert {s: r["commit"] for s, r in collect().items()} == first
    earlier_files = json.loads((out / "collection.json").read_text())["files"]
    # amy rewrites the commit she was collected at, keeping its date, and force-pushes
    forks["amy"].commit(shift - HOUR, {STARTER: BUGGY + "# better\n"}, amend=True)
    # ben adds a commit dated before the deadline, after the deadline: a clock set back
    backdated = forks["ben"].commit(shift - 60, {STARTER: CORRECT + "# late fix\n"})
    # cy adds late work, honestly dated
    late = forks["cy"].commit(shift + 30, {STARTER: CORRECT + "# more\n"})
    time.sleep(1.1)  # a later second: the collections' folders of files are told apart by their time
    students = collect()
    assert students["amy"]["status"] == "suspect"
    assert students["amy"]["problem"] == (
        f"commit {first['amy'][:12]}, collected earlier, is no longer in the branch: history rewritten since"
    )
    assert students["ben"]["status"] == "suspect" and students["ben"]["commit"] == backdated
    assert students["ben"]["problem"] == (
        f"commit {backdated[:12]} is dated before the deadline but was not there when the fork was collected "
        f"after it (which graded {first['ben'][:12]}): pushed after the deadline"
    )
    assert students["cy"]["status"] == "on-time" and students["cy"]["commit"] == first["cy"]
    assert students["cy"]["late"]["commit"] == late and students["cy"]["earlier_commits"] == [first["cy"]]
    record = json.loads((out / "collection.json").read_text())
    assert len(record["earlier"]) == 1 and not (out / earlier_files).exists()  # the first one's files are gone
    # A third collection: suspect stays suspect until the instructor decides; cy's late work is no suspect.
    time.sleep(1.1)
    students = collect()
    assert [students[s]["status"] for s in ("amy", "ben", "cy")] == ["suspect", "suspect", "on-time"]
    assert students["cy"]["earlier_commits"] == [first["cy"], late]


def test_what_an_earlier_collection_saw_outlives_a_new_url_an_id_in_other_case_and_an_unreachable_run(tmp_path):
    """A review laundered a rewritten or backdated fork three ways: the roster's URL spelt otherwise (a trailing
    slash), the student's id in other case, and a collection that could not reach the fork (made private for a
    while). Each is still told apart from honest work by what the first collection saw."""
    deadline = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(minutes=1)
    shift = int(deadline.timestamp()) - DEADLINE_S
    forks = {name: Fork(tmp_path, name) for name in ("amy", "ben", "cy")}
    first = {name: fork.commit(shift - HOUR, {STARTER: CORRECT}) for name, fork in forks.items()}
    out = tmp_path / "out"

    def collect(rows) -> dict[str, dict]:
        roster = _roster(tmp_path / "roster.csv", rows)
        status, output = _grader("collect", roster, "--deadline", deadline.isoformat(), "--out", out)
        assert status == 0, output
        time.sleep(1.1)  # the next collection's folder of files gets a later second
        return _record(out)

    collect([(n, f.url) for n, f in forks.items()])
    forks["amy"].commit(shift - HOUR, {STARTER: BUGGY}, amend=True)  # rewritten and force-pushed
    forks["ben"].commit(shift - HOUR, {STARTER: BUGGY}, amend=True)
    backdated = forks["cy"].commit(shift - 60, {STARTER: CORRECT + "# late fix\n"})  # pushed after the deadline
    hidden = forks["cy"].bare.with_name("cy-private.git")
    forks["cy"].bare.rename(hidden)
    students = collect([("amy", forks["amy"].url + "/"), ("Ben", forks["ben"].url), ("cy", forks["cy"].url)])
    assert students["amy"]["status"] == "suspect", students["amy"]
    assert students["amy"]["problem"] == (
        f"commit {first['amy'][:12]}, collected earlier, is no longer in the branch: history rewritten since"
        f" (the roster's URL was {forks['amy'].url} then)"
    )
    assert students["Ben"]["status"] == "suspect" and "no longer in the branch" in students["Ben"]["problem"]
    assert students["cy"]["status"] == "unreachable"
    hidden.rename(forks["cy"].bare)
    students = collect([("amy", forks["amy"].url), ("ben", forks["ben"].url), ("cy", forks["cy"].url)])
    assert [students[s]["status"] for s in ("amy", "ben", "cy")] == ["suspect"] * 3
    assert students["cy"]["commit"] == backdated and students["cy"]["problem"] == (
        f"commit {backdated[:12]} is dated before the deadline but was not there when the fork was collected "
        f"after it (which graded {first['cy'][:12]}): pushed after the deadline"
    )
    assert "last_read" not in students["cy"]  # read again: the record is the reading now


def test_a_folder_that_holds_something_else_or_another_deadline_is_refused(tmp_path):
    fork = Fork(tmp_path, "alice")
    fork.commit(-HOUR, {STARTER: CORRECT})
    roster = _roster(tmp_path / "roster.csv", [("alice", fork.url)])
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "thesis.tex").write_text("x")
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "busy")
    assert status == 2 and "is not empty and holds no collection" in output
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out")
    assert status == 0, output
    status, output = _grader("collect", roster, "--deadline", "2026-11-27T23:59:00Z", "--out", tmp_path / "out")
    assert status == 2 and f"holds a collection for the deadline {DEADLINE}, not 2026-11-27T23:59:00+00:00" in output


def test_the_per_fork_timeout_stops_git_and_everything_it_started(tmp_path, monkeypatch):
    pid = tmp_path / "ssh.pid"
    ssh = tmp_path / "slow-ssh"
    ssh.write_text(f"#!/bin/sh\necho $$ > {pid}\nexec sleep 60\n")  # a server that never answers
    ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    roster = _roster(tmp_path / "roster.csv", [("alice", "ssh://git@example.org/alice/labkit.git")])
    started = time.monotonic()
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out", "--timeout", "1")
    assert status == 0, output
    assert time.monotonic() - started < 10
    alice = _record(tmp_path / "out")["alice"]
    assert alice["status"] == "unreachable"
    assert alice["problem"] == "git could not clone it: git took longer than 1 s for this fork"
    assert not processes.alive(pid.read_text().strip())  # the ssh git started was killed with it


def test_an_interrupted_collection_records_nothing_and_leaves_no_git_running(tmp_path):
    _interrupt_a_collection(tmp_path, processes.to_the_process)


def test_a_ctrl_c_the_kernel_gives_another_thread_interrupts_the_collection_all_the_same(tmp_path):
    """Blocked in a wait without a timeout, the main thread waited for the clones' ssh (grader.awake)."""
    _interrupt_a_collection(tmp_path, processes.to_another_thread)


def _interrupt_a_collection(tmp_path, interrupt):
    pids = tmp_path / "pids"
    pids.mkdir()
    ssh = tmp_path / "slow-ssh"
    ssh.write_text(f"#!/bin/sh\necho $$ > {pids}/$$\nexec sleep 60\n")
    ssh.chmod(0o755)
    roster = _roster(tmp_path / "roster.csv", [(n, f"ssh://git@example.org/{n}.git") for n in ("amy", "ben", "cy")])
    out = tmp_path / "out"
    args = ["collect", str(roster), "--deadline", DEADLINE, "--out", str(out), "--jobs", "2"]
    process = processes.start(args, env={**os.environ, "GIT_SSH_COMMAND": str(ssh)})
    for _ in range(200):
        if len(list(pids.iterdir())) == 2:  # two forks being cloned
            break
        time.sleep(0.05)
    interrupt(process)
    _, errors = process.communicate(timeout=30)
    assert process.returncode == 130, errors
    assert errors.splitlines()[-1] == f"interrupted: nothing recorded; {out} holds what it held before"
    assert not (out / "collection.json").exists() and not list(out.glob("files-*"))
    started = [p.name for p in pids.iterdir()]
    assert len(started) == 2  # the third fork was never started
    assert not [pid for pid in started if processes.alive(pid)]


def test_a_git_command_started_as_the_collection_is_interrupted_is_killed_too(tmp_path, monkeypatch):
    # The interrupt lands after a collecting thread found the collection running and before the git it
    # then starts is registered: stop_all cannot see that git, which must still not outlive the run.
    pids = tmp_path / "pids"
    pids.mkdir()
    ssh = tmp_path / "slow-ssh"
    ssh.write_text(f"#!/bin/sh\necho $$ > {pids}/$$\nexec sleep 60\n")
    ssh.chmod(0o755)
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh))
    stop = threading.Event()
    fork = git.Fork("ssh://git@example.org/amy.git", tmp_path / "clone", timeout=30, stop=stop)
    start = subprocess.Popen

    def interrupted_meanwhile(*args, **kwargs):
        stop.set()
        git.stop_all()
        return start(*args, **kwargs)

    monkeypatch.setattr(git.subprocess, "Popen", interrupted_meanwhile)
    started = time.monotonic()
    with pytest.raises(git.GitError, match="interrupted"):
        fork.clone()
    assert time.monotonic() - started < 10  # not the 30 s of the fork's time limit
    assert not [pid.name for pid in pids.iterdir() if processes.alive(pid.name)]


# -- collect, then batch ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graded(collected, tmp_path_factory):
    root, _, _, out, *_ = collected
    grades = tmp_path_factory.mktemp("grades") / "out"
    status, output = _grader("batch", out, "--lab", LAB, "--out", grades, "--jobs", "2")
    assert status == 0, output
    return out, grades


def _rows(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader(io.StringIO((out / "grades.csv").read_text()))}


def test_batch_grades_a_collection_with_the_commit_and_the_late_work_in_each_row(collected, graded):
    _, _, shas, *_ = collected
    _, grades = graded
    rows = _rows(grades)
    assert sorted(rows) == ["alice", "bob", "carol", "dave", "erin", "fay", "gus", "hank"]  # one row each
    alice, bob = rows["alice"], rows["bob"]
    assert alice["status"] == "graded" and float(alice["score"]) < FULL  # the buggy file, on time
    assert alice["commit"] == shas["alice"][1] and alice["committed_at"] == "2026-11-20T23:58:00+00:00"
    assert alice["late_commit"] == shas["alice"][3] and alice["late_by"] == "3:00:00"
    assert alice["late_score"] == str(FULL)  # the correct file, late: the hidden tests graded too
    assert bob["status"] == "late" and bob["score"] == "0" and bob["commit"] == ""
    assert bob["late_commit"] == shas["bob"][0] and bob["late_by"] == "26:00:00" and bob["late_score"] == str(FULL)
    assert (
        bob["reason"]
        == f"nothing committed before the deadline; late work: commit {shas['bob'][0][:12]}, 26:00:00 late"
    )
    assert rows["carol"]["status"] == "suspect" and "dates rewritten" in rows["carol"]["reason"]
    assert rows["carol"]["commit"] == shas["carol"][1]
    assert rows["dave"]["status"] == "unreachable" and rows["erin"]["status"] == "empty"
    assert rows["fay"]["status"] == "invalid" and rows["fay"]["reason"] == TOO_LARGE
    assert rows["gus"]["status"] == "missing"


def test_each_record_and_the_summary_carry_the_commit(collected, graded):
    _, _, shas, *_ = collected
    _, grades = graded
    record = json.loads((grades / "records" / "alice.json").read_text())
    assert record["collected"] == {
        "version": "on-time",
        "commit": shas["alice"][1],
        "committed_at": "2026-11-20T23:58:00+00:00",
    }
    late = json.loads((grades / "records" / "alice~late.json").read_text())
    assert late["collected"]["commit"] == shas["alice"][3] and late["score"] == FULL
    report = json.loads((grades / "reports" / "alice~late.json").read_text())
    assert report["score"] == FULL and {t["tier"] for t in report["tests"]} == {"visible", "hidden"}
    summary = json.loads((grades / "summary.json").read_text())
    assert summary["students"] == 8
    assert summary["statuses"] == {
        "empty": 1,
        "graded": 1,
        "invalid": 1,
        "late": 1,
        "missing": 1,
        "suspect": 2,
        "unreachable": 1,
    }
    assert summary["distribution"]["count"] == 1  # alice's on-time file; late work stays out of the statistics
    # A security review: late work was compared with no one's, when a classmate's finished file is easiest to
    # copy. It is compared with everyone's under its own name (alice's and bob's late work: the same file).
    assert summary["identical"]["same_file"] == [["alice (late work)", "bob (late work)"]]
    by_student = {r["student"]: r for r in summary["collected"]}
    assert by_student["bob"]["late_commit"] == shas["bob"][0]
    markdown = (grades / "summary.md").read_text()
    assert "## Late work" in markdown
    assert f"| alice | `{shas['alice'][1][:12]}` | `{shas['alice'][3][:12]}` | 3:00:00 | {FULL} |" in markdown
    assert f"| bob | nothing | `{shas['bob'][0][:12]}` | 26:00:00 | {FULL} |" in markdown


def test_a_collection_resumes_and_merges_from_shards_as_one_run(collected, graded, tmp_path):
    out, grades = graded
    status, output = _grader("batch", out, "--lab", LAB, "--out", grades, "--resume")
    assert status == 0 and "graded now 0, up to date 3" in output, output
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, shard in ((one, "1/2"), (two, "2/2")):
        status, output = _grader("batch", out, "--lab", LAB, "--out", folder, "--shard", shard, "--jobs", "1")
        assert status == 0, output
    status, output = _grader("merge", one, two, "--lab", LAB, "--out", tmp_path / "all")
    assert status == 0, output
    assert (tmp_path / "all" / "grades.csv").read_text() == (grades / "grades.csv").read_text()
    assert (tmp_path / "all" / "summary.md").read_text() == (grades / "summary.md").read_text()


def test_a_collected_file_changed_since_or_another_lab_is_refused(collected, tmp_path):
    _, _, shas, out, *_ = collected
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    files = copy / json.loads((copy / "collection.json").read_text())["files"]
    (files / "on-time" / "alice" / STARTER).write_text(CORRECT)  # someone "fixes" alice's file by hand
    status, output = _grader("batch", copy, "--lab", LAB, "--out", tmp_path / "grades", "--jobs", "1")
    assert status == 0, output
    alice = _rows(tmp_path / "grades")["alice"]
    assert alice["status"] == "invalid"
    assert alice["reason"] == (
        f"{files.name}/on-time/alice/{STARTER} is not the file collected from commit {shas['alice'][1][:12]} "
        "(its sha256 differs): collect again"
    )
    only = tmp_path / "only"
    fork_root = tmp_path / "f"
    fork = Fork(fork_root, "zed")
    fork.commit(-HOUR, {STARTER: CORRECT})
    roster = _roster(tmp_path / "roster.csv", [("zed", fork.url)])
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", only, "--lab", LAB)
    assert status == 0, output
    status, output = _grader("batch", only, "--lab", "ch06", "--out", tmp_path / "g2")
    assert status == 2
    assert "is a collection of lab lesson1_3's files, not ch06's: collect again with --lab ch06" in output


def test_a_timeout_that_is_not_a_number_of_seconds_is_refused(tmp_path):
    """click's FloatRange let nan through, and every fork became unreachable ('longer than nan s'): a review."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student,url\nada,https://github.com/ada/labs\n")
    for bad in ("nan", "0", "inf"):
        status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", tmp_path / "out", "--timeout", bad)
        assert status == 2 and "--timeout" in output, output
    assert not (tmp_path / "out").exists()


def test_a_message_about_a_forks_file_names_it_as_the_fork_holds_it(tmp_path):
    """A fork's file that is not UTF-8 was reported as files-<time>/on-time/<id>/labs/.../starter.py, the
    collection's own folder, in the student's feedback (a helper agent's review)."""
    fork = Fork(tmp_path, "omar")
    fork.commit(-60, {STARTER: b"x = '\xe9'\n"})
    roster = _roster(tmp_path / "roster.csv", [("omar", fork.url)])
    collection, grades = tmp_path / "collection", tmp_path / "grades"
    status, output = _grader("collect", roster, "--deadline", DEADLINE, "--out", collection, "--lab", LAB)
    assert status == 0, output
    status, output = _grader("batch", collection, "--lab", LAB, "--out", grades, "--similarity-threshold", "off")
    assert status == 0, output
    record = json.loads((grades / "records" / "omar.json").read_text())
    assert record["status"] == "invalid" and record["reason"].startswith(f"{STARTER} is not UTF-8"), record
    said = (grades / "feedback" / "omar.md").read_text()
    assert "files-" not in said and "as committed to your fork" in said

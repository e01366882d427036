"""The wall's boundary is the kernel's: hostile files try, for real, what the sandbox must refuse.

``tests/attacks/kernel_probe.py`` runs with the worker's Python guards turned off, so each
refusal it reports (an errno) came from the kernel: the read-only mounts, the missing
paths, the unprivileged uid, seccomp. ``tests/attacks/guard_bypass.py`` disarms the guards
itself, as a security review did, and meets the kernel all the same. The kit's tests run
at the bubblewrap level or fail: a sandbox that silently fell back to a weaker level would
make every other check here meaningless.
"""

import ast
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader import labs
from grader.limits import Limits
from grader.verdicts import SubmissionError, WorkerCrashed
from grader.wall import bubblewrap, sandbox
from grader.wall.session import WallSession
from tests import mutation
from tests.redteam import kit_fingerprint, numpy_fingerprint

ATTACKS = Path(__file__).parent / "attacks"
SECRET = "labkit-probe-secret-7d1f"
MARKER = "labkit-redteam-planted-by-guard-bypass"
DENIED = {"EPERM"}  # seccomp, or a missing capability
HIDDEN = {"ENOENT"}  # not in the sandbox's world at all
READ_ONLY = {"EROFS", "EACCES"}  # a read-only mount, or a file the sandbox's uid does not own


def _fill(name: str, **values) -> str:
    source = (ATTACKS / name).read_text(encoding="utf-8")
    for key, value in values.items():
        source = source.replace(f"@{key}@", str(value))
    return source


@pytest.fixture
def lab():
    return labs.get("ch06")


@pytest.fixture
def limits(lab):
    return Limits.from_lab(lab.limits)


def test_the_kits_tests_run_in_the_bubblewrap_sandbox():
    """No silent fall-back: where bubblewrap cannot run, this fails and says why."""
    assert bubblewrap.unavailable() is None, f"the wall's sandbox is unavailable here: {bubblewrap.unavailable()}"
    assert sandbox.level() == "bubblewrap"


def test_every_attack_is_refused_by_the_kernel(lab, limits, tmp_path, monkeypatch):
    monkeypatch.setenv("LABKIT_PROBE_SECRET", SECRET)  # in the trusted process's environment
    other = sandbox.start(lab, limits)  # another student's sandbox, running at the same time
    numpy_before, kit_before = numpy_fingerprint(), kit_fingerprint()
    probe = tmp_path / "probe.py"
    probe.write_text(
        _fill(
            "kernel_probe.py",
            KIT=labs.KIT_ROOT,
            REFERENCE=labs.REFERENCE_DIR / "ch06" / "tensor.py",
            OTHER=other.folder,
            SECRET=SECRET,
        )
    )
    session = WallSession(lab, probe, limits, box=sandbox.start(lab, limits, python_guards=False))
    try:
        assert session.box.level == "bubblewrap"
        results = json.loads(session.public("Value")())
        session.end()
    finally:
        session.close()
        other.close()
    expected = {
        "write numpy's __init__.py": READ_ONLY,
        "chmod numpy's __init__.py": {"EROFS"},
        # A new name is refused to a child before any path is looked at (seccomp: no inode for it).
        "create a file beside numpy": DENIED,
        "write the kit's folder": DENIED,
        "append to the kit's README": HIDDEN,
        "read the reference": HIDDEN,
        "write another student's folder": DENIED,
        "write the interpreter's standard library": READ_ONLY,
        "create a file in /": DENIED,
        "append to another student's file": HIDDEN,
        "read /etc/passwd": HIDDEN,
        "list /home": HIDDEN,
        "list /root": HIDDEN,
        "make a fifo": DENIED,
        "create files in its run folder": DENIED,
        "create files in TMPDIR": DENIED,
        "open its output for writing by name": DENIED,
        "make a folder in /sandbox": DENIED,
        "make a symbolic link": DENIED,
        "make a hard link": DENIED,
        "make an unnamed file": DENIED,
        "make a memory file": DENIED,
        "set an extended attribute on its output": DENIED,
        "become root": DENIED,
        "mount a tmpfs": DENIED,
        "unmount /proc": DENIED,
        "unshare a user namespace": DENIED,
        "unshare a mount namespace": DENIED,
        "join the first process's network namespace": DENIED | {"EACCES"},
        "ptrace the zygote": DENIED,
        "write the zygote's memory": DENIED | {"EACCES"},
        "start a process": DENIED,
        "fork": DENIED,
        "exec a program": DENIED,
        "run on every core": DENIED,
        "set the zygote's limits": DENIED,
        "set the zygote's niceness": DENIED,
        "set the zygote's scheduling": DENIED,
        "make the zygote the owner of a descriptor's signals": DENIED,
        "join the first process's group": DENIED,  # a review's joined the loader's
        "start a session of its own": DENIED,
        "the same with ioctl": DENIED,
        "create a System V shared memory segment": DENIED,
        "create a System V message queue": DENIED,
        "open an internet socket": DENIED,
        "open a unix socket": DENIED,
    }
    if os.uname().machine == "x86_64":
        expected |= {
            f"{name}()": DENIED
            for name in ("bpf", "perf_event_open", "io_uring_setup", "keyctl", "ptrace", "setxattrat", "ioprio_set")
        } | {  # a security review's: the filter compared all 64 bits, the kernel reads the low 32
            "the owner of a descriptor's signals, a high bit in fcntl's command": DENIED,
            "the same, a high bit in ioctl's request": DENIED,
        }
    wrong = {name: results.get(name) for name, allowed in expected.items() if results.get(name) not in allowed}
    assert not wrong, f"not refused by the kernel as it must be: {wrong}"
    assert results["processes whose environment holds the trusted side's secret"] == []
    assert results["uid"] != 0 and results["capabilities"] == ["0000000000000000"] * 2
    assert numpy_fingerprint() == numpy_before, "the probe changed numpy's files"
    assert kit_fingerprint() == kit_before, "the probe changed the kit's files"


def test_a_submission_that_disarms_the_python_guards_still_meets_the_kernel(lab, limits, tmp_path):
    """The audit hook trusts os.path.realpath; replaced through numpy's own modules, the hook lets
    every open through. The writes it then tries fail in the kernel, and nothing changes."""
    attack = tmp_path / "guard_bypass.py"
    attack.write_text(_fill("guard_bypass.py", KIT=labs.KIT_ROOT, MARKER=MARKER))
    numpy_before = numpy_fingerprint()
    session = WallSession(lab, attack, limits)  # the guards are on, as in every grading
    try:
        results = ast.literal_eval(session.public("Value")())
        session.end()
    finally:
        session.close()
    assert results["numpy"] in (errno.EACCES, errno.EROFS), results
    assert results["numpy core"] in (errno.EACCES, errno.EROFS), results
    assert results["kit"] == errno.ENOENT, results
    # No /tmp in there (TMPDIR is /sandbox/tmp), and no new name anywhere.
    assert results["host /tmp"] in (errno.ENOENT, errno.EROFS, errno.EPERM), results
    assert not (Path("/tmp") / MARKER).exists()
    assert numpy_fingerprint() == numpy_before


def test_nothing_a_student_leaves_reaches_the_next_one_in_the_same_sandbox(lab, limits, tmp_path):
    """A batch job grades its students in one sandbox, in turn. The first writes wherever it may and
    tries to stop or kill the zygote (the kernel refuses: no signals from a child); the second,
    loaded next, finds nothing of it (its processes died, the writable tmpfs was emptied)."""
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text(_fill("leave_for_the_next.py", MODE="leave"))
    second.write_text(_fill("leave_for_the_next.py", MODE="find"))
    box = sandbox.start(lab, limits, python_guards=False)
    try:
        one = WallSession(lab, first, limits, box=box)
        left = json.loads(one.public("Value")())
        one.end()
        one.close()
        two = WallSession(lab, second, limits, box=box)
        found = json.loads(two.public("Value")())
        two.end()
        two.close()
        assert box.alive
    finally:
        box.close()
    # No new name (each one an inode the tmpfs does not count), but what it has it may write and move.
    assert left["write its run folder"] == left["write TMPDIR"] == "EPERM", left
    assert left["write a folder of its own in /sandbox"] == "EPERM", left
    assert left["write its output"] == left["move its output into TMPDIR"] == left["lock a folder"] == "succeeded", left
    assert left["write /tmp"] in READ_ONLY | HIDDEN | DENIED, left
    assert left["stop the zygote"] == left["kill the zygote"] == left["signal itself"] == "EPERM", left
    assert found["files of the first student"] == [], found
    # Left: only the second student's own run folder and TMPDIR. Folders are numbered per student (a review read
    # how many children the last student had needed in a count kept across the job).
    assert sorted(found["entries in /sandbox"]) == ["run-1", "tmp"], found


def test_no_student_finds_the_last_ones_code_in_its_own_memory(lab, limits, tmp_path):
    """A security review: the zygote read and compiled each student's file and forked every child, so the
    next student's children started with the memory the last file had been in (freed, not cleared) and
    read its docstrings, constants and names there. Each submission now has a loader of its own, forked
    from a zygote that never reads a student's bytes. The reader counts a mark in all of its memory after
    a file that holds it a hundred times and after one that holds none: the same count."""
    first_half, second_half = "LABKIT_PRIVATE_", "NOTES_OF_THE_LAST_STUDENT"
    mark = first_half + second_half
    holder, other = tmp_path / "alice.py", tmp_path / "bob.py"
    holder.write_text(mutation.reference_source("ch06") + f"\n\nNOTES = {(mark + ' ') * 100!r}\n")
    other.write_text(mutation.reference_source("ch06"))
    reader = tmp_path / "mallory.py"
    reader.write_text(_fill("read_the_last_students_memory.py", FIRST_HALF=first_half, SECOND_HALF=second_half))
    counts = {}
    for before in (holder, other):
        box = sandbox.start(lab, limits, python_guards=False)
        try:
            first = WallSession(lab, before, limits, box=box)
            assert first.public("Value")(3.0).data == 3.0  # its file compiled, a child forked and run
            first.end()
            first.close()
            second = WallSession(lab, reader, limits, box=box)
            counts[before.stem] = json.loads(second.public("Value")())["found"]
            second.end()
            second.close()
        finally:
            box.close()
    assert counts["alice"] == counts["bob"] > 0, counts  # > 0: it finds its own search, so it can look


def test_a_file_that_compiles_longer_than_the_import_limit_has_that_verdict_and_its_sandbox_closed(lab, tmp_path):
    """A security review: the sandbox compiled a file with no limit, and 1 MiB of nested code objects (lambdas:
    the compiler's time grows with the square of their number) took minutes, the whole job waiting, its student
    told of 'the lab's tests' running out of time. Compiling is part of importing: past `import_seconds` the
    file has the import's verdict, and the sandbox, still compiling, is closed, not unloaded."""
    limits = Limits.from_lab({**lab.limits, "import_seconds": 0.5})
    slow = tmp_path / "lambdas.py"
    slow.write_text(mutation.reference_source("ch06") + "lambda: 0\n" * 8000)  # about 2 s to compile here
    box = sandbox.start(lab, limits)
    session = WallSession(lab, slow, limits, box=box)
    try:
        with pytest.raises(SubmissionError, match=r"^importing lambdas.py did not finish within 0.5 s$"):
            session.public("Value")
    finally:
        session.close()
    assert not box.alive  # closed with what it was doing; a batch starts the next student's sandbox afresh


def test_a_child_that_puts_its_output_where_the_next_folder_goes_harms_only_itself(lab, limits, tmp_path):
    """A security review: a child renamed its output to the next child's folder name, and the loader that met
    the file there ended the sandbox, the rest of the student's tests told of a broken pipe."""
    hostile = tmp_path / "hostile.py"
    hostile.write_text(
        "import os\n\ndef Value(x):\n"
        "    if x == 'rename':\n        os.rename('output.log', '/sandbox/run-2')\n"
        "    if x == 'exit':\n        os._exit(0)\n"
        "    return x\n"
    )
    box = sandbox.start(lab, limits, python_guards=False)
    session = WallSession(lab, hostile, limits, box=box)
    try:
        assert session.public("Value")("rename") == "rename"  # run-1's child; run-2 is made as this test ends
        session.end()
        with pytest.raises(WorkerCrashed):
            session.public("Value")("exit")
        session.end()
        assert session.public("Value")(3) == 3  # a fresh child, in run-2
        session.end()
        assert box.alive
    finally:
        session.close()
        box.close()


def test_the_next_student_in_a_batch_gets_exactly_their_solo_result(tmp_path):
    """A hostile student graded first in a batch job, then an untouched starter and the reference:
    each of the two gets the report it gets alone (every student has a fresh sandbox)."""
    from grader.grading import grade
    from grader.implementation import Implementation
    from tests import grading
    from tests.mutation import reference_source

    lab = labs.get("ch06")
    attack, starter, honest = tmp_path / "attack.py", tmp_path / "starter.py", tmp_path / "honest.py"
    attack.write_text(_fill("guard_bypass.py", KIT=labs.KIT_ROOT, MARKER=MARKER))
    starter.write_text(lab.starter.read_text(encoding="utf-8"))
    honest.write_text(reference_source("ch06"))
    numpy_before = numpy_fingerprint()
    impls = [Implementation("submission", p) for p in (attack, starter, honest)]
    batch = grading.grade_many(lab, impls)
    solo = [grade.grade(lab, impl, isolation="worker") for impl in impls]

    def outcomes(report):
        return {t["id"]: (t["outcome"], t["points"]) for t in report["tests"]}

    assert [outcomes(r) for r in batch] == [outcomes(r) for r in solo]
    assert all(r["isolation"]["level"] == "bubblewrap" for r in batch)
    # The attack defines no engine; its one point is the rejection test that any Value without
    # a ** of its own passes (str ** str raises TypeError too). The honest one: 100 visible, 20 hidden.
    assert [r["score"] for r in batch] == [1, 0, 120]
    assert numpy_fingerprint() == numpy_before


def test_grading_refuses_without_a_sandbox_and_names_the_fix(tmp_path):
    """No bubblewrap on the PATH: `grader run --submission` exits 2 with one line, unless the
    weaker level is asked for by name, which the report then calls no security boundary."""
    submission = tmp_path / "starter.py"
    submission.write_text(labs.get("ch06").starter.read_text(encoding="utf-8"))
    python_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{python_dir}:/nonexistent", "LABKIT_SANDBOX": "auto"}
    command = [sys.executable, "-m", "grader", "run", "--lab", "ch06", "--submission", str(submission)]
    refused = subprocess.run(command, capture_output=True, text=True, env=env, cwd=labs.KIT_ROOT)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    message = refused.stderr.strip()
    assert message.count("\n") == 0 and "bubblewrap" in message and "apt-get install bubblewrap" in message
    report = tmp_path / "weak.json"
    weak = subprocess.run(
        [*command, "--json", str(report)], capture_output=True, text=True, env={**env, "LABKIT_SANDBOX": "none"}
    )
    assert weak.returncode == 1, weak.stderr
    isolation = json.loads(report.read_text())["isolation"]
    assert isolation["level"] == "none" and "not a security boundary" in isolation["protections"][0]


def test_a_level_that_cannot_be_had_is_refused_with_its_reason(monkeypatch):
    monkeypatch.setenv(sandbox.SANDBOX_ENV, "bogus")
    with pytest.raises(sandbox.SandboxUnavailable, match="must be auto, bubblewrap"):
        sandbox.level()
    monkeypatch.setenv(sandbox.SANDBOX_ENV, "unprivileged-user")
    if os.geteuid() != 0:
        with pytest.raises(sandbox.SandboxUnavailable, match="not root"):
            sandbox.level()
    else:  # here the interpreter or the reference decides; either way the reason is named
        try:
            assert sandbox.level() == "unprivileged-user"
        except sandbox.SandboxUnavailable as exc:
            assert "readable by other users" in str(exc)


def test_each_sandbox_as_root_has_a_uid_no_other_sandbox_has(lab, limits):
    if os.geteuid() != 0:
        pytest.skip("a uid of its own per sandbox is for root; other users' sandboxes map their own uid")
    boxes = [sandbox.start(lab, limits) for _ in range(3)]
    try:
        uids = [box.uid for box in boxes]
        assert len(set(uids)) == 3 and all(uid >= 2**16 for uid in uids)
    finally:
        for box in boxes:
            box.close()


@pytest.mark.parametrize("guards", [False, True], ids=["kernel alone", "with the python side"])
def test_the_sandboxs_log_on_the_host_is_bounded_by_the_kernel(guards, lab, limits, tmp_path):
    """Compiling `x is 1` warns, quoting the whole line: a line of 2,048 of them made 33 MB of warnings in the
    sandbox's log, a file on the host, and a longer one gigabytes (a security review's). With the Python side
    left out the zygote prints every warning, and the kernel stops its log at the zygote's file-size limit;
    with it the compiler prints nothing. The file is graded either way."""
    hostile = tmp_path / "warnings.py"
    hostile.write_text(
        mutation.reference_source("ch06") + "_never = lambda x: (" + ", ".join(["x is 1"] * 2048) + ")\n"
    )
    box = sandbox.start(lab, limits, python_guards=guards)
    session = WallSession(lab, hostile, limits, box=box)
    try:
        assert session.public("Value")(3.0).data == 3.0
        session.end()
        log = (box.scratch / "worker.log").read_bytes()  # read before the session closes: its folder goes
    finally:
        session.close()
    if guards:
        assert b"SyntaxWarning" not in log
    else:
        assert log.count(b"SyntaxWarning") > 10 and sandbox.LOG_BYTES - 20_000 < len(log) <= sandbox.LOG_BYTES

"""A queue session's submissions, handed over one at a time (grader.grading.feed, runner.run_queue).

The feed writes a submission on the session's pipe only when the session has begun the one before
it: a batch's jobs that share one queue then end within a student of each other, and a session
that dies leaves at most one submission it had not begun, which the next session grades.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import labs
from grader.grading import feed, pytest_process, runner
from grader.implementation import Implementation
from grader.progress import Part
from tests.mutation import reference_source


class Pipe:
    """The session's end of the orders' pipe, as the feed sees it."""

    def __init__(self, broken: bool = False):
        self.lines: list[dict] = []
        self.closed = False
        self.broken = broken

    def write(self, data: bytes) -> None:
        if self.broken:
            raise BrokenPipeError
        self.lines.extend(json.loads(line) for line in data.decode().splitlines())

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class Stream:
    """A progress stream in which the session has begun ``begun`` submissions."""

    def __init__(self, begun: int):
        self.parts = {None: Part(), **{str(i): Part() for i in range(begun)}}


def _queue(n: int) -> tuple[list, callable]:
    taken = []
    pending = [(f"student{i}", Implementation("submission", Path(f"/class/student{i}.py"))) for i in range(n)]

    def take():
        if not pending:
            return None
        taken.append(pending[0][0])
        return pending.pop(0)

    return taken, take


def test_a_submission_is_handed_over_once_the_session_has_begun_the_one_before():
    taken, take = _queue(5)
    pipe = Pipe()
    given = feed.Feed(take, {})
    given.attach(pipe)
    assert [e["key"] for e in pipe.lines] == ["0"] and taken == ["student0"]
    given.poll(Stream(begun=0))
    assert taken == ["student0"]  # nothing more until the session begins it
    given.poll(Stream(begun=1))
    assert taken == ["student0", "student1"]
    given.poll(Stream(begun=1))
    assert taken == ["student0", "student1"]  # one ahead, never two
    given.poll(Stream(begun=2))
    assert pipe.lines[-1] == {"key": "2", "path": "/class/student2.py"}
    assert {key: item for key, (item, _) in given.given.items()} == {"0": "student0", "1": "student1", "2": "student2"}
    assert not pipe.closed


def test_the_pipe_closes_when_the_queue_is_empty_or_the_session_has_had_its_share():
    taken, take = _queue(2)
    pipe = Pipe()
    given = feed.Feed(take, {"stop_at_first_failure": True})
    given.attach(pipe)
    given.poll(Stream(begun=1))
    assert not pipe.closed and all(e["stop_at_first_failure"] is True for e in pipe.lines)
    given.poll(Stream(begun=2))  # the queue has no third: the session ends after the second
    assert pipe.closed and len(pipe.lines) == 2

    taken, take = _queue(5)
    pipe = Pipe()
    given = feed.Feed(take, {}, limit=2)
    given.attach(pipe)
    given.poll(Stream(begun=1))
    given.poll(Stream(begun=2))
    assert pipe.closed and taken == ["student0", "student1"]  # the third stays in the queue for another session


def test_a_session_that_died_keeps_what_it_was_given_for_the_runner_to_grade():
    taken, take = _queue(3)
    pipe = Pipe(broken=True)
    given = feed.Feed(take, {})
    given.attach(pipe)
    assert pipe.closed and list(given.given) == ["0"] and taken == ["student0"]
    given.poll(Stream(begun=1))
    assert taken == ["student0"]


@pytest.fixture
def sessions(monkeypatch):
    """The pytest sessions started, one entry each."""
    started = []
    real = pytest_process.start

    def start(*args, **kwargs):
        started.append(kwargs.get("keep_open"))
        return real(*args, **kwargs)

    monkeypatch.setattr(pytest_process, "start", start)
    return started


def test_a_long_queue_is_graded_by_sessions_in_turn_each_with_its_share(tmp_path, monkeypatch, sessions):
    monkeypatch.setattr(feed, "SESSION_LIMIT", 2)
    lab = labs.get("lesson1_3").visible_only()
    reference = tmp_path / "reference.py"
    reference.write_text(reference_source("lesson1_3"), encoding="utf-8")
    runs = runner.run_many(lab, [Implementation("submission", reference)] * 5, isolation="in-process")
    assert sessions == [True, True, True]  # 2 + 2 + 1
    assert len(runs) == 5
    assert all(r.outcome == "passed" for run in runs for r in run.results)


def _crasher(tmp_path: Path) -> Path:
    """The reference, but Tensor.log ends the process (in-process: the session) in the tests that use it:
    well after the session began it, so that the next submission has been handed over by then."""
    crasher = tmp_path / "crasher.py"
    crasher.write_text(
        reference_source("ch06").replace(
            'out = Tensor(np.log(self.data), (self,), "log")',
            "sum(range(10**7)), np.ctypeslib.ctypes.CDLL(None)._exit(3)",  # a few polls of the runner first
        ),
        encoding="utf-8",
    )
    return crasher


@pytest.mark.parametrize("shared", [False, True], ids=["own_backlog", "put_back"])
def test_a_session_that_dies_in_a_queue_leaves_the_rest_to_the_next_one(tmp_path, sessions, shared):
    lab = labs.get("ch06").visible_only()
    reference = tmp_path / "reference.py"
    reference.write_text(reference_source("ch06"), encoding="utf-8")
    queue = [("alice", reference), ("crash", _crasher(tmp_path)), ("bob", reference), ("carol", reference)]
    pending = [(name, Implementation("submission", path)) for name, path in queue]
    events = []

    def take():
        if not pending:
            return None
        events.append(("taken", pending[0][0]))
        return pending.pop(0)

    def put_back(given):
        events.append(("put back", given[0]))
        pending.insert(0, given)

    def on_result(name, run):
        events.append(("graded", name, {r.id: r.outcome for r in run.results}))

    runner.run_queue(lab, take, isolation="in-process", on_result=on_result, put_back=put_back if shared else None)
    graded = [e[1] for e in events if e[0] == "graded"]
    assert sorted(graded) == ["alice", "bob", "carol", "crash"]  # each once
    outcomes = {e[1]: e[2] for e in events if e[0] == "graded"}
    for name in ("alice", "bob", "carol"):
        assert set(outcomes[name].values()) == {"passed"}, name
    assert outcomes["crash"]["test_tensor_gradcheck[log]"] == "crashed"
    assert outcomes["crash"]["test_tensor_gradcheck[exp]"] == "passed"
    # bob was handed over as the session began the crasher, one ahead: he is never begun by the session
    # that died, and comes first in the next one, or back to the shared queue before the crasher's regrade.
    assert [e[1] for e in events if e[0] == "taken"][:3] == ["alice", "crash", "bob"]
    if shared:
        assert next(e for e in events if e[0] in ("put back", "graded") and e[1] != "alice") == ("put back", "bob")
    else:
        assert ("put back", "bob") not in events
    assert graded[-2:] == ["bob", "carol"]
    # The queue's session, the crasher's own (run_tests: one more each time it crashes), then one for the rest.
    assert sessions[0] is True and sessions[-1] is True and sessions.count(True) == 2


class Outputs:
    """What grade_entries writes, kept in memory."""

    def __init__(self):
        self.saved: dict[str, str] = {}

    def is_current(self, entry) -> bool:
        return False

    def save_status(self, entry, status: str, reason: str) -> dict:
        self.saved[entry.student] = f"{status}: {reason}"
        return {}

    def save_graded(self, entry, document) -> dict:
        self.saved[entry.student] = "graded"
        return {}


def _class(tmp_path: Path, n: int) -> list:
    from grader.batch.inputs import Entry

    return [Entry(f"s{i}", "ok", path=tmp_path / f"s{i}.py") for i in range(n)]


@pytest.mark.parametrize("takes_first", [False, True], ids=["before_anyone", "after_taking_one"])
def test_a_batch_whose_grader_fails_for_everyone_says_so_for_each_student_and_ends(tmp_path, monkeypatch, takes_first):
    """No sandbox, or tests that do not collect: every session would fail alike. The job records the
    error for every student once, instead of one failing session a student (or a loop without end)."""
    from grader.batch import jobs

    calls = []

    def failing_queue(lab, take, **kwargs):
        calls.append(1)
        assert len(calls) < 10, "the job keeps starting sessions that fail"
        if takes_first:
            take()
        raise runner.GradingError("the tests of lab ch06 could not be collected")

    monkeypatch.setattr(jobs.runner, "run_queue", failing_queue)
    out, entries = Outputs(), _class(tmp_path, 7)
    jobs.grade_entries(labs.get("ch06"), entries, out, jobs=2, on_done=lambda entry, record: None)
    assert set(out.saved) == {e.student for e in entries}
    assert all(
        v == "error: the grader failed: the tests of lab ch06 could not be collected" for v in out.saved.values()
    )
    assert len(calls) <= 2  # one a job


def test_a_batch_goes_on_after_a_grader_failure_that_graded_someone(tmp_path, monkeypatch):
    from grader.batch import jobs

    failed_once, graded = [], []

    def queue(lab, take, on_result, **kwargs):
        while (given := take()) is not None:
            if graded and not failed_once:  # a session died in a way the kit could not recover from
                failed_once.append(given[0].student)
                raise runner.GradingError("a session could not start")
            graded.append(given[0].student)
            on_result(given[0], runner.Run([], {"mode": "worker"}, {}))

    monkeypatch.setattr(jobs.runner, "run_queue", queue)
    monkeypatch.setattr(jobs.grade, "report_for", lambda *args: {})
    out, entries = Outputs(), _class(tmp_path, 6)
    jobs.grade_entries(labs.get("ch06"), entries, out, jobs=1, on_done=lambda entry, record: None)
    assert out.saved[failed_once[0]] == "error: the grader failed: a session could not start"
    assert [s for s, v in out.saved.items() if v == "graded"] == [
        e.student for e in entries if e.student != failed_once[0]
    ]

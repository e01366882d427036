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


def test_a_session_that_dies_in_a_queue_leaves_the_rest_to_the_next_one(tmp_path, sessions):
    lab = labs.get("ch06").visible_only()
    reference = tmp_path / "reference.py"
    reference.write_text(reference_source("ch06"), encoding="utf-8")
    crasher = tmp_path / "crasher.py"  # ends the process (in-process: the session) in one test
    crasher.write_text(
        reference_source("ch06").replace(
            'out = Value(math.log(self.data), (self,), "log")', "np.ctypeslib.ctypes.CDLL(None)._exit(3)"
        ),
        encoding="utf-8",
    )
    queue = [reference, crasher, reference, reference]
    runs = runner.run_many(lab, [Implementation("submission", p) for p in queue], isolation="in-process")
    outcomes = [{r.id: r.outcome for r in run.results} for run in runs]
    for index in (0, 2, 3):
        assert set(outcomes[index].values()) == {"passed"}, index
    assert outcomes[1]["test_value_unary_functions[log]"] == "crashed"
    assert outcomes[1]["test_value_unary_functions[exp]"] == "passed"
    # The queue's session, the crasher's own (run_tests: one more each time it crashes), then a session
    # for the two after it: the one the dead session had been given and had not begun comes first.
    assert sessions[0] is True and sessions[-1] is True and sessions.count(True) == 2

"""A grading session behind the wall, test by test: when a child serves the next test, and when not.

A child that ended its test cleanly serves the next one (forking costs more than most
tests); after a timeout, or with a thread of the submission's still running, the next
test gets a fresh child and is graded normally.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import time

import numpy as np
import pytest

from grader import labs
from grader.limits import Limits
from grader.testing import constant
from grader.verdicts import SubmissionError, WorkerCrashed, WorkerFailure, WorkerTimeout
from grader.wall import codec, cpus, profile, sandbox
from grader.wall.proxy import HandedOver
from grader.wall.recording import Recorded
from grader.wall.session import WallSession
from tests import grading
from tests.mutation import reference_source

# Reached through numpy, as a hostile file would (threading itself is not on the allow-list).
EXTRAS = """
import numpy as _np

_threading = _np._core.numeric.sys.modules["threading"]
_select = _np._core.numeric.sys.modules["select"]
_os = _np._core.numeric.sys.modules["os"]


def spin_forever():
    while True:
        pass


def leave_a_thread():
    _threading.Thread(target=lambda: _select.select([], [], [], 30), daemon=True).start()
    return 1.0


def raise_here():
    raise ValueError("raised on this line")


def scale_in_place(values):
    values *= 2.0


def make_writable(values):
    values.setflags(write=True)


_calls = [0]


def exit_on_second_call():
    _calls[0] += 1
    if _calls[0] == 2:
        _os._exit(3)
    return float(_calls[0])


class Sticky:
    def __del__(self):
        while True:
            pass


Value.spin_forever = lambda self: spin_forever()
Value.maybe_spin = lambda self, spin: spin_forever() if spin else None
Value.exit_on_second_call = lambda self: exit_on_second_call()
Value.sticky = lambda self: Sticky()
Value.raise_here = lambda self: raise_here()
Value.scale_in_place = lambda self, values: scale_in_place(values)
Value.make_writable = lambda self, values: make_writable(values)
Value.leave_a_thread = lambda self: leave_a_thread()
Value.cores = lambda self: sorted(_os.sched_getaffinity(0))


def _worker_server():  # the worker's own Server class, found as a security review found it: up the frames
    try:
        raise ZeroDivisionError
    except ZeroDivisionError as error:
        frame = getattr(error.__traceback__, "tb" + "_frame")
    while frame is not None:
        if "HELPERS" in frame.f_globals:
            return frame.f_globals["Server"]
        frame = frame.f_back


def forge_reads():  # from now on this child answers every read of several values with errors that are not objects
    server = _worker_server()
    honest = server.reply

    def forged(self, result, hid):
        if type(result) is list and result and all(type(answer) is dict for answer in result):
            result = [{"error": [1]} for _ in result]
        return honest(self, result, hid)

    server.reply = forged
    return 1.0


Value.forge_reads = lambda self: forge_reads()
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    lab = labs.get("ch06")
    lab = dataclasses.replace(lab, limits={**lab.limits, "call_seconds": 2, "test_seconds": 4, "cpu_seconds": 4})
    path = tmp_path_factory.mktemp("wall") / "submission.py"
    path.write_text(reference_source("ch06") + EXTRAS, encoding="utf-8")
    wall = WallSession(lab, path, Limits.from_lab(lab.limits))
    yield wall
    wall.close()


def honest_test(session) -> float:
    """A small test: build 3 * 2 + 1 in the worker, read its value back."""
    Value = session.public("Value")
    y = Value(3.0) * 2.0 + 1.0
    data = y.data
    session.current.sync()
    session.end()
    return data


def _unfit_child_passed_on(session):
    """A test that leaves a thread running: its child, passed on, will say it is not fit."""
    Value = session.public("Value")
    assert Value(1.0).leave_a_thread() == 1.0
    session.current.sync()
    session.end()


def test_clean_tests_share_one_child(session):
    assert honest_test(session) == 7.0
    forks = session.forks
    for _ in range(5):
        assert honest_test(session) == 7.0
    assert session.forks == forks


def test_after_a_timeout_the_next_test_gets_a_fresh_child(session):
    honest_test(session)
    forks = session.forks
    Value = session.public("Value")
    with pytest.raises(WorkerTimeout, match="per-call limit"):
        float(Value(1.0).spin_forever())
    session.end()
    assert honest_test(session) == 7.0
    assert session.forks > forks


def test_a_child_is_passed_on_in_the_next_tests_first_frame(session, monkeypatch):
    """Nothing is written to the child when a clean test ends: the request that passes it on goes first in
    the next test's first frame, so the child wakes once for both (a switch between the processes is dear)."""
    honest_test(session)
    written = []
    write = os.write
    Value = session.public("Value")
    to_the_child = session.current.write_fd  # the same child serves the tests below: the same pipe

    def recording_write(fd, data):
        if fd == to_the_child:
            written.append(bytes(data))
        return write(fd, data)

    monkeypatch.setattr(os, "write", recording_write)
    y = Value(3.0) * 2.0
    session.current.sync()
    before_the_end = len(written)
    session.end()
    assert _ops(written[0])[0] == "next" and before_the_end == len(written)  # nothing written at the end
    written.clear()
    assert honest_test(session) == 7.0
    assert _ops(written[0])[0] == "next" and len(_ops(written[0])) > 1
    assert sum(op == "next" for frame in written for op in _ops(frame)) == 1
    del y


def _next_tests_first_request_fails_on_the_same_child(session, prepare, request, error, match):
    """``prepare(Value)`` (true) in one test; ``request(Value)``, the next test's first request that waits,
    must raise ``error`` on the child passed on: the test's own failure, not run again on a fresh child."""
    Value = session.public("Value")
    assert prepare(Value)
    session.current.sync()
    session.end()
    forks = session.forks
    Value = session.public("Value")
    with pytest.raises(error, match=match):
        request(Value)
    session.end()
    assert session.forks == forks  # no fresh child took the test over
    assert honest_test(session) == 7.0


def test_a_test_whose_first_request_hangs_stops_at_the_per_call_limit(session):
    """The child passed on says it is fit before it runs the test's first frame: when the first request
    does not return, the test stops at the per-call limit, as its own timeout."""
    _next_tests_first_request_fails_on_the_same_child(
        session,
        lambda Value: callable(Value(1.0).spin_forever),  # a read that waits: the next test's first wait is the call
        lambda Value: float(Value(1.0).spin_forever()),
        WorkerTimeout,
        "per-call limit",
    )


def test_a_crash_in_a_passed_on_childs_first_frame_is_the_tests_own(session):
    """The module's state carries over to a child passed on (as in-process): the second call exits the
    process, in the next test's first frame. It is that test's crash, not run again on a fresh child (which
    would answer 1.0). The child says it is fit before it runs the frame (review of the lazy pass-on)."""
    honest_test(session)
    _next_tests_first_request_fails_on_the_same_child(
        session,
        lambda Value: float(Value(1.0).exit_on_second_call()) == 1.0,
        lambda Value: float(Value(1.0).exit_on_second_call()),
        WorkerCrashed,
        "status 3",
    )


def test_a_child_that_hangs_between_tests_is_replaced_and_the_test_goes_on(session):
    """An object whose __del__ never returns, left by one test, is deleted by the child between tests,
    before it says it is fit: the next test gets a fresh child, and its first request is not charged."""
    honest_test(session)
    Value = session.public("Value")
    kept = Value(1.0).sticky()  # alive when the test ends: the child deletes it between tests
    session.current.sync()
    session.end()
    forks = session.forks
    assert honest_test(session) == 7.0
    assert session.forks > forks
    del kept


def test_a_timeout_names_the_first_request_sent_without_waiting(session):
    """A request whose answer the test does not need is sent without waiting, so a later one waits for it:
    when that wait times out, the message names the first request not yet answered, the one that may hang."""
    Value = session.public("Value")
    v = Value(1.0)
    assert v.maybe_spin(0.0) is None  # known from now on to return nothing: not waited for
    v.maybe_spin(1.0)  # does not return
    with pytest.raises(
        WorkerTimeout, match=r"Value\.maybe_spin\(\) or an operation after it, up to reading Value\.data"
    ):
        float((v * 2.0).data)
    session.end()
    assert honest_test(session) == 7.0


def _ops(frame: bytes) -> list[str]:
    message, _ = codec.unpack(frame, loads=marshal.loads)
    return [m["op"] for m in message.get("batch", [message])]


def test_a_thread_left_running_retires_the_child(session):
    honest_test(session)
    _unfit_child_passed_on(session)
    forks = session.forks
    assert honest_test(session) == 7.0  # the child with the thread said it was unfit
    assert session.forks > forks
    forks = session.forks
    assert honest_test(session) == 7.0  # the fresh child has no thread: it is kept
    assert session.forks == forks


def test_the_requests_sent_to_a_child_that_was_not_fit_go_again_to_a_fresh_one(session):
    """A child passed on says whether it is fit with its first reply: until then the test's requests go
    out (here several frames' worth, an array handed over among them) and are kept; the child that was
    not fit left without running them, and a fresh child runs them all."""
    honest_test(session)
    _unfit_child_passed_on(session)
    forks = session.forks
    Tensor = session.public("Tensor")
    x = Tensor(HandedOver(np.arange(6.0).reshape(2, 3)))
    y = x
    for _ in range(40):
        y = y * 1.5 + 1.0
    y.sum().backward()
    total, grad = float(y.sum().data), np.array(x.grad)
    session.current.sync()
    session.end()
    expected = np.arange(6.0).reshape(2, 3)
    for _ in range(40):
        expected = expected * 1.5 + 1.0
    assert session.forks > forks
    assert total == pytest.approx(expected.sum()) and np.allclose(grad, 1.5**40)


def test_an_object_of_an_earlier_test_reaches_nothing(session):
    Value = session.public("Value")
    kept = Value(2.0)
    session.current.sync()
    session.end()
    session.public("Value")
    with pytest.raises(WorkerFailure, match="earlier test"):
        float(kept * 2.0)
    session.end()
    assert honest_test(session) == 7.0


def test_a_sandbox_serves_submissions_in_turn(tmp_path):
    """A batch job loads one student after another into one sandbox: the last one's folder is
    gone and its processes dead before the next is graded, which gets its own result."""
    lab = labs.get("ch06")
    limits = Limits.from_lab(lab.limits)
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text(reference_source("ch06") + EXTRAS, encoding="utf-8")
    second.write_text("class Value:\n    pass\n", encoding="utf-8")
    box = sandbox.start(lab, limits)
    try:
        one = WallSession(lab, first, limits, box=box)
        Value = one.public("Value")
        assert Value(1.0).leave_a_thread() == 1.0
        folder = box.submission_folder
        one.current.sync()
        one.end()
        one.close()
        assert not folder.exists()
        two = WallSession(lab, second, limits, box=box)
        with pytest.raises(SubmissionError, match="does not define Tensor"):
            two.public("Tensor")
        assert honest_test_with(two) is None  # Value() works, its arithmetic does not exist
        two.close()
        assert box.alive
    finally:
        box.close()


def honest_test_with(session):
    Value = session.public("Value")
    try:
        Value() * 2.0
        session.current.sync()
    except (TypeError, AttributeError):  # as in-process: Value has no __mul__
        return None
    finally:
        session.end()
    return "multiplied"


def test_a_dead_sandbox_is_replaced_for_the_next_submission():
    """If a batch job's sandbox dies (killed from outside), the next student gets a new one."""
    from grader.harness import handles, state

    queued = state.Session(isolation="worker", queue=True)  # a queue's: the sandbox starts, no submission
    remote = handles.RemoteLab(queued, "ch06")
    try:
        box = remote.sandbox()
        assert box.alive and remote.sandbox() is box
        box.process.kill()
        box.process.wait(timeout=10)
        replacement = remote.sandbox()
        assert replacement is not box and replacement.alive
    finally:
        queued.close()


@pytest.mark.skipif(len(cpus.allowed()) < 2, reason="one CPU: nothing to keep to")
def test_a_session_and_its_worker_keep_to_the_core_they_were_given(tmp_path):
    """A batch job's pytest process and the children of its zygote run on one core (grader.wall.cpus):
    the kernel's affinity, read by the code under test itself."""
    from grader.harness import handles, state

    core = cpus.allowed()[-1]
    before = os.sched_getaffinity(0)
    path = tmp_path / "submission.py"
    path.write_text(reference_source("ch06") + EXTRAS, encoding="utf-8")
    queued = state.Session(isolation="worker", queue=True, cpu=core)
    remote = handles.RemoteLab(queued, "ch06")
    try:
        box = remote.sandbox()
        assert os.sched_getaffinity(0) == {core}
        lab = labs.get("ch06")
        wall = WallSession(lab, path, Limits.from_lab(lab.limits), box=box)
        assert wall.public("Value")(1.0).cores() == [core]
        wall.close()
    finally:
        queued.close()
        os.sched_setaffinity(0, before)  # this test's process runs other tests next


def test_a_handed_over_array_is_sent_without_waiting_and_its_error_still_reaches_the_test(session):
    """grader.testing.given: an array the test gives away is not copied back, so the call need not wait."""
    Tensor = session.public("Tensor")
    Tensor(np.ones(2))  # a call with an array of the test's own waits, to copy back what it changed
    assert session.current.unsynced == 0
    t = Tensor(HandedOver(np.ones(2)))
    assert session.current.unsynced == 1
    assert np.array_equal(t.data, np.ones(2))
    Tensor(HandedOver(np.ones(2)), 5)  # parents that are no tuple: its TypeError is raised at the next wait
    assert session.current.unsynced == 1
    with pytest.raises(TypeError):
        session.current.sync()
    session.end()


def test_a_constant_array_is_sent_without_waiting_and_the_worker_cannot_change_it(session):
    """grader.testing.constant: a read-only array gives the call nothing to copy back, so it need not
    wait; the worker's copy is read-only too, as the test's own array would be in-process."""
    v = session.public("Value")(1.0)
    mine = np.ones(3)
    v.scale_in_place(mine)  # a writable array of the test's: the call waits, and what it changed is copied back
    assert session.current.unsynced == 0 and np.array_equal(mine, [2.0, 2.0, 2.0])
    weights = constant(np.ones(3))
    v.scale_in_place(weights)
    assert session.current.unsynced == 1
    with pytest.raises(ValueError, match="read-only"):  # the write failed in the worker, at its numpy's word
        session.current.sync()
    with pytest.raises(ValueError, match="WRITEABLE"):
        v.make_writable(weights)
    session.end()
    assert np.array_equal(weights, np.ones(3))


def test_several_reads_are_one_request_with_each_error_its_own(session):
    Value = session.public("Value")
    y = Value(3.0) * 2.0
    y.backward()
    channel = session.current
    assert channel.read_many([(y, "data"), (y, "grad")]) == [6.0, 1.0]
    with pytest.raises(AttributeError, match="no_such_attribute"):
        channel.read_many([(y, "data"), (y, "no_such_attribute")])
    session.end()


def test_a_read_whose_error_is_not_an_object_is_the_worker_breaking_the_protocol(session):
    """Each answer of a read of several values is a claim: an error that is not an object crashes the test
    as a protocol break (a security review's forged reply raised AttributeError, taken for the code's)."""
    Value = session.public("Value")
    y = Value(3.0) * 2.0
    assert float(y.forge_reads()) == 1.0
    with pytest.raises(WorkerCrashed, match="the worker broke the protocol .*an error that is not an object"):
        session.current.read_many([(y, "data"), (y, "grad")], keep_errors=True)
    session.end()
    assert honest_test(session) == 7.0  # the next test, on a fresh child


def test_an_error_carries_its_line_and_a_line_the_file_lacks_is_dropped(session):
    """The worker says where the code raised: the trusted side keeps the line only if it is an int
    from 1 to the file's line count (a child that writes its own reply can claim anything)."""
    lines = session.submission.read_text(encoding="utf-8").splitlines()
    raising = lines.index('    raise ValueError("raised on this line")') + 1
    Value = session.public("Value")
    with pytest.raises(ValueError, match="raised on this line") as info:
        float(Value(1.0).raise_here())
    session.end()
    assert info.value.labkit_line == raising and info.value.labkit_where == f"submission.py:{raising} in raise_here"
    assert session.line_count == len(lines)
    claimed = {"type": "ValueError", "bases": ["ValueError"], "message": "m", "where": "submission.py:1 in f"}
    assert session.exception_from({**claimed, "line": len(lines)}).labkit_line == len(lines)
    for forged in (len(lines) + 1, 0, -3, 2**70, "3", 3.0, True, None, [3], {"n": 3}):
        assert session.exception_from({**claimed, "line": forged}).labkit_line is None, forged
    # The functions it passed through, innermost first, as the diagnosis reads them: at most
    # ERROR_FUNCTIONS names of at most 200 characters; anything but a list is none.
    assert info.value.labkit_functions == ("raise_here", "<lambda>")  # Value.raise_here is a lambda that calls it
    many = session.exception_from({**claimed, "functions": ["f" * 10_000, 7, *["g"] * 1000]}).labkit_functions
    assert many == ("f" * 200, "7", *["g"] * (codec.ERROR_FUNCTIONS - 2))
    for forged in ("Tensor.reshape.<locals>.backward", {"f": 1}, 3, None):
        assert session.exception_from({**claimed, "functions": forged}).labkit_functions == (), forged


def test_a_recorded_function_runs_next_to_the_code_and_one_that_reads_is_called_back(session, tmp_path):
    """gradcheck calls f 2n + 1 times: a recorded f (grader.testing.recorded) runs in the worker, with no
    call back to the test; a function that reads a value of the code cannot be recorded and is called back."""
    gradcheck, Tensor, GradcheckError = (session.public(n) for n in ("gradcheck", "Tensor", "GradcheckError"))
    tally = session.current.tally = profile.Tally(tmp_path / "profile.jsonl")  # counts the calls back
    inputs = [np.linspace(-1, 1, 6).reshape(2, 3), np.linspace(0.5, 2, 6).reshape(2, 3)]
    gradcheck(Recorded(lambda a, b: ((a * b).tanh() + a).sum()), inputs)
    assert tally.round_trips["callback"] == 0
    gradcheck(lambda a, b: ((a * b).tanh() + a).sum(), inputs)
    assert tally.round_trips["callback"] >= 1 + 2 * 12
    called_back = tally.round_trips["callback"]
    with pytest.raises(GradcheckError):  # right forward value, no gradient: gradcheck must catch it
        gradcheck(Recorded(lambda a: Tensor(HandedOver(np.exp(a.data))).sum()), [inputs[0]])
    assert tally.round_trips["callback"] > called_back
    with pytest.raises(AttributeError, match="no_such_operation"):  # the code's own error, raised in the worker
        gradcheck(Recorded(lambda a: a.no_such_operation()), [inputs[0]])
    # One that calls the code under test while it is recorded: no request leaves then (it would be sent
    # once, in the middle of gradcheck's own request), so it is called back, and gradcheck gets its inputs.
    twos = Tensor(HandedOver(np.full((2, 3), 2.0)))
    called_back = tally.round_trips["callback"]
    gradcheck(Recorded(lambda a: (a * Tensor(HandedOver(np.full((2, 3), 2.0)))).sum()), [inputs[0]])
    gradcheck(Recorded(lambda a: (a * twos.exp()).sum()), [inputs[0]])
    assert tally.round_trips["callback"] >= called_back + 2 * (1 + 2 * 6)
    session.end()


def test_a_check_that_fails_inside_a_function_the_code_calls_back_reaches_the_test_as_itself(session):
    """gradcheck calls the test's f, whose check fails: in-process that failure goes through gradcheck to the
    test, a failed check with its hint; behind the wall too, not as the code's RuntimeError."""
    gradcheck = session.public("gradcheck")

    class CheckFailed(AssertionError):
        pass

    failure = CheckFailed("the loss's .data should have dtype float64, got float32")

    def f(a):
        raise failure

    with pytest.raises(CheckFailed) as caught:
        gradcheck(f, [np.ones((2, 2))])
    assert caught.value is failure
    session.end()


def test_a_test_that_ends_before_its_child_said_it_was_fit_leaves_no_channel_behind(session):
    """The test failed before it sent anything (a check of its own): its child, which left as not fit, is
    not replaced just to be told the test ended, and the next test is graded as usual."""
    honest_test(session)
    _unfit_child_passed_on(session)
    session.begin()
    time.sleep(0.3)  # the child that was not fit has left by now
    session.end()
    assert session.current is None
    assert honest_test(session) == 7.0


def test_a_fresh_childs_start_is_not_charged_to_the_test_it_takes_over(tmp_path):
    """A file whose import takes 3 s of the 10 s it may take, graded with 2 s tests: the child that takes
    over from one that was not fit starts while the test waits, and the test keeps its own 2 s."""
    lab = labs.get("ch06")
    lab = dataclasses.replace(lab, limits={**lab.limits, "call_seconds": 10, "test_seconds": 2, "cpu_seconds": 2})
    path = tmp_path / "slow_import.py"
    slow = '\n_np._core.numeric.sys.modules["select"].select([], [], [], 3.0)  # a demo run at module level\n'
    path.write_text(reference_source("ch06") + EXTRAS + slow, encoding="utf-8")
    wall = WallSession(lab, path, Limits.from_lab(lab.limits))
    try:
        assert honest_test(wall) == 7.0
        _unfit_child_passed_on(wall)
        assert honest_test(wall) == 7.0
    finally:
        wall.close()


def test_names_the_tests_only_call_are_taken_for_methods_with_the_same_verdicts(tmp_path):
    """A lab's `methods` are taken for methods behind the wall without a round trip to learn it: the call that
    follows reads the name in the worker, as obj.name(...) does in-process. So a class that holds a number there,
    or nothing, gets the verdicts it gets in-process, test by test."""
    lab = labs.get("ch06")
    assert {"relu", "exp", "tanh", "backward"} <= set(lab.methods)
    odd = tmp_path / "odd.py"
    odd.write_text(
        reference_source("ch06") + "\nTensor.relu = property(lambda self: 3.0)\ndel Tensor.exp\nValue.tanh = 5\n",
        encoding="utf-8",
    )
    reports = {mode: grading.grade("ch06", odd, mode) for mode in ("in-process", "worker")}
    outcomes = {
        mode: {t["id"]: (t["outcome"], t["points"], t["message"], t["hint"]) for t in r["tests"]}
        for mode, r in reports.items()
    }
    assert outcomes["in-process"] == outcomes["worker"]
    failed = {i for i, (outcome, *_) in outcomes["worker"].items() if outcome != "passed"}
    assert any("relu" in i for i in failed) and any("exp" in i for i in failed) and any("tanh" in i for i in failed)

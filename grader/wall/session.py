"""The trusted side of the wall: one worker per grading session, a child process per run of clean tests.

``WallSession`` starts the sandboxed zygote when the session starts. A child that ended
its test cleanly (nothing pending, no crash or timeout, no thread of the submission's
left running) serves the next test, as the submission's module would in-process:
forking and starting a child costs several milliseconds, most of a small test's time.
Otherwise the next test takes a fresh child, forked ahead while earlier tests ran.

``Channel`` is one test's request/reply channel with deadlines: a request that the
caller does not need the answer to (an operator whose result stays in the worker, a
setattr, a backward()) is sent without waiting, and any error it raised surfaces at
the next request that waits, or when the test ends.
"""

from __future__ import annotations

import builtins
import contextlib
import fcntl
import json
import marshal
import os
import select
import signal
import socket
import time

import numpy as np

from grader import intake, verdicts
from grader.limits import Limits
from grader.verdicts import CpuLimitReached, SubmissionError, WorkerCrashed, WorkerFailure, WorkerTimeout
from grader.wall import codec, profile, recording, sandbox
from grader.wall.proxy import HandedOver, RemoteMethod, RemoteObject, channel_of, handle_of, type_of

PIPE_SIZE = 1 << 20
SPARES = 1  # children forked ahead, for the test after one that did not end cleanly
CALLBACK_ERRORS_KEPT = 16  # the latest exceptions the test's functions raised when called back (Channel._own_error)
# How deep the worker may nest calls back. An honest run never calls back inside a call back (both labs'
# references and the written-apart engines score full marks with a limit of 1). A review's worker sent calls
# back whose argument the test's function asked about, each question answered by the next call back: 80
# levels held 2 GB of the worker's frames in the trusted process, until the test's time limit.
MAX_CALLBACK_DEPTH = 4
WORKER_FAILED = 70  # the exit status of a child whose serving code raised (see worker.child_main)
# Queued requests are written when one must wait for its answer, or once a batch is full. The
# first batch after a wait is small, so the worker starts on it while the test queues more
# (a training step); batches then double, so a long run of operations (a 20,000-node chain)
# costs few writes and reads.
FIRST_BATCH = 8
PASS_ON = {"op": "next"}  # the request that passes a child that ended its test cleanly on to the next test
# How long a child may take to say it is fit for the next test (its last test's objects deleted): a child that
# hangs there (a __del__ of the code's that never returns) is replaced by a fresh one, which costs a fork.
HELLO_SECONDS = 2.0
LARGEST_BATCH = 256
BATCH_BYTES = 1 << 20
F_SETPIPE_SZ = 1031
SIGNAL_NAMES = {
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGABRT: "an abort",
    signal.SIGFPE: "a floating-point exception",
    signal.SIGILL: "an illegal instruction",
}


def _set_pipe(fd: int, blocking: bool) -> None:
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE)  # fewer stalls when requests are pipelined
    os.set_blocking(fd, blocking)


class Channel:
    """Requests to one child, replies and callbacks from it."""

    def __init__(self, session: WallSession, test: str, read_fd: int, write_fd: int):
        self.session = session
        self.test = test
        self.tally = session.tally  # None unless make bench profiles (grader.wall.profile)
        self.read_fd, self.write_fd = read_fd, write_fd
        self.public_count = len(session.lab.public)
        self.next_id = self.public_count + 1
        self.callbacks: dict[int, object] = {}
        self.recording = False  # a test's function is being recorded (grader.wall.recording)
        self.callback_depth = 0  # calls back running now, one inside another
        self.callback_errors: list[BaseException] = []  # what the test's functions raised when called back
        self.released: list[int] = []
        self.failure: WorkerFailure | None = None
        self.deadline = float("inf")
        self.hello: dict | None = None
        # Passed on from the last test, the child owes its hello (is it fit to serve this one?), read
        # with the first reply: until then what is written to it is kept, for a fresh child if it is not.
        self.hello_owed = False
        self.sent: list[bytes] | None = None
        # The child is still to be passed on to this test: the request goes first in the first frame the
        # test sends, so it wakes the child once, not twice (a switch between the two processes is dear),
        # or alone when the hello is needed first. The child answers it before it runs the rest.
        self.passing_on = False
        self.exit_status: dict | None = None
        self.outbox: list[dict] = []
        self.outbox_buffers: list[bytes] = []
        self.inbox = bytearray()  # what was read from the child and not yet taken as frames
        self.unsynced = 0  # requests sent without waiting since the last one that waited
        self.first_unsynced: tuple | None = None  # the first of them (op, target, name)
        # While a request waits: the first request sent before it without waiting, which its reply also
        # answers. A timeout or a crash then names it: it may be the one that did not return.
        self.behind: tuple | None = None
        self.batch = FIRST_BATCH
        self.last: tuple = ("start", None, None)  # the latest request, named in timeouts and crashes

    # -- plumbing ------------------------------------------------------------------------
    def start_clock(self) -> None:
        self.deadline = time.monotonic() + self.session.limits.test_seconds

    def _remaining(self) -> float:
        left = min(self.deadline - time.monotonic(), self.session.limits.call_seconds)
        if left <= 0:
            self._fail_timeout()
        return left

    def _write(self, frame: bytes, written: bytes | None = None) -> None:
        """Write ``frame`` (``written``: the same requests with others before them, for this child only)."""
        if self.sent is not None:
            self.sent.append(frame)
        try:
            self._write_all(frame if written is None else written)
        except BrokenPipeError:
            if not self.hello_owed:
                self._fail_crashed()
            self._take_hello()  # it left after the last test (not fit): a fresh child gets all of it, this frame too

    def _write_all(self, frame: bytes) -> None:
        view = memoryview(frame)
        while view:
            try:
                view = view[os.write(self.write_fd, view) :]
            except BlockingIOError:
                _, writable, _ = select.select([], [self.write_fd], [], self._remaining())
                if not writable:
                    self._fail_timeout()

    def _read_frame(self):
        """The next frame from the child. Reads take whatever has arrived (the child writes
        the replies to a batch of requests at once), never more than a frame's declared size."""
        inbox, total = self.inbox, 0
        while True:
            if not total and len(inbox) >= 8:
                header_len, buffers_len = codec.HEADER.unpack_from(inbox)
                if header_len > codec.MAX_REPLY_HEADER_BYTES or buffers_len > codec.MAX_REPLY_BUFFER_BYTES:
                    self._fail_protocol("a message larger than the protocol allows")
                total = 8 + header_len + buffers_len
            if total and len(inbox) >= total:
                frame = bytes(inbox[:total])
                del inbox[:total]
                break
            readable, _, _ = select.select([self.read_fd], [], [], self._remaining())
            if not readable:
                self._fail_timeout()
            chunk = os.read(self.read_fd, max(codec.READ_CHUNK, total - len(inbox)))
            if not chunk:
                self._fail_crashed()
            inbox += chunk
        try:
            return codec.unpack(frame)
        except codec.ProtocolError as exc:
            self._fail_protocol(str(exc))

    def _now_waiting(self) -> None:
        """A request was written that waits: its reply answers every request sent before it too."""
        self.behind = self.first_unsynced if self.unsynced else None
        self.unsynced, self.first_unsynced, self.batch = 0, None, FIRST_BATCH

    def _what(self) -> str:
        """The request the child was running, in words; with requests sent before it without waiting, the
        first of those, which may be the one that did not return (in-process, the traceback's line says)."""
        what = _describe(*self.last)
        if self.behind is None:
            return what
        first = _describe(*self.behind)
        return f"{first} or an operation after it" + ("" if self.last[0] == "sync" else f", up to {what}")

    def _fail_timeout(self):
        what = self._what()
        limits = self.session.limits
        status = self.session.kill(self)
        if status.get("signal") == signal.SIGXCPU:
            self.failure = CpuLimitReached(
                f"timeout: {what} {verdicts.over_cpu(limits.cpu_seconds)}", verdicts.LOOP_HINT
            )
            raise self.failure
        if self.deadline - time.monotonic() <= 0:
            message = verdicts.test_timeout_message(limits.test_seconds, what)
            if self.session.shortened:
                message = verdicts.after_an_earlier_timeout(message)
        else:
            message = f"timeout: {what} did not finish within the per-call limit of {limits.call_seconds:g} s"
        self.failure = WorkerTimeout(message, verdicts.LOOP_HINT)
        raise self.failure

    def _fail_protocol(self, why: str):
        """The worker broke the protocol: the child is killed and this test crashed (the next gets a new child)."""
        what = self._what()
        self.session.kill(self)
        self.failure = WorkerCrashed(f"crashed: the worker broke the protocol during {what}: {why}")
        raise self.failure

    def _fail_crashed(self, why: str = ""):
        what = self._what()
        status = self.session.wait_exit(self)
        limits = self.session.limits
        if not why:
            number = status.get("signal")
            if number == signal.SIGXCPU:
                why = f"it {verdicts.over_cpu(limits.cpu_seconds)}"
                self.failure = CpuLimitReached(f"timeout: {what}: {why}")
                raise self.failure
            if number == signal.SIGXFSZ:
                why = f"it wrote more than the output limit of {limits.output_kb} KiB"
            elif number == signal.SIGKILL:
                why = f"it was killed (over the memory limit of {limits.memory_mb} MiB, or by the system)"
            elif number is not None:
                why = f"it died of {SIGNAL_NAMES.get(number, f'signal {number}')}"
            elif status.get("exit") == WORKER_FAILED:
                why = "the worker's own code failed (the submission may have broken it: see the flags)"
            else:
                why = f"it exited with status {status.get('exit')} (exit() or os._exit() in the code under test)"
        self.failure = WorkerCrashed(f"crashed: the worker stopped during {what}: {why}")
        raise self.failure

    # -- values --------------------------------------------------------------------------
    def _handle_of(self, x: RemoteObject) -> int:
        if channel_of(x) is not self:
            raise TypeError("an object from an earlier test cannot be used in this one")
        return handle_of(x)

    def _encode_handle(self, x):
        if isinstance(x, RemoteObject):
            return {"H": self._handle_of(x)}
        raise TypeError(f"cannot pass a {type(x).__name__} to the code under test")

    def _encode_callback(self, fn):
        if isinstance(fn, recording.Recorded):
            try:
                return {"P": self._record(fn)}
            except recording.NotRecordable:
                fn = fn.function  # it does more than operations: it is called back
        cid = len(self.callbacks) + 1  # callbacks nest like the requests that pass them
        self.callbacks[cid] = fn
        return {"C": cid}

    def _record(self, fn: recording.Recorded) -> dict:
        """``fn``'s program (grader.wall.recording); its constant arrays join the frame's buffers only
        once it is recorded whole."""
        buffers = list(self.outbox_buffers)
        self.recording = True  # no request while it runs: it would be sent now, not at each call
        try:
            program = recording.record(fn, codec.Encoder(self._encode_handle, _not_data, buffers).value)
        finally:
            self.recording = False
        self.outbox_buffers.extend(buffers[len(self.outbox_buffers) :])
        return program

    def _decode_handle(self, hid, type_name):
        return RemoteObject(self, hid, type_name)

    def release(self, hid: int) -> None:
        if self.failure is None:
            self.released.append(hid)

    def _raise_remote(self, error: dict):
        raise self._own_error(error) or self.session.exception_from(error)

    def _own_error(self, error: dict) -> BaseException | None:
        """The exception one of the test's own functions raised itself when the code under test called it,
        if the code let it through unchanged: in-process that very exception would have reached the test (a
        failed check inside gradcheck's ``f`` is the test's failure, with its hint, not the code's error).
        An error of the code's that went through the function (its stub, called by ``f``) stays the code's,
        placed where the worker saw it come out."""
        for exc in self.callback_errors:
            if error.get("type") == _builtin_name(exc) and error.get("message") == str(exc)[:2000]:
                return exc
        return None

    # -- requests ------------------------------------------------------------------------
    def request(self, op: str, target, *, result: str = "value", name=None, kind=None, args=(), kwargs=None, **values):
        """Send one request. ``result``: "value" waits for the answer; "object" and "none" do not.

        Requests that do not wait are queued and written in batches; a request that waits
        flushes the queue first, so the worker always runs them in order.
        """
        if self.failure is not None:
            raise self.failure
        if self.recording:
            raise recording.NotRecordable(f"it calls the code under test ({op})")
        hid = self.next_id
        self.next_id += 1
        message = {"op": op, "id": hid}
        if target is not None:
            message["target"] = self._handle_of(target)
        if name is not None:
            message["name"] = name
        if kind is not None:
            message["kind"] = kind
        registered = len(self.callbacks)
        mutable = False
        if args or kwargs or values:
            encoder = codec.Encoder(self._encode_handle, self._encode_callback, self.outbox_buffers)
            if args:
                message["args"] = [self._encode_argument(a, encoder) for a in args]
                # What a call changes in a list or a writable array it was given is copied back: it waits.
                mutable = any(codec.may_change(a) for a in args)
            if kwargs:
                message["kwargs"] = {str(k): encoder.value(v) for k, v in kwargs.items()}
            for key, value in values.items():
                message[key] = encoder.value(value)
        if self.released:  # only once the arguments are encoded: one that cannot be must not lose them
            message["rel"], self.released = self.released, []
        # A request passing one of the test's functions waits too: the worker may call it back.
        wait = result == "value" or mutable or len(self.callbacks) > registered
        self.last = (op, target, name)
        if self.tally is not None:
            self.tally.request(op, wait)
        if not wait:
            message["sync"] = False
            if not self.unsynced:
                self.first_unsynced = self.last
            self.unsynced += 1
            self._queue(message)
            return RemoteObject(self, hid, type_of(target) or "?") if result == "object" else None
        self._queue(message)
        self._flush()
        self._now_waiting()  # the worker runs requests in order: this reply comes after all of them
        try:
            return self._wait_reply(args if mutable else None)
        finally:
            for cid in range(registered + 1, len(self.callbacks) + 1):  # this request's callbacks end with it
                self.callbacks.pop(cid, None)

    def _encode_argument(self, value, encoder):
        """The common arguments (numbers, objects in the worker) without the general encoder."""
        kind = type(value)
        if kind is float or kind is int:
            return value
        if kind is RemoteObject:
            return {"H": self._handle_of(value)}
        if kind is HandedOver:
            return encoder.value(value.array)
        return encoder.value(value)

    def _queue(self, message: dict) -> None:
        self.outbox.append(message)
        if len(self.outbox) >= self.batch or (self.outbox_buffers and sum(map(len, self.outbox_buffers)) > BATCH_BYTES):
            self._flush()
            self.batch = min(self.batch * 2, LARGEST_BATCH)

    def _flush(self) -> None:
        """Write the queued requests as one frame: one write here, one read and one parse there."""
        if self.outbox:
            batch, buffers = self.outbox, self.outbox_buffers
            self.outbox, self.outbox_buffers = [], []
            frame = codec.pack({"batch": batch}, buffers, dumps=marshal.dumps)
            if self.passing_on:  # a fresh child, if this one is not fit, is sent the frame without it
                self.passing_on = False
                self._write(frame, codec.pack({"batch": [PASS_ON, *batch]}, buffers, dumps=marshal.dumps))
            else:
                self._write(frame)

    def _take_hello(self, *, replace: bool = True) -> None:
        """Read the hello this child owes; if it is not fit to serve this test (it left without running
        what was sent), a fresh child takes its place and is sent all of it again (``replace``)."""
        if self.passing_on:  # the test sent nothing before it needed the hello
            self.passing_on = False
            with contextlib.suppress(BrokenPipeError):  # it left: reading its hello says so
                self._write_all(codec.pack({"batch": [PASS_ON]}, [], dumps=marshal.dumps))
        sent, self.sent, self.hello_owed = self.sent, None, False
        names = self.hello["names"]
        # The hello ends the last test's clean-up (its objects deleted, a __del__ of the code's among them): its
        # own short wait, never this test's time. A child that hangs there is replaced, costing no test a timeout.
        waiting_since, test_deadline = time.monotonic(), self.deadline
        self.deadline = min(test_deadline, waiting_since + HELLO_SECONDS)
        try:
            hello, _ = self._read_frame()
        except WorkerFailure:  # it died or hung between two tests (before the test's first request): replaced
            self.failure, hello = None, {}
        finally:
            self.deadline = test_deadline + (time.monotonic() - waiting_since)
        if self.tally is not None:
            self.tally.hello(self.test, hello)
        if hello.get("op") == "hello" and hello.get("fit") is True and hello.get("names") == names:
            self.hello = hello
            return
        if not replace:
            return
        self.close_fds()  # a child that is not fit exits by itself (grader.wall.worker.Server.serve)
        started, current = time.monotonic(), self.session.current
        fresh = self.session._start_fresh()
        self.session.current = current
        self._take_over(fresh)
        self.deadline += time.monotonic() - started  # a fresh child's start is not the test's time
        if self.hello["names"] != names:  # this test's objects were named after the last child's names
            self._fail_protocol("a fresh child of the same file described the lab's names differently")
        for frame in sent:
            try:
                self._write_all(frame)
            except BrokenPipeError:
                self._fail_crashed()

    def _take_over(self, fresh: Channel) -> None:
        """Serve this test with ``fresh``'s child: the objects already made keep this channel."""
        self.test, self.read_fd, self.write_fd, self.inbox = fresh.test, fresh.read_fd, fresh.write_fd, fresh.inbox
        self.hello, self.exit_status = fresh.hello, None
        fresh.read_fd = fresh.write_fd = -1

    def _wait_reply(self, args=None):
        if self.hello_owed:
            self._take_hello()
        while True:
            message, buffers = self._read_frame()
            op = message.get("op")
            decoder = codec.Decoder(buffers, self._decode_handle)
            try:
                if op == "reply":
                    if "error" in message:
                        self._raise_remote(self._claimed_error(message))
                    if args is not None and "mutated" in message:
                        _copy_back(args, _decoded(decoder, message["mutated"]))
                    return _decoded(decoder, message.get("ok"))
                if op == "callback":
                    call = self._callback_call(message, decoder)
                    # The frame is dropped before the call runs: a call back inside it holds its arguments, no more.
                    del message, buffers, decoder
                    self._answer_callback(*call)
                    continue
            except codec.ProtocolError as exc:
                self._fail_protocol(str(exc))
            self._fail_protocol(f"an unexpected {str(op)[:40]!r} message")

    def _claimed_error(self, holder: dict) -> dict:
        """The error a reply (or one answer of a read of several) says the code raised: an object, or
        the worker broke the protocol."""
        error = holder["error"]
        if type(error) is not dict:
            self._fail_protocol("an error that is not an object")
        return error

    def _callback_call(self, message, decoder) -> tuple:
        """The function a callback message asks for, and its arguments, checked as any other claim."""
        if self.tally is not None:
            self.tally.callback()
        if self.callback_depth >= MAX_CALLBACK_DEPTH:
            raise codec.ProtocolError(f"calls back nested more than {MAX_CALLBACK_DEPTH} deep")
        cb = message.get("cb")
        # Checked as any other claim: an unhashable id once raised the trusted side's TypeError, which the
        # test took for the code's own (a review's forgery passed the test that expects one).
        fn = self.callbacks.get(cb) if type(cb) is int else None
        if fn is None:  # before its arguments are decoded: a review's worker sent 14 of 200 MiB, which were kept
            raise codec.ProtocolError("a call back to a function the test did not hand over")
        args = _decoded(decoder, message.get("args", {"L": []}))  # malformed: a protocol error, raised as such
        kwargs = _decoded(decoder, message.get("kwargs", {"D": {}}))
        if type(args) is not list or type(kwargs) is not dict:
            raise codec.ProtocolError("a callback's arguments must be a list and a dict")
        return fn, args, kwargs

    def _answer_callback(self, fn, args: list, kwargs: dict):
        self.callback_depth += 1
        try:
            value = fn(*args, **kwargs)
            encoder = codec.Encoder(self._encode_handle, self._encode_callback, self.outbox_buffers)
            reply = {"op": "reply", "ok": encoder.value(value)}
        except WorkerFailure:
            raise
        except Exception as exc:  # the test's own function failed: the student's code sees an exception
            if not hasattr(exc, "labkit_type"):  # raised by the test itself, not by the code it called back into
                # Kept to be raised again, without its frames: they hold what the worker sent.
                self.callback_errors.append(exc.with_traceback(None))
                del self.callback_errors[:-CALLBACK_ERRORS_KEPT]
            reply = {"op": "reply", "error": {"type": _builtin_name(exc), "message": str(exc)[:2000]}}
        finally:
            self.callback_depth -= 1
        self._queue(reply)
        self._flush()

    def call(self, target, name: str | None, args: tuple, kwargs: dict):
        """Call ``target`` (name None) or its method ``name``; waits unless this call is known to return an object."""
        key = (type_of(target), name)
        learned = self.session.learned.get(key)
        result = learned if learned is not None and learned != "value" else "value"
        op = "call" if name is None else "method"
        reply = self.request(op, target, result=result, name=name, args=args, kwargs=kwargs)
        if learned is None:
            self.session.learned[key] = (
                "object" if isinstance(reply, RemoteObject) else "none" if reply is None else "value"
            )
        return reply

    def get_attribute(self, owner: RemoteObject, name: str):
        key = ("attribute", type_of(owner), name)
        # A name the lab's tests only call: whatever the object holds under it, the call reads it in the worker,
        # as obj.name(...) does in-process (a missing one raises its AttributeError there), so nothing to learn.
        if name in self.session.lab.methods or self.session.learned.get(key) == "method":
            return RemoteMethod(owner, name)
        value = _attribute(owner, name, self.request("getattr", owner, name=name))
        if isinstance(value, RemoteMethod):
            self.session.learned[key] = "method"
        return value

    def read_many(self, pairs, *, keep_errors: bool = False) -> list:
        """``[getattr(obj, name) for obj, name in pairs]`` in one request and one reply. A read that
        fails raises its error once every answer is in; ``keep_errors``: each answer is a pair
        (value, None) or (None, the exception), none raised (an error of an earlier operation is)."""
        if self.failure is not None:
            raise self.failure
        if self.recording:
            raise recording.NotRecordable("it reads values of the code under test")
        if not pairs:
            return []
        # A name None reads back the answer a getattr sent without waiting left in the worker (a snapshot).
        pairs_sent = [[self._handle_of(o), None if n is None else str(n)] for o, n in pairs]
        message = {"op": "getattrs", "id": self.next_id, "pairs": pairs_sent}
        self.next_id += 1
        if self.tally is not None:
            self.tally.request("getattrs", True)
        if self.released:
            message["rel"], self.released = self.released, []
        self.last = ("getattr", pairs[0][0], pairs[0][1])
        self._queue(message)
        self._flush()
        self._now_waiting()
        answers = self._wait_reply()
        if type(answers) is not list or len(answers) != len(pairs):
            # A broken promise of the protocol, not a worker that stopped: killed at once (waiting for it to end
            # cost each test 5 s, and a review's worker that did it at every read ran the lab out of its time).
            self._fail_protocol("the worker answered a read with the wrong number of values")
        values, first_error = [], None
        for (obj, name), answer in zip(pairs, answers, strict=True):
            if isinstance(answer, dict) and "error" in answer:
                error = self._claimed_error(answer)
                first_error = first_error or error
                values.append((None, self.session.exception_from(error)) if keep_errors else None)
            else:
                value = _attribute(obj, name, answer)
                values.append((value, None) if keep_errors else value)
        if first_error is not None and not keep_errors:
            self._raise_remote(first_error)
        return values

    def sync(self) -> None:
        """Wait until every request sent so far has run; raise the first error among them.

        Nothing to wait for if the last request waited and none was sent since (most tests end
        reading a value): the worker runs requests in order, and answers the first waiting one
        after an error with that error. A hello still owed is read (to pass the child on)."""
        if self.failure is None and self.hello is not None and (self.unsynced or self.outbox):
            self.request("sync", None)
        elif self.failure is None and self.hello_owed:
            self._take_hello()

    def ended_cleanly(self) -> bool:
        return (
            self.failure is None
            and self.unsynced == 0
            and self.hello is not None
            and not self.hello_owed
            and self.read_fd >= 0
        )

    def pass_on(self) -> Channel:
        """Ask the child to serve the next test; the returned channel is that test's.

        This one is done: the finished test's proxies cannot reach the child any more. The request
        goes with the next test's first frame (``passing_on``)."""
        following = Channel(self.session, self.test, self.read_fd, self.write_fd)
        following.next_id, following.inbox, following.passing_on = self.next_id, self.inbox, True
        # Its names are those it gave (it registered them once); it says whether it is fit with its first reply.
        following.hello, following.hello_owed, following.sent = self.hello, True, []
        self.read_fd = self.write_fd = -1
        self.failure = WorkerCrashed("an object from an earlier test was used in this one")
        return following

    def end(self) -> None:
        """Let the child exit; the zygote reaps it (and anything it left) while the next test runs.

        A child with requests still queued (the test failed before waiting for them) may be
        busy in them for a long time: it is killed instead.
        """
        if self.hello_owed:  # not asked for more: a fit child reads the end of its pipe and exits, one that is not has
            sent, self.hello_owed, self.sent = self.sent, False, None
            if sent and self.exit_status is None:  # it may be busy in what it was sent
                with contextlib.suppress(OSError):
                    self.session.box.send({"op": "kill", "test": self.test})
        elif self.failure is None and self.unsynced == 0:
            with contextlib.suppress(WorkerFailure, OSError):
                self._queue({"op": "end"})
                self._flush()
        elif self.exit_status is None:
            with contextlib.suppress(OSError):
                self.session.box.send({"op": "kill", "test": self.test})
        self.close_fds()
        self.exit_status = self.exit_status or {}

    def close_fds(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.read_fd = self.write_fd = -1


def _builtin_name(exc: BaseException) -> str:
    """The name of the nearest built-in class of ``exc`` (AssertionError for a failed check): the
    worker raises that in the code under test."""
    return next(c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c)


def _not_data(fn):
    raise TypeError(f"a function ({type(fn).__name__}) is not data")


def _decoded(decoder: codec.Decoder, value):
    """A value the worker sent, decoded: whatever decoding it raises, the worker broke the protocol (a
    forged value must never reach the test as an exception the code under test raised)."""
    try:
        return decoder.value(value)
    except codec.ProtocolError:
        raise
    except Exception as exc:  # noqa: BLE001 - numpy or Python refusing what no honest worker sends
        raise codec.ProtocolError(f"a value that cannot be decoded ({type(exc).__name__})") from None


def _attribute(owner: RemoteObject, name: str, answer):
    """What reading ``owner.name`` gives, from the worker's answer: a method, or the value."""
    if isinstance(answer, dict) and answer.get("method") is True:
        return RemoteMethod(owner, name)
    return answer["value"] if isinstance(answer, dict) and "value" in answer else answer


def _copy_back(args, mutated) -> None:
    """Apply to the caller's lists and arrays what the call changed in the worker's copies of them.

    ``mutated`` is a claim of the worker's: a map from an argument's position, as the worker writes it
    (``"0"``, ``"1"``, ...), to its new value. Anything else is the worker breaking the protocol, raised as
    such: never an exception of Python's (``int("²")``) that the test would take for the code's own."""
    positions = {str(i): i for i in range(len(args))}
    if type(mutated) is not dict or not all(index in positions for index in mutated):
        raise codec.ProtocolError("a call's changed arguments must be a map from their positions")
    for index, value in mutated.items():
        original = args[positions[index]]
        if type(original) is list and type(value) is list and len(value) == len(original):
            for i, item in enumerate(value):  # arrays in the list change in place, as they did in the worker
                if not _copy_into(original[i], item):
                    original[i] = item
        elif type(original) is list and type(value) is list:
            original[:] = value
        else:
            _copy_into(original, value)


def _copy_into(original, value) -> bool:
    """Write the array ``value`` into the array ``original`` in place: its values, and its shape when
    the call changed that in place (``x.shape = (-1,)``, which in-process changes the caller's array);
    False where numpy cannot do it in place (another size: then the list holding it gets ``value``)."""
    if type(original) is np.ndarray and type(value) is np.ndarray and value.size == original.size:
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            if value.shape != original.shape:
                original.shape = value.shape  # numpy refuses it for a view that cannot be reshaped in place
            original[...] = value
            return True
    return False


def _describe(op: str, target, name) -> str:
    """The request a child was running, in words, for timeout and crash messages."""
    type_name = type_of(target)
    if op == "method":
        return f"{type_name}.{name}()"
    if op == "call":
        return f"{type_name}(...)"
    if op in ("getattr", "setattr"):
        return f"reading {type_name}.{name}" if op == "getattr" else f"setting {type_name}.{name}"
    if op == "sync":
        return "the test's last operations"
    if op == "helper":
        return f"the test's loop {name}() on your code"
    if op == "start":
        return "the start of the test"
    if op == "import":
        return "the import of the submission"
    return f"{op} on {type_name}"


class WallSession:
    """One submission behind the wall: its sandbox, the current test's child and the next one.

    ``box``: a running sandbox to load the submission into (a batch job's students share
    one, one after another, so numpy is imported once per job, not once per student: the
    kernel keeps them apart, see grader.wall.sandbox); by default the session starts its own
    and stops it when it closes.
    """

    def __init__(self, lab, submission, limits: Limits, box: sandbox.Sandbox | None = None):
        self.lab = lab
        self.submission = submission
        self.limits = limits
        self.shortened = False  # a test of this submission timed out: the tests after it have less time
        self.owns_box = box is None
        self.box = box if box is not None else sandbox.start(lab, limits)
        self.load = self.box.load(submission)
        self.learned: dict = {}
        destination = profile.destination()
        self.tally = profile.Tally(destination) if destination is not None else None
        self.broken: SubmissionError | None = None
        self.line_count: int | None = None  # the file's lines, to check a line the worker names against
        try:  # the file as every way in reads it: one the kit refuses never runs, whatever the compiler allows
            self.line_count = intake.read(submission).line_count
        except SubmissionError as exc:
            self.broken = exc
        self.ready = False
        self.spoiled = False  # the sandbox cannot serve another submission (a compile that outran its limit)
        self.current: Channel | None = None
        self.following: Channel | None = None  # the last test's child, asked to serve the next
        self.spares: list[Channel] = []  # children forked ahead, each getting ready during earlier tests
        self.stand_ins: dict[str, type] = {}
        self.exits: dict[str, dict] = {}  # test -> how its child exited
        self.events: dict[tuple, dict] = {}  # (test, op) -> a message not yet asked for
        self.forks = 0
        if self.broken is None:
            self.spares.append(self._fork())  # the zygote forks it as soon as it is ready

    @property
    def protections(self) -> list[str]:
        return self.box.protections

    def after_a_timeout(self) -> None:
        """A test of this submission timed out: each later test has the shorter limit (grader.limits)."""
        shorter = self.limits.after_a_timeout()
        self.shortened = self.shortened or shorter.test_seconds < self.limits.test_seconds
        self.limits = shorter

    # -- the zygote ----------------------------------------------------------------------
    def _control(self, timeout: float) -> dict | None:
        readable, _, _ = select.select([self.box.control], [], [], timeout)
        if not readable:
            return None
        try:
            data = self.box.control.recv(1 << 16)
        except OSError:  # the zygote died with the socket's data unread
            data = b""
        if not data:
            raise WorkerCrashed("crashed: the worker's process stopped unexpectedly")
        return json.loads(data)

    def _wait_ready(self) -> None:
        if self.ready:
            return
        load = f"load{self.load}"
        if self._await(load, "compiling", 60) is None:  # the sandbox's start (numpy's import) comes first
            raise WorkerCrashed("crashed: the worker did not start")
        message = self._await(load, "loaded", self.limits.import_seconds)
        self.ready = True
        if message is None:  # compiling is part of importing: a review's 1 MiB of nested code took minutes
            self.spoiled = True  # its loader is still at it: the sandbox is closed, not unloaded
            self.broken = self.broken or verdicts.import_timed_out(self.submission.name, self.limits.import_seconds)
            return
        if message.get("syntax_error") and self.broken is None:
            error = message["syntax_error"]
            what = verdicts.TOO_DEEP_TO_COMPILE if error.get("too_deep") is True else str(error.get("message", ""))
            line = verdicts.line_in_file(error.get("line"), self.line_count)
            self.broken = verdicts.syntax_error(self.submission.name, line, what)

    def _fork(self) -> Channel:
        self.forks += 1
        test = f"l{self.load}t{self.forks}"  # unique in the box: messages about earlier loads may still arrive
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        workdir = self.box.new_workdir()
        try:
            socket.send_fds(
                self.box.control,
                [json.dumps({"op": "fork", "test": test, "workdir": workdir, "cpu": self.box.cpu}).encode()],
                [to_child_r, from_child_w],
            )
        except OSError:  # the sandbox has ended (its zygote or loader failed): the test crashed, not the kit
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            raise WorkerCrashed("crashed: the worker's process stopped unexpectedly") from None
        os.close(to_child_r)
        os.close(from_child_w)
        _set_pipe(to_child_w, blocking=False)
        _set_pipe(from_child_r, blocking=True)
        return Channel(self, test, from_child_r, to_child_w)

    def _await(self, test: str, op: str, timeout: float) -> dict | None:
        """The zygote's message ``op`` about ``test``. Messages about other tests (a spare's
        "forked" arriving while a crash is examined) are kept for when they are asked for."""
        deadline = time.monotonic() + timeout
        while True:
            if op == "exited" and test in self.exits:
                return {"op": op, "test": test, "status": self.exits[test]}
            if (test, op) in self.events:
                return self.events.pop((test, op))
            message = self._control(max(deadline - time.monotonic(), 0))
            if message is None:
                return None
            if message.get("op") == "exited":
                self.exits[message["test"]] = message["status"]
            else:
                self.events[(message.get("test"), message.get("op"))] = message

    def kill(self, channel: Channel) -> dict:
        if channel.test not in self.exits:
            self.box.send({"op": "kill", "test": channel.test})
        return self.wait_exit(channel)

    def wait_exit(self, channel: Channel) -> dict:
        if channel.exit_status is None:
            if channel.test not in self.exits and self._await(channel.test, "exited", 5) is None:
                self.box.send({"op": "kill", "test": channel.test})
                self._await(channel.test, "exited", 10)
            channel.exit_status = self.exits.pop(channel.test, {"signal": signal.SIGKILL})
            channel.close_fds()
        return channel.exit_status

    # -- tests ---------------------------------------------------------------------------
    def begin(self) -> Channel:
        """The current test's channel, started on first use."""
        if self.current is not None:
            return self.current
        self._wait_ready()
        if self.broken is not None:
            raise self.broken
        channel = self._take_following()
        if channel is None:
            channel = self._start_fresh()
        channel.start_clock()
        self.current = channel
        return channel

    def _take_following(self) -> Channel | None:
        """The last test's child, to serve this one. It says whether it is fit with the test's first reply,
        not before: a child that is not is replaced then, and sent the test's requests again
        (Channel._take_hello), which costs a test nothing in the common case of a round trip."""
        channel, self.following = self.following, None
        if channel is not None:
            channel.last = ("start", None, None)
        return channel

    def _start_fresh(self) -> Channel:
        channel = self.spares.pop(0) if self.spares else self._fork()
        try:
            if self._await(channel.test, "forked", 30) is None and channel.test not in self.exits:
                raise WorkerCrashed("crashed: the worker could not start a process for this test")
        except BaseException:  # also a trusted-side timeout: the child must not outlive its test
            with contextlib.suppress(OSError):
                self.box.send({"op": "kill", "test": channel.test})
            channel.close_fds()
            raise
        self.current = channel
        channel.deadline = time.monotonic() + self.limits.import_seconds
        try:
            channel.last = ("import", None, None)
            hello, _ = channel._read_frame()
        except CpuLimitReached:
            self.broken = verdicts.import_over_cpu(self.submission.name, self.limits.cpu_seconds)
            raise self.broken from None
        except WorkerTimeout:
            self.broken = verdicts.import_timed_out(self.submission.name, self.limits.import_seconds)
            raise self.broken from None
        except WorkerCrashed as exc:
            self.broken = verdicts.import_stopped_worker(self.submission.name, exc.message)
            raise self.broken from None
        if self.tally is not None:
            self.tally.hello(channel.test, hello)
        if type(hello.get("import_error")) is dict:
            error = hello["import_error"]
            kind, what = str(error.get("type", "Exception")), str(error.get("message", ""))
            if kind == "OSError" and "File too large" in what:  # printed past the output limit (SIGXFSZ is ignored)
                what = f"{what} (the output limit is {self.limits.output_kb} KiB)"
            line = verdicts.line_in_file(error.get("line"), self.line_count)
            self.broken = verdicts.import_failed(self.submission.name, kind, line, what)
            raise self.broken
        if hello.get("op") != "hello" or not _valid_names(hello.get("names"), self.lab.public):
            channel._fail_protocol("its first message does not describe the lab's names")
        channel.hello = hello
        return channel

    def end(self) -> None:
        """Finish the current test: its child serves the next one if it ended cleanly, else it exits."""
        channel, self.current = self.current, None
        if channel is not None:
            if channel.ended_cleanly():
                try:
                    self.following = channel.pass_on()
                except (WorkerFailure, OSError):
                    channel.end()
            else:
                channel.end()
        while self.broken is None and len(self.spares) < SPARES:
            self.spares.append(self._fork())

    def close(self) -> None:
        if self.tally is not None:
            self._write_profile()
        for channel in (self.current, self.following, *self.spares):
            if channel is not None:
                channel.close_fds()
        if not self.owns_box and not self.spoiled:
            # A shared box serves the next submission only once every process of this one is
            # dead and what it wrote is gone; if it cannot say so, it is stopped.
            try:
                self.box.unload()
                unloaded = self._await(f"load{self.load}", "unloaded", 10)
            except (OSError, WorkerFailure):
                unloaded = None
            if unloaded is not None:
                self.box.forget_folder()
                return
        self.box.close()

    def _write_profile(self) -> None:
        """Append this submission's profile (grader.wall.profile), with the costs its last child
        reported after the last test (the hello that child owes)."""
        if self.following is not None:
            self.following.deadline = time.monotonic() + self.limits.call_seconds
            with contextlib.suppress(WorkerFailure):
                self.following._take_hello(replace=False)  # closed with the others
        self.tally.write(self.submission.name)

    # -- names and exceptions ------------------------------------------------------------
    def public(self, name: str):
        channel = self.begin()
        described = channel.hello["names"].get(name, {"kind": "missing"})
        if described["kind"] == "missing":
            raise verdicts.missing_name(self.lab, name)
        if described["kind"] == "exception":
            return self._stand_in(name, described["bases"])
        return RemoteObject(channel, described["id"], name)

    def _stand_in(self, name: str, bases: list[str]) -> type:
        """A local exception class standing for one of the lab's public exception classes."""
        if name not in self.stand_ins:
            base = _builtin_exception(bases)
            self.stand_ins[name] = type(name, (base,), {"__module__": "submission"})
        return self.stand_ins[name]

    def exception_from(self, error: dict) -> BaseException:
        name = str(error.get("type", "Exception"))
        kind = self.stand_ins[name] if name in self.stand_ins else _builtin_exception(error.get("bases", []))
        message = str(error.get("message", ""))
        if kind is RuntimeError and name in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
            message = f"the code under test raised {name} (exit() or the like) during an operation"
        try:
            exc = kind(message)
        except TypeError:
            exc = RuntimeError(f"{name}: {message}")
        exc.labkit_where = str(error.get("where", ""))[:200]
        exc.labkit_line = verdicts.line_in_file(error.get("line"), self.line_count)
        functions = error.get("functions")
        functions = functions[: codec.ERROR_FUNCTIONS] if isinstance(functions, list) else []
        exc.labkit_functions = tuple(str(f)[:200] for f in functions)
        exc.labkit_trace = str(error.get("trace", ""))[:3000]
        exc.labkit_type = name[:100]
        if isinstance(exc, OSError) and "File too large" in message:  # the output limit (SIGXFSZ is ignored)
            exc.args = (f"{message} (the output limit is {self.limits.output_kb} KiB)",)
        if isinstance(exc, MemoryError):
            exc.args = (f"{message + ' ' if message else ''}(the memory limit is {self.limits.memory_mb} MiB)",)
        return exc


def _valid_names(names, public) -> bool:
    """Whether a child's description of the lab's public names is one the trusted side can use."""
    if type(names) is not dict:
        return False
    for name, described in names.items():
        if name not in public or type(described) is not dict:
            return False
        kind = described.get("kind")
        if kind == "exception":
            if type(described.get("bases")) is not list:
                return False
        elif kind in ("class", "object"):
            if type(described.get("id")) is not int or not 1 <= described["id"] <= len(public):
                return False
        elif kind != "missing":
            return False
    return True


def _builtin_exception(bases) -> type:
    for base in bases if isinstance(bases, list) else []:
        kind = getattr(builtins, str(base), None)
        if isinstance(kind, type) and issubclass(kind, Exception) and kind is not BaseException:
            return kind
    return RuntimeError

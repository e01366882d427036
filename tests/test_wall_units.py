"""The wall's parts on their own: the codec, the proxies, the sandbox's limits (the static scan: test_scan.py)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from grader.limits import Limits
from grader.testing import constant
from grader.wall import codec, profile
from grader.wall.proxy import RemoteObject, remote_type_name


def roundtrip(value, handle=lambda x: {"H": 7, "t": type(x).__name__}, keep_read_only=False):
    encoder = codec.Encoder(handle)
    frame = codec.encode_message({"op": "reply"}, encoder, ok=value)
    message, buffers = codec.unpack(frame)
    decoder = codec.Decoder(buffers, lambda hid, t: ("handle", hid, t), keep_read_only=keep_read_only)
    return decoder.value(message["ok"])


def test_values_cross_exactly():
    value = (1, 2.5, -0.0, math.inf, "s", None, True, [np.float64(0.1), np.int64(3)], {"k": np.bool_(True)})
    back = roundtrip(value)
    assert back == value
    assert type(back[7][0]) is np.float64 and type(back[7][1]) is np.int64 and type(back[8]["k"]) is np.bool_
    assert math.isnan(roundtrip(math.nan))


def test_arrays_cross_as_private_exact_copies():
    for array in (np.arange(12.0).reshape(3, 4) / 7, np.arange(5), np.array([True, False]), np.zeros((0, 3))):
        back = roundtrip(array)
        assert type(back) is np.ndarray and back.dtype == array.dtype and back.shape == array.shape
        assert back.tobytes() == array.tobytes() and back.flags.writeable


def test_a_read_only_array_stays_read_only_for_good_only_on_the_workers_side():
    """grader.testing.constant: the test's read-only operand cannot be changed in the worker either, by a
    write or by making it writable again; what the worker sends the trusted side is always a writable copy."""
    weights = constant(np.arange(6.0).reshape(2, 3))
    assert not weights.flags.writeable
    with pytest.raises(ValueError, match="WRITEABLE"):
        weights.setflags(write=True)
    in_worker = roundtrip(weights, keep_read_only=True)
    assert in_worker.tobytes() == weights.tobytes() and in_worker.shape == (2, 3) and not in_worker.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        in_worker *= 2.0
    with pytest.raises(ValueError, match="WRITEABLE"):
        in_worker.setflags(write=True)
    assert roundtrip(weights).flags.writeable  # the trusted side's copies are its own
    assert roundtrip(np.ones(2), keep_read_only=True).flags.writeable
    assert roundtrip(constant(np.zeros((0, 3))), keep_read_only=True).shape == (0, 3)


def test_objects_that_are_not_data_stay_behind_handles():
    class Lying(float):
        def __eq__(self, other):
            return True

    assert roundtrip(Lying(1.0)) == ("handle", 7, "Lying")
    assert roundtrip(np.array([1.0]).view(type("Sub", (np.ndarray,), {})))[0] == "handle"
    assert roundtrip(np.array([object()], dtype=object))[0] == "handle"


@pytest.mark.parametrize(
    "header",
    [
        {"ok": {"A": 0, "s": [2], "d": "|O"}, "bl": [16]},  # object arrays are never decoded
        {"ok": {"A": 0, "s": [3], "d": "<f8"}, "bl": [16]},  # the size does not match the buffer
        {"ok": {"A": 5, "s": [1], "d": "<f8"}, "bl": [8]},  # no such buffer
        {"ok": {"Z": 1}},  # an unknown tag
        {"ok": {"H": "7"}},  # a handle must be a number
        {"ok": {"A": 0, "s": [1], "d": ["<f8"]}, "bl": [8]},  # a dtype must be a string (a list is unhashable)
        {"ok": {"A": 0, "s": [0, 2**62, 2**62], "d": "<f8"}, "bl": [0]},  # no bytes, a shape numpy cannot hold
    ],
)
def test_malformed_values_are_rejected(header):
    frame = _raw(dict(header))
    message, buffers = codec.unpack(frame)
    with pytest.raises(codec.ProtocolError):
        codec.Decoder(buffers, lambda *a: None).value(message["ok"])


def _raw(header):
    """A frame built by hand, as a hostile worker could send it."""
    lengths = header.pop("bl", [])
    header = dict(header, bl=lengths) if lengths else header
    body = codec.json_dumps(header)
    buffers = b"".join(b"\0" * n for n in lengths)
    return codec.HEADER.pack(len(body), len(buffers)) + body + buffers


def test_a_frame_that_is_not_json_is_rejected():
    with pytest.raises(codec.ProtocolError):
        codec.unpack(codec.HEADER.pack(4, 0) + b"\x80abc")


@pytest.mark.parametrize(
    "lengths, buffers",
    [
        (5, b""),  # not a list: Python's TypeError once reached the test
        ([0] * (codec.MAX_BUFFERS + 1), b""),  # a view of the frame each: a review's 4.2 million cost 900 MB
        ([4], bytes(8)),  # fewer bytes than the frame holds
        ([4, 4], bytes(4)),  # more
    ],
    ids=["not a list", "too many", "short of the frame", "past the frame"],
)
def test_buffer_lengths_are_a_bounded_list_that_adds_up_to_the_frame(lengths, buffers):
    header = json.dumps({"op": "reply", "ok": 1, "bl": lengths}).encode()
    with pytest.raises(codec.ProtocolError):
        codec.unpack(codec.HEADER.pack(len(header), len(buffers)) + header + buffers)


def test_proxy_equality_is_identity_and_never_asks_the_worker():
    class Channel:
        public_count = 0

        def release(self, hid):
            pass

    a, b = RemoteObject(Channel(), 9, "Tensor"), RemoteObject(Channel(), 9, "Tensor")
    assert a == a and a != b and len({a, a}) == 1
    assert remote_type_name(a).startswith("Tensor")


def test_limits_from_lab_metadata():
    limits = Limits.from_lab({"test_seconds": 4.0, "memory_mb": 256.0, "run_seconds": 30})
    assert limits.test_seconds == 4.0 and limits.cpu_seconds == 4 and limits.memory_mb == 256
    assert isinstance(limits.memory_mb, int) and isinstance(limits.cpu_seconds, int)


def test_a_profile_keeps_only_the_costs_a_child_could_have_spent():
    """What a child reports in its hello is a claim: a cost that is no finite number of seconds from 0
    to a day is dropped, and only the latest report of each child counts."""
    tally = profile.Tally(Path("unused.jsonl"))
    tally.request("getattr", True)
    tally.request("method", False)
    tally.request("getattrs", True)
    tally.callback()
    honest = {"starting": 0.01, "running": 0.5, "reading": 0.1, "writing": 0.05, "handling": 0.02, "cpu": 0.68}
    tally.hello("l1t1", {"costs": dict(honest, running=0.1)})
    tally.hello("l1t1", {"costs": honest})
    forged = {"running": -1.0, "reading": math.inf, "writing": "0.1", "handling": 1e9, "cpu": True, "x": 1.0}
    tally.hello("l1t2", {"costs": {**forged, "starting": 0.5}})
    tally.hello("l1t3", {"costs": [1.0]})
    figures = tally.as_dict("s.py")
    assert figures["requests"] == 3 and figures["round_trips"] == {"read": 2, "callback": 1}
    assert figures["children"] == 2 and figures["worker_s"] == {**honest, "starting": 0.51}


def _program_of(f):
    """``f`` recorded (grader.wall.recording), then decoded as the worker decodes it: a function."""
    from grader.wall import recording, worker

    buffers: list[bytes] = []
    program = recording.record(recording.Recorded(f), codec.Encoder(lambda x: {"H": 1}, None, buffers).value)
    frame = codec.pack({"op": "call", "args": [{"P": program}]}, buffers)
    message, views = codec.unpack(frame)
    decoder = codec.Decoder(views, lambda hid, t=None: None, program=worker.recorded_function)
    return decoder.value(message["args"][0])


def test_a_recorded_function_applies_the_same_operations_in_the_worker():
    from reference.ch06 import Tensor

    w = constant(np.linspace(-1, 1, 4).reshape(2, 2, 1))
    functions = [
        lambda a, b: ((a @ b).tanh().mean(axis=-1, keepdims=True) * w).sum(),
        lambda a, b: (2.0 - a * b).exp().sum(axis=(0, 1)) / 3.0,
        lambda a, b: sum([a * b, -a, 1.5 * b]).relu().sum(),
    ]
    x, y = np.linspace(-1, 1, 12).reshape(2, 2, 3), np.linspace(0.5, 1.5, 12).reshape(2, 3, 2)
    for f in functions[:1]:
        assert _program_of(f)(Tensor(x), Tensor(y)).data == f(Tensor(x), Tensor(y)).data
    x, y = np.linspace(-1, 1, 6).reshape(2, 3), np.linspace(0.5, 1.5, 6).reshape(2, 3)
    for f in functions[1:]:
        assert np.array_equal(_program_of(f)(Tensor(x), Tensor(y)).data, f(Tensor(x), Tensor(y)).data)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        _program_of(functions[1])(Tensor(x))


@pytest.mark.parametrize(
    "f",
    [
        lambda a: a.data * 2,  # reads a value
        lambda a: a if a else a,  # tests it for truth
        lambda a: float(a),
        lambda a: a.sum() + len(a),
        lambda a: np.float64(3.0),  # returns what is not an operation's result
        lambda a, *rest: a.sum(),  # not plain positional arguments
        lambda a, k=2: a * k,
        lambda a: a.reshape([a, 2]),  # an object of the code inside another value
        lambda a: a.apply(lambda v: v),  # a function
        lambda a: setattr(a, "grad", 0.0),
        lambda a: a.sum() if a.ndim == 2 else (a * 2.0).sum(),  # branches on an attribute
        lambda a: (a * 3.0).sum() if a.requires_grad else a.sum(),
    ],
)
def test_a_function_that_does_more_than_operations_is_not_recorded(f):
    from grader.wall import recording

    with pytest.raises(recording.NotRecordable):
        recording.record(recording.Recorded(f), codec.Encoder(lambda x: (_ for _ in ()).throw(TypeError("no"))).value)


def test_the_trusted_side_never_decodes_a_program():
    """Only the worker runs a recorded function: a reply that holds one is a protocol error."""
    frame = codec.pack({"op": "reply", "ok": {"P": {"n": 0, "steps": [], "out": 0}}}, [])
    message, buffers = codec.unpack(frame)
    with pytest.raises(codec.ProtocolError, match="unknown value tag"):
        codec.Decoder(buffers, lambda hid, t: None).value(message["ok"])

"""Plain data across the wall: framing and value encoding, shared by both sides.

This module is also executed inside the worker (which cannot import the kit), so it
uses only the standard library and numpy, and imports nothing from the kit.

A frame is ``<u32 header length><u32 buffers length><JSON header><raw buffers>``; the
header is one message, or ``{"batch": [message, ...]}`` for requests queued together.
Values are JSON, with tagged objects for what JSON lacks:

  {"T": [...]} tuple, {"L": [...]} list, {"D": {...}} dict with str keys,
  {"f8": x} numpy float64, {"i8": n} numpy integer, {"b1": b} numpy bool,
  {"A": i, "s": shape, "d": dtype} an array whose bytes are buffer i ("ro": 1 added when the
      sender's array is read-only: the worker then makes its copy read-only for good),
  {"H": id, "t": type name} a handle to an object that stays on the side that owns it,
  {"C": id} a callable of the trusted side that the worker may call back,
  {"P": program} a function of the test's recorded as operations (grader.wall.recording), which the
      worker runs itself (only the worker decodes it: it comes from the trusted side).

Decoding never unpickles and accepts only those tags and a short list of numeric
dtypes, so nothing the worker sends can become an object with behaviour.
"""

from __future__ import annotations

import json
import math
import os
import struct

import numpy as np

HEADER = struct.Struct("<II")
READ_CHUNK = 1 << 16  # os.read allocates what it is asked for: large requests cost more than they save
MAX_FRAME_BYTES = 1 << 30  # what the worker accepts from the trusted side
# What the trusted side accepts from the worker: a JSON header becomes Python objects many
# times its size, so it is kept small; arrays arrive as raw bytes and are copied once.
MAX_REPLY_HEADER_BYTES = 8 << 20
# The labs' largest reply carries 165 KB of arrays (every test of both references behind the wall, measured
# 2026-12-07). Reading a frame costs the trusted process several times its size for a while: a security
# review's worker, sending 200 MiB frames under the 256 MiB of then, drove it to 2.8 GB of its 4 GiB.
MAX_REPLY_BUFFER_BYTES = 64 << 20
ARRAY_DTYPES = {"<f8", "<f4", "<i8", "<i4", "<i2", "|i1", "<u8", "<u4", "|u1", "|b1"}
MAX_DEPTH = 64  # nesting of decoded values
# Arrays in one message: a full run of each lab sends at most 56 (2026-12-07). Each costs the reader a view
# of the frame whatever its length: a review's 8 MiB header of 4.2 million zero lengths cost 900 MB.
MAX_BUFFERS = 4096
MAX_NDIM = 32  # of a decoded array (numpy's own limit is 64)
INT_BOUND = 1 << 63  # a decoded integer fits in 64 bits, so a test never works with a larger one
SCALAR_INT_TYPES = (np.integer,)
# An error's functions in the code under test, innermost first (grader.wall.worker.describe): a diagnosis
# reads them (grader.testing.diagnosis.explain_error), in-process from the traceback, as many.
ERROR_FUNCTIONS = 6


class ProtocolError(Exception):
    """A malformed frame or value: the other side broke the protocol."""


class Encoder:
    """Encodes one message; ``handle`` and ``callback`` say how to send objects that are not data."""

    def __init__(self, handle, callback=None, buffers: list[bytes] | None = None):
        self.buffers: list[bytes] = [] if buffers is None else buffers  # may be shared by a batch
        self.handle = handle
        self.callback = callback

    def value(self, x):
        kind = type(x)
        if x is None or kind in (bool, int, str):
            return x
        if kind is float:
            return x
        if kind is tuple:
            return {"T": [self.value(v) for v in x]}
        if kind is list:
            return {"L": [self.value(v) for v in x]}
        if kind is dict and all(type(k) is str for k in x):
            return {"D": {k: self.value(v) for k, v in x.items()}}
        if kind is np.float64:
            return {"f8": float(x)}
        if kind is np.bool_:
            return {"b1": bool(x)}
        if isinstance(x, SCALAR_INT_TYPES) and kind.__module__ == "numpy":
            return {"i8": int(x)}
        if kind is np.ndarray and x.dtype.str in ARRAY_DTYPES:
            self.buffers.append(np.ascontiguousarray(x).tobytes())
            encoded = {"A": len(self.buffers) - 1, "s": list(x.shape), "d": x.dtype.str}
            if not x.flags.writeable:
                encoded["ro"] = 1
            return encoded
        if self.callback is not None and callable(x) and not hasattr(x, "_labkit_handle"):
            return self.callback(x)
        return self.handle(x)


def may_change(x) -> bool:
    """Whether a call could change argument ``x`` in place, so that what it did is copied back to the
    caller: a list, or an array that is not read-only (grader.testing.constant's stays read-only)."""
    return type(x) is list or (type(x) is np.ndarray and x.flags.writeable)


def json_dumps(message) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def pack(message: dict, buffers: list[bytes], dumps=json_dumps) -> bytes:
    """A frame. The trusted side's requests are marshalled (fast, and the worker trusts them);
    everything the worker sends is JSON, which the trusted side can parse without risk."""
    message = dict(message, bl=[len(b) for b in buffers]) if buffers else message
    header = dumps(message)
    return HEADER.pack(len(header), sum(len(b) for b in buffers)) + header + b"".join(buffers)


def encode_message(message: dict, encoder: Encoder, **values) -> bytes:
    """A frame holding ``message`` plus ``values`` encoded with ``encoder``."""
    body = dict(message)
    for key, x in values.items():
        body[key] = encoder.value(x)
    return pack(body, encoder.buffers)


class Decoder:
    """Decodes one message's values; ``handle`` and ``callback`` turn references into local objects.

    ``keep_read_only``: an array sent read-only stays so (the worker's side: the trusted side
    needs no copy back of what a call could not change); otherwise every array is a writable copy."""

    def __init__(self, buffers: list[memoryview], handle, callback=None, keep_read_only: bool = False, program=None):
        self.buffers = buffers
        self.handle = handle
        self.callback = callback
        self.program = program
        self.keep_read_only = keep_read_only
        self.used: set[int] = set()  # each buffer is decoded once: a frame cannot cost more than its size

    def value(self, x, depth=0):
        if depth > MAX_DEPTH:
            raise ProtocolError("value nested too deeply")
        if type(x) is int:
            return _bounded(x)
        if x is None or type(x) in (bool, float, str):
            return x
        if type(x) is not dict or not 1 <= len(x) <= 4:
            raise ProtocolError(f"unexpected value {str(x)[:80]}")
        if "H" in x:  # the most common value: an object that stays where it lives
            return self.handle(_int(x["H"]), str(x.get("t", "object"))[:100])
        if "L" in x:
            return [self.value(v, depth + 1) for v in _list(x["L"])]
        if "T" in x:
            return tuple([self.value(v, depth + 1) for v in _list(x["T"])])
        if "D" in x:
            items = x["D"]
            if type(items) is not dict:
                raise ProtocolError("bad dict")
            return {str(k): self.value(v, depth + 1) for k, v in items.items()}
        if "f8" in x:
            return np.float64(_number(x["f8"]))
        if "i8" in x:
            if type(x["i8"]) is not int:
                raise ProtocolError("bad integer")
            return np.int64(_bounded(x["i8"]))
        if "b1" in x:
            return np.bool_(bool(x["b1"]))
        if "A" in x:
            return self._array(x)
        if "C" in x and self.callback is not None:
            return self.callback(_int(x["C"]))
        if "P" in x and self.program is not None:
            return self.program(x["P"], self)
        raise ProtocolError(f"unknown value tag in {str(x)[:80]}")

    def _array(self, x):
        dtype, shape, index = x.get("d"), x.get("s"), x.get("A")
        if type(dtype) is not str or dtype not in ARRAY_DTYPES or type(shape) is not list or len(shape) > MAX_NDIM:
            raise ProtocolError("bad array header")
        if not all(type(n) is int and 0 <= n < INT_BOUND for n in shape):
            raise ProtocolError("bad array shape")
        if type(index) is not int or not 0 <= index < len(self.buffers):
            raise ProtocolError("bad array buffer")
        if index in self.used:
            raise ProtocolError("an array buffer referenced twice")
        self.used.add(index)
        data = self.buffers[index]
        if len(data) != math.prod(shape) * np.dtype(dtype).itemsize:
            raise ProtocolError("array size does not match its buffer")
        try:  # a size of 0 matches any shape with a 0 in it, even one numpy cannot hold ([0, 2**62, 2**62])
            if self.keep_read_only and x.get("ro") == 1:
                # Over immutable bytes: numpy refuses to make it writable again (setflags(write=True) raises).
                return np.frombuffer(bytes(data), dtype=dtype).reshape(shape)
            return np.frombuffer(data, dtype=dtype).reshape(shape).copy()  # a private, writable, exact copy
        except ValueError as exc:
            raise ProtocolError(f"bad array shape: {str(exc)[:80]}") from None


def _bounded(n: int) -> int:
    if not -INT_BOUND <= n < INT_BOUND:
        raise ProtocolError("integer out of range")
    return n


def _list(x):
    if type(x) is not list:
        raise ProtocolError("bad sequence")
    return x


def _int(x):
    if type(x) is not int:
        raise ProtocolError("bad id")
    return x


def _number(x):
    if type(x) not in (int, float):
        raise ProtocolError("bad number")
    return float(x)


def unpack(frame: bytes, loads=json.loads) -> tuple[dict, list[memoryview]]:
    """The message and its buffers from one frame (without its 8-byte length prefix)."""
    header_len = int.from_bytes(frame[:4], "little")
    view = memoryview(frame)
    try:
        message = loads(bytes(view[8 : 8 + header_len]))
    except (ValueError, UnicodeDecodeError, EOFError, TypeError, RecursionError) as exc:
        raise ProtocolError(f"bad header: {str(exc)[:200]}") from None
    if type(message) is not dict:
        raise ProtocolError("a message must be an object")
    lengths = message.pop("bl", [])
    if type(lengths) is not list or len(lengths) > MAX_BUFFERS:
        raise ProtocolError("bad buffer lengths")
    buffers, offset = [], 8 + header_len
    for length in lengths:
        if type(length) is not int or length < 0 or offset + length > len(view):
            raise ProtocolError("bad buffer length")
        buffers.append(view[offset : offset + length])
        offset += length
    if offset != len(view):
        raise ProtocolError("the buffers' lengths do not add up to the frame's")
    return message, buffers


class FrameReader:
    """Frames from a descriptor, read in large chunks: many queued requests cost one read."""

    def __init__(self, fd: int, loads=json.loads):
        self.fd = fd
        self.loads = loads
        self.buffer = bytearray()
        self.start = 0

    def _fill(self, n: int) -> None:
        while len(self.buffer) - self.start < n:
            if self.start > (1 << 20):  # drop what was consumed
                del self.buffer[: self.start]
                self.start = 0
            chunk = os.read(self.fd, READ_CHUNK)
            if not chunk:
                raise EOFError("the other side closed the channel")
            self.buffer += chunk

    def next(self) -> tuple[dict, list[memoryview]]:
        self._fill(8)
        header_len, buffers_len = HEADER.unpack_from(self.buffer, self.start)
        if header_len + buffers_len > MAX_FRAME_BYTES:
            raise ProtocolError("frame too large")
        total = 8 + header_len + buffers_len
        self._fill(total)
        frame = bytes(self.buffer[self.start : self.start + total])
        self.start += total
        return unpack(frame, self.loads)


def write_frame(fd: int, frame: bytes) -> None:
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]

"""Appended to the honest reference: during Value ** Value it writes a malformed reply of its own
(which: KIND, filled in by the catalogue) straight into its reply pipe, ahead of the honest one.
The trusted side must bound it before it allocates: a protocol error, that test crashed, every
other test graded as honest."""

import numpy as np

_os = np._core.records.os
_json = np._core.numeric.sys.modules["json"]
_struct = np._core.numeric.sys.modules["struct"]
_honest_pow = Value.__pow__
KIND = "@KIND@"


def _frame(header, buffers=b""):
    return _struct.pack("<II", len(header), len(buffers)) + header + buffers


def _malformed():
    if KIND == "deep_json":
        return _frame(b'{"op": "reply", "ok": ' + b'{"L": [' * 100_000 + b"]}" * 100_000 + b"}")
    if KIND == "many_dimensions":
        ok = {"A": 0, "s": [1] * 65, "d": "<f8"}
        return _frame(_json.dumps({"op": "reply", "ok": ok, "bl": [8]}).encode(), bytes(8))
    if KIND == "huge_integer":
        return _frame(_json.dumps({"op": "reply", "ok": {"T": [2**70, 7000]}}).encode())
    if KIND == "huge_numpy_integer":
        return _frame(_json.dumps({"op": "reply", "ok": {"i8": 2**70}}).encode())
    if KIND == "shared_buffer":
        # One 1 MiB buffer named 100,000 times: decoded once per reference, it would cost 100 GB.
        array = {"A": 0, "s": [131072], "d": "<f8"}
        header = _json.dumps({"op": "reply", "ok": {"L": [array] * 100_000}, "bl": [1 << 20]}).encode()
        return _frame(header, bytes(1 << 20))
    if KIND == "dtype_not_a_string":  # unhashable: a TypeError, which the test expects of ** Value, if let through
        return _frame(_json.dumps({"op": "reply", "ok": {"A": 0, "s": [1], "d": ["<f8"]}, "bl": [8]}).encode(), bytes(8))
    if KIND == "shape_numpy_cannot_hold":  # 0 bytes match the size; numpy's ValueError, if let through
        ok = {"A": 0, "s": [0, 2**62, 2**62], "d": "<f8"}
        return _frame(_json.dumps({"op": "reply", "ok": ok, "bl": [0]}).encode())
    if KIND == "error_not_an_object":
        return _frame(_json.dumps({"op": "reply", "error": ["not", "an", "object"]}).encode())
    raise ValueError(KIND)


def _write_to_every_pipe(frame):
    """The reply pipe is one of the child's first descriptors; the others refuse a write."""
    for fd in range(3, 64):
        try:
            _os.write(fd, frame)
        except OSError:
            pass


def _pow(self, other):
    if isinstance(other, Value):
        _write_to_every_pipe(_malformed())
    return _honest_pow(self, other)


Value.__pow__ = _pow

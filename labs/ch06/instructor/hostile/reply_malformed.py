"""Appended to the honest reference: during Value ** Value it writes a malformed reply of its own
(which: KIND, filled in by the catalogue) straight into its reply pipe, ahead of the honest one.
The trusted side must bound it before it allocates: a protocol error, that test crashed, every
other test graded as honest.

KIND "forged_changes" writes its reply during gradcheck instead, when it is given one (2, 2) array: a
reply saying that the call changed argument "²" (a digit to str.isdigit, not to int). A security
review's forgery: the trusted side once took int("²")'s ValueError for the code's own, the very
exception test_gradcheck_rejects_a_multi_element_output expects.

KIND "nested_callbacks" writes, when gradcheck is handed the test's own function (only in
test_gradcheck_rejects_a_multi_element_output), forty calls back to it ahead of anything else: the
function asks the worker about its argument, and each question is answered by the next call back. A
review's worker did it 80 times with 64 MiB of unused buffer in each frame: the trusted process held
2 GB until the test's time limit."""

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
    if KIND == "unknown_callback":  # a call back to a function the test never handed over, with 8 MiB of argument
        args = {"L": [{"A": 0, "s": [8 << 20], "d": "|u1"}]}
        return _frame(_json.dumps({"op": "callback", "cb": 424242, "args": args, "bl": [8 << 20]}).encode(), bytes(8 << 20))
    if KIND == "callback_id_not_a_number":  # unhashable: a TypeError, which the test expects, if let through
        return _frame(b'{"op": "callback", "cb": [1]}')
    if KIND == "buffer_lengths_not_a_list":  # not iterable: a TypeError again
        return _frame(b'{"op": "reply", "ok": 1, "bl": 5}')
    if KIND == "many_empty_buffers":  # 8 MiB of zero lengths: 4.2 million views of the frame, 900 MB, if made
        count = ((8 << 20) - 100) // 2
        return _frame(b'{"op": "reply", "ok": 1, "bl": [' + b"0," * (count - 1) + b"0]}")
    if KIND == "forged_changes":
        return _frame(_json.dumps({"op": "reply", "ok": None, "mutated": {"D": {"\u00b2": {"L": []}}}}).encode())
    raise ValueError(KIND)


def _nested_callbacks(function):
    """Forty calls back to ``function`` (the worker's stub of the test's function holds its id), each with a
    handle for an argument: the test's function asks about it, and the next call back is the answer."""
    (callback_id,) = [c.cell_contents for c in function.__closure__ if type(c.cell_contents) is int]
    header = _json.dumps({"op": "callback", "cb": callback_id, "args": {"L": [{"H": 1}]}}).encode()
    return _frame(header) * 40


def _write_to_every_pipe(frame):
    """The reply pipe is one of the child's first descriptors; the others refuse a write."""
    for fd in range(3, 64):
        try:
            _os.write(fd, frame)
        except OSError:
            pass


def _pow(self, other):
    if isinstance(other, Value) and KIND not in ("forged_changes", "nested_callbacks"):
        _write_to_every_pipe(_malformed())
    return _honest_pow(self, other)


_honest_gradcheck = gradcheck


def gradcheck(f, inputs, eps=1e-6, atol=1e-6, rtol=1e-4):
    if KIND == "forged_changes" and len(inputs) == 1 and getattr(inputs[0], "shape", None) == (2, 2):
        _write_to_every_pipe(_malformed())
    if KIND == "nested_callbacks" and getattr(f, "__name__", "") == "call_trusted":
        _write_to_every_pipe(_nested_callbacks(f))
    return _honest_gradcheck(f, inputs, eps, atol, rtol)


Value.__pow__ = _pow

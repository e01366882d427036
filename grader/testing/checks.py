"""Checks that teach: exact conversions of what the code under test returned, and failure messages
that say what was computed, what was expected, and what the likely bug is."""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from grader.testing.remote import read_each, sync
from grader.wall.proxy import remote_type_name


class LabCheckFailure(AssertionError):
    """A failed check: ``message`` says what went wrong, ``hint`` what to look at."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message + (f"\nhint: {hint}" if hint else ""))
        self.message = message
        self.hint = hint


def fail(message: str, hint: str = ""):
    raise LabCheckFailure(message, hint)


def show(x, digits: int = 0) -> str:
    """A compact one-line rendering of a number or an array for messages (``digits``: significant
    digits of each number, 0 for the usual eight, six in an array)."""
    if isinstance(x, (list, tuple)) and all(isinstance(v, (int, float)) for v in x):
        x = np.array(x, dtype=np.float64)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = float(x)
    if isinstance(x, np.ndarray):
        # Plain numbers, as a person writes them: 4 and 0.5, not numpy's "4." or "5.000000e-01".
        text = np.array2string(
            x,
            threshold=24,
            edgeitems=3,
            max_line_width=10_000,
            separator=", ",
            formatter={"float_kind": lambda v: f"{v:.{digits or 6}g}"},
        )
        return " ".join(text.split())
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.{digits or 8}g}"  # eight digits: what a check's tolerance can tell apart, no noise
    return repr(x)


_FLOAT_TYPES = (float, np.float64)


def as_float(x, what: str) -> float:
    """``x`` as an exact Python float, or a failure naming ``what`` had the wrong type.

    Only float and numpy float64 are accepted: an object that merely claims to equal
    a number proves nothing.
    """
    if type(x) not in _FLOAT_TYPES:
        fail(
            f"{what} should be a float, got {remote_type_name(x)}",
            "store numbers as Python floats, e.g. float(data)",
        )
    return float(x)


def read_floats(reads) -> list[float]:
    """``[as_float(getattr(obj, name), what) for obj, name, what in reads]``: read together (behind the
    wall, one round trip) and converted in turn, each failure where reading them one by one would fail."""
    reads = list(reads)
    taken = read_each((obj, name) for obj, name, _ in reads)
    return [as_float(take(), what) for take, (_, _, what) in zip(taken, reads, strict=True)]


def as_array(x, what: str) -> np.ndarray:
    """A private float64 copy of ``x``, which must be a float64 numpy array."""
    if type(x) is not np.ndarray:
        fail(
            f"{what} should be a numpy array, got {remote_type_name(x)}",
            "store arrays as float64 numpy arrays, e.g. np.array(data, dtype=np.float64)",
        )
    if x.dtype != np.float64:
        fail(f"{what} should have dtype float64, got {x.dtype}", "convert with dtype=np.float64")
    return np.array(x, dtype=np.float64, copy=True)


MAX_ELEMENTS = 1 << 22  # what a test may allocate by a shape the code under test reported


def as_shape(x, what: str, max_elements: int = MAX_ELEMENTS) -> tuple[int, ...]:
    """``x`` as a shape the trusted side may allocate by: a tuple of at most 32 non-negative ints
    whose product is at most ``max_elements``. A shape read from the code under test is only a
    claim: (7000, 7000) from a 20-byte reply must not cost the grader gigabytes."""
    if type(x) not in (tuple, list) or len(x) > 32 or not all(isinstance(n, (int, np.integer)) for n in x):
        fail(f"{what} should be a tuple of ints, got {remote_type_name(x)}", "shape is data.shape, a tuple of ints")
    shape = tuple(int(n) for n in x)
    if any(n < 0 for n in shape) or math.prod(shape) > max_elements:
        fail(f"{what} is {shape}: not a shape this test can use (at most {max_elements} elements)")
    return shape


def show_apart(expected, got) -> tuple[str, str]:
    """``show`` of both, with every digit when the usual ones print them alike: "expected 12, got 12"
    says nothing (a numerical derivative off by 1e-8, a default h of 1e-4 instead of 1e-6)."""
    shown = show(expected), show(got)
    return shown if shown[0] != shown[1] else (show(expected, 17), show(got, 17))


def expect_shape(got: tuple, expected: tuple, what: str, hint: str = ""):
    if tuple(got) != tuple(expected):
        fail(f"{what}: expected shape {tuple(expected)}, got {tuple(got)}", hint)


def expect_close(got, expected, what: str, *, atol: float = 1e-9, rtol: float = 1e-9, hint: str = ""):
    """Fail unless ``got`` (already an exact float or float64 array) matches ``expected`` elementwise."""
    got_arr, exp_arr = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if got_arr.shape != exp_arr.shape:
        fail(f"{what}: expected shape {exp_arr.shape}, got {got_arr.shape}", hint)
    if not np.allclose(got_arr, exp_arr, atol=atol, rtol=rtol, equal_nan=True):
        message = "{}: expected {}, got {}".format(what, *show_apart(expected, got))
        if got_arr.size > 1:
            error = np.abs(got_arr - exp_arr)
            error[np.isnan(error)] = np.inf
            worst = np.unravel_index(np.argmax(error), error.shape)
            message += f" (largest difference at index {tuple(int(i) for i in worst)})"
        fail(message, hint)


@contextmanager
def raises(exc_type: type[BaseException], what: str, hint: str = ""):
    """Expect ``exc_type`` from the block; say which call should have raised when it does not.

    Any other exception is left to propagate: it is the code under test's own error,
    reported as such.
    """
    sync()  # an error of an operation before the block belongs to it, as in-process, not to the block
    try:
        yield
        sync()  # behind the wall an operation's error may surface only when the worker catches up
    except exc_type:
        return
    fail(f"{what} should raise {exc_type.__name__}, but it returned normally", hint)

"""The kit's own gradient checker for the code under test.

A computation ``f`` is written once against the engine API and run twice: on the
code under test (forward, then backward) and on the trusted oracle of spec.py,
whose central differences give the expected gradients. Nothing the student can
edit takes part in computing the expected numbers.
"""

from __future__ import annotations

import numpy as np

from grader.testing.checks import as_array, as_float, expect_close, fail, show
from grader.testing.numeric import numerical_gradient
from grader.testing.spec import SpecScalar, SpecTensor

# The chapter's gradcheck tolerances: far below what a wrong rule is off by.
GRAD_ATOL = 1e-6
GRAD_RTOL = 1e-4
# A forward value is plain float64 arithmetic: only the order of operations may differ.
FORWARD_ATOL = 1e-10
FORWARD_RTOL = 1e-9


def _diagnose(got: np.ndarray, expected: np.ndarray) -> str:
    """Name the likely bug from how a wrong gradient relates to the right one."""

    def close(a, b):
        return a.shape == b.shape and np.allclose(a, b, atol=GRAD_ATOL, rtol=GRAD_RTOL)

    if not np.all(np.isfinite(got)):
        return "the gradient has inf or nan entries where the numerical one is finite"
    if np.allclose(got, 0.0) and not np.allclose(expected, 0.0, atol=GRAD_ATOL):
        return (
            "no gradient reached this input: is the backward rule attached to the output, "
            "and does backward() visit every node of the graph?"
        )
    if close(got, -expected):
        return "the gradient has the wrong sign"
    nonzero = np.abs(expected) > 1e-3
    if nonzero.any():
        ratios = got[nonzero] / expected[nonzero]
        if np.allclose(ratios, ratios[0], rtol=1e-6) and not np.isclose(ratios[0], 1.0):
            return (
                f"the gradient is {ratios[0]:.4g} times the right one: a missing or extra factor "
                "(a local derivative counted twice, or a constant such as 1/N or k forgotten)"
            )
    if got.ndim >= 2 and close(np.swapaxes(got, -1, -2), expected):
        return "the gradient is the transpose of the right one: check which factor is transposed"
    return ""


def _compare_gradient(got, expected: np.ndarray, what: str, hint: str):
    if got.shape != expected.shape:
        fail(
            f"{what}: the gradient has shape {got.shape}, but its input has shape {expected.shape}",
            "a gradient always has the shape of what it is the gradient of: sum a broadcast "
            "operand's gradient back over the broadcast axes" + (f"; {hint}" if hint else ""),
        )
    if not np.allclose(got, expected, atol=GRAD_ATOL, rtol=GRAD_RTOL):
        likely = _diagnose(got, expected)
        hints = "; ".join(h for h in (likely, hint) if h)
        fail(f"{what}: expected {show(expected)}, got {show(got)}", hints)


def check_tensor_gradients(Tensor, f, inputs, what: str, *, hint: str = "", seed=None, forward_hint: str = ""):
    """Check ``f``'s forward value and every input's gradient on the code under test.

    ``f`` takes one tensor per input and returns a tensor; ``seed`` is the gradient
    passed to ``backward`` for a multi-element output (None: a single-element output).
    """
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    seed_array = None if seed is None else np.array(seed, dtype=np.float64)

    def spec_loss(i, x):
        args = [SpecTensor(x if j == i else arrays[j]) for j in range(len(arrays))]
        value = f(*args).data
        return float((value * seed_array).sum() if seed_array is not None else value.sum())

    expected_out = f(*[SpecTensor(a) for a in arrays]).data
    tensors = [Tensor(a.copy()) for a in arrays]
    out = f(*tensors)
    got_out = as_array(out.data, f"{what}: the result's .data")
    expect_close(
        got_out,
        expected_out,
        f"{what}: forward value",
        atol=FORWARD_ATOL,
        rtol=FORWARD_RTOL,
        hint=forward_hint or "the forward computation is wrong; fix it before looking at gradients",
    )
    if seed_array is None:
        out.backward()
    else:
        out.backward(seed_array.copy())
    for i, (tensor, array) in enumerate(zip(tensors, arrays, strict=True)):
        got = as_array(tensor.grad, f"{what}: input {i}'s .grad")
        expected = numerical_gradient(lambda x, i=i: spec_loss(i, x), array)
        label = f"{what}: gradient of input {i} (shape {array.shape})" if len(arrays) > 1 else f"{what}: gradient"
        _compare_gradient(got, expected, label, hint)


def check_scalar_gradients(Value, f, inputs, what: str, *, hint: str = ""):
    """Check ``f``'s forward value and every input's gradient for the scalar engine."""
    values = [float(x) for x in inputs]

    def spec_loss(i, x):
        args = [SpecScalar(float(x) if j == i else values[j]) for j in range(len(values))]
        return f(*args).data

    expected_out = f(*[SpecScalar(v) for v in values]).data
    leaves = [Value(v) for v in values]
    out = f(*leaves)
    got_out = as_float(out.data, f"{what}: the result's .data")
    expect_close(
        got_out,
        expected_out,
        f"{what}: forward value",
        atol=FORWARD_ATOL,
        rtol=FORWARD_RTOL,
        hint="the forward computation is wrong; fix it before looking at gradients",
    )
    out.backward()
    for i, (leaf, v) in enumerate(zip(leaves, values, strict=True)):
        got = as_float(leaf.grad, f"{what}: input {i}'s .grad")
        expected = float(numerical_gradient(lambda x, i=i: spec_loss(i, x), np.array(v)))
        label = f"{what}: d/d(input {i}) at {v:g}" if len(values) > 1 else f"{what}: derivative at {v:g}"
        _compare_gradient(np.array(got), np.array(expected), label, hint)

"""The kit's own gradient checker for the code under test.

A computation ``f`` is written once against the engine API and run twice: on the
code under test (forward, then backward) and on the trusted oracle of spec.py,
whose central differences give the expected gradients. Nothing the student can
edit takes part in computing the expected numbers.

When a check fails, the hint is a diagnosis (grader.testing.diagnosis) when the kit has
one, and the test's own advice otherwise. The diagnosis only ever runs after a failure, and
never with ``explain=False`` (a search that only needs to know whether a check fails).

Behind the wall every value read waits for the worker. So a check first runs its computation
forward and backward and reads the forward value and the gradients together, one round trip; only
when that finds something wrong is it run again, read step by step (the forward value before
backward), for the message that says which step is wrong.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext, suppress

import numpy as np

from grader import verdicts
from grader.testing import bugs, diagnosis
from grader.testing.checks import LabCheckFailure, as_array, as_float, as_shape, expect_close, fail, show_apart
from grader.testing.memo import remembered
from grader.testing.numeric import numerical_gradient
from grader.testing.remote import given, read_each
from grader.testing.shapes import recording_shapes, replaying_shapes, unfaithful
from grader.testing.spec import SpecScalar, SpecTensor
from grader.wall.codec import ERROR_FUNCTIONS

# The chapter's gradcheck tolerances: far below what a wrong rule is off by.
GRAD_ATOL = 1e-6
GRAD_RTOL = 1e-4
# A forward value is plain float64 arithmetic: only the order of operations may differ.
FORWARD_ATOL = 1e-10
FORWARD_RTOL = 1e-9
FORWARD_HINT = "the forward computation is wrong; fix it before looking at gradients"


def raised_through(exc: BaseException) -> tuple[str, ...]:
    """The qualified names of the code under test's functions ``exc`` passed through, innermost first
    ("Tensor.__matmul__.<locals>.backward"), as many as the worker names; () if none."""
    remote = getattr(exc, "labkit_functions", None)
    if remote is not None:  # behind the wall the worker found them
        return remote
    from grader.harness import state

    try:
        files = state.current().code_under_test_files()
    except Exception:  # outside a grading session: nothing to point at
        return ()
    names, tb = [], exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in files:
            names.append(getattr(code, "co_qualname", code.co_name))  # co_qualname: Python 3.11
        tb = tb.tb_next
    return tuple(reversed(names[-ERROR_FUNCTIONS:]))


@contextmanager
def explained_errors(f, inputs, error_hint: str = ""):
    """Give an exception the code under test raises while running ``f`` a hint from where it was
    raised (the verdict shows it in place of the test's own), or ``error_hint`` when the kit has no
    diagnosis for it; a failed check passes untouched."""
    try:
        yield
    except (LabCheckFailure, verdicts.SubmissionError, verdicts.WorkerFailure):
        raise
    except Exception as exc:
        if not getattr(exc, "labkit_hint", ""):
            name = getattr(exc, "labkit_type", None) or type(exc).__name__
            text = diagnosis.explain_error(name, str(exc), raised_through(exc), diagnosis.plain_operands(f, inputs))
            text = text or error_hint
            if text:
                with suppress(Exception):  # an exception that refuses attributes keeps the test's hint
                    exc.labkit_hint = text
        raise


def _choose(found: str, hint: str) -> str:
    """The diagnosis when there is one; the test's advice otherwise. When the kit cannot tell,
    the test's advice follows only if it names no bug: it would name one the kit could not see."""
    if diagnosis.CANNOT_TELL in found:
        return f"{found}; {hint}" if hint and not bugs.named_in(hint) else found
    return found or hint


def _readable(read) -> np.ndarray | None:
    try:
        return read()
    except LabCheckFailure:
        return None


def _compare_gradient(got, expected: np.ndarray, what: str, hint: str, explain):
    """Fail unless ``got`` matches ``expected``; ``explain()`` gives the diagnosis, only when it does not."""
    if got.shape != expected.shape:
        stretched = got.ndim >= expected.ndim and _broadcasts(expected.shape, got.shape)
        advice = (
            "sum a broadcast operand's gradient back over the axes it was stretched along (unbroadcast)"
            if stretched
            else "bring it back to its input's shape"
        )
        fail(
            f"{what}: the gradient has shape {got.shape}, but its input has shape {expected.shape}",
            f"a gradient always has the shape of what it is the gradient of: {advice}",
        )
    if not np.allclose(got, expected, atol=GRAD_ATOL, rtol=GRAD_RTOL):
        fail("{}: expected {}, got {}".format(what, *show_apart(expected, got)), _choose(explain(), hint))


def _broadcasts(small: tuple, big: tuple) -> bool:
    try:
        return np.broadcast_shapes(small, big) == tuple(big)
    except ValueError:
        return False


def _check_result(out, f, inputs, what: str):
    if out is None:
        op = diagnosis.last_operation(f, inputs)
        fail(
            f"{what}: the computation gave None instead of a result",
            f"{op or 'an operation'} returned None instead of its result: end it with `return out`",
        )


def _tensor_oracle(f, arrays: list[np.ndarray], seed_array: np.ndarray | None):
    """The oracle's forward value of ``f`` at ``arrays``, and a function giving the expected
    gradient of input i (central differences of the loss ``backward(seed)`` starts from)."""

    def spec_loss(i, x):
        args = [SpecTensor(x if j == i else arrays[j]) for j in range(len(arrays))]
        value = f(*args).data
        return float((value * seed_array).sum() if seed_array is not None else value.sum())

    def expected_gradient(i):  # the same for every submission a process grades: remembered (grader.testing.memo)
        return remembered(
            ("tensor", f, i, arrays, seed_array), lambda: numerical_gradient(lambda x: spec_loss(i, x), arrays[i])
        )

    return f(*[SpecTensor(a) for a in arrays]).data, expected_gradient


def _scalar_oracle(f, values: list[float]):
    """The same for the scalar engine: the forward value, and input i's expected derivative."""

    def spec_loss(i, x):
        args = [SpecScalar(float(x) if j == i else values[j]) for j in range(len(values))]
        return f(*args).data

    def expected_gradient(i):
        return remembered(
            ("scalar", f, i, values), lambda: float(numerical_gradient(lambda x: spec_loss(i, x), np.array(values[i])))
        )

    return f(*[SpecScalar(v) for v in values]).data, expected_gradient


def check_tensor_gradients(
    Tensor, f, inputs, what: str, *, hint: str = "", seed=None, forward_hint: str = "", also=(), explain=True
) -> list[np.ndarray]:
    """Check ``f``'s forward value and every input's gradient on the code under test; return
    the gradients it computed.

    ``f`` takes one tensor per input and returns a tensor; ``seed`` is the gradient
    passed to ``backward`` for a multi-element output (None: a single-element output).
    ``also``: the same test's earlier ``(f, inputs, gradients)``, more evidence for a diagnosis.
    ``explain``: False for no diagnosis at all (the messages keep the test's own hints).
    """
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    seed_array = None if seed is None else np.array(seed, dtype=np.float64)
    at_once = _gradients_if_every_check_passes(Tensor, [(f, arrays, seed_array)], scalar=False)
    if at_once is not None:  # one round trip behind the wall; a failure is run again, read step by step
        return at_once[0]
    expected_out, expected_gradient = _tensor_oracle(f, arrays, seed_array)
    with explained_errors(f, arrays) if explain else nullcontext():
        tensors = [Tensor(given(a)) for a in arrays]
        out = f(*tensors)
        _check_result(out, f, arrays, what)
        got_out = as_array(out.data, f"{what}: the result's .data")
        if explain and (
            got_out.shape != expected_out.shape
            or not np.allclose(got_out, expected_out, atol=FORWARD_ATOL, rtol=FORWARD_RTOL, equal_nan=True)
        ):
            forward_hint = diagnosis.explain_forward(f, arrays, got_out) or forward_hint
        expect_close(
            got_out,
            expected_out,
            f"{what}: forward value",
            atol=FORWARD_ATOL,
            rtol=FORWARD_RTOL,
            hint=forward_hint or FORWARD_HINT,
        )
        if seed_array is None:
            out.backward()
        else:
            out.backward(given(seed_array))

        def diagnose():
            if not explain:
                return ""
            grads = [_readable(lambda t=t: as_array(t.grad, "")) for t in tensors]
            if any(g is None for g in grads):
                return ""
            output_grad = _readable(lambda: as_array(out.grad, ""))
            return diagnosis.explain_gradients(f, arrays, grads, seed=seed_array, output_grad=output_grad, also=also)

        checked = []
        grads = read_each((t, "grad") for t in tensors)  # one round trip behind the wall
        for i, array in enumerate(arrays):
            got = as_array(grads[i](), f"{what}: input {i}'s .grad")
            expected = expected_gradient(i)
            label = f"{what}: gradient of input {i} (shape {array.shape})" if len(arrays) > 1 else f"{what}: gradient"
            _compare_gradient(got, expected, label, hint, diagnose)
            checked.append(got)
    return checked


def check_scalar_gradients(
    Value, f, inputs, what: str, *, hint: str = "", also=(), explain=True, error_hint: str = "", forward_hint: str = ""
) -> list[float]:
    """Check ``f``'s forward value and every input's gradient for the scalar engine; return the
    gradients it computed (``also``, ``explain``, ``forward_hint``: as for check_tensor_gradients; ``error_hint``:
    the hint of an exception the kit has no diagnosis for, where the case knows the likely cause)."""
    values = [float(x) for x in inputs]
    at_once = _gradients_if_every_check_passes(Value, [(f, values, None)], scalar=True)
    if at_once is not None:  # as in check_tensor_gradients
        return at_once[0]
    expected_out, expected_gradient = _scalar_oracle(f, values)
    with explained_errors(f, values, error_hint) if explain else nullcontext():
        leaves = [Value(v) for v in values]
        out = f(*leaves)
        _check_result(out, f, values, what)
        got_out = as_float(out.data, f"{what}: the result's .data")
        forward_hint = forward_hint or FORWARD_HINT
        if explain and not np.isclose(got_out, expected_out, atol=FORWARD_ATOL, rtol=FORWARD_RTOL):
            forward_hint = diagnosis.explain_forward(f, values, got_out) or forward_hint
        expect_close(
            got_out, expected_out, f"{what}: forward value", atol=FORWARD_ATOL, rtol=FORWARD_RTOL, hint=forward_hint
        )
        out.backward()

        def diagnose():
            if not explain:
                return ""
            grads = [_readable(lambda v=v: as_float(v.grad, "")) for v in leaves]
            if any(g is None for g in grads):
                return ""
            output_grad = _readable(lambda: as_float(out.grad, ""))
            return diagnosis.explain_gradients(f, values, grads, output_grad=output_grad, constants=False, also=also)

        checked = []
        grads = read_each((leaf, "grad") for leaf in leaves)  # one round trip behind the wall
        for i, v in enumerate(values):
            got = as_float(grads[i](), f"{what}: input {i}'s .grad")
            expected = expected_gradient(i)
            label = f"{what}: d/d(input {i}) at {v:g}" if len(values) > 1 else f"{what}: derivative at {v:g}"
            _compare_gradient(np.array(got), np.array(expected), label, hint, diagnose)
            checked.append(got)
    return checked


def passes_every_check(engine, cases, *, scalar: bool) -> bool:
    """Whether check_scalar_gradients (``scalar``: ``engine`` is a Value class) or
    check_tensor_gradients would pass on every case of ``cases``, each a computation ``(f, inputs, seed)``.

    Every computation is run first, forward and backward, and every forward value and gradient
    read at the end: behind the wall that is one round trip for all the cases, not two each. So a
    case's values are read after the later cases ran, its forward value after its backward, and
    its objects live until the end. An engine whose values change after they are computed
    (backward() writing into .data, one case's backward changing another's gradients) fails here
    and may pass the checks in turn: a False is not a verdict. The checkers then check the cases
    in turn, which decides; the random graphs search them, and call an engine that passes each
    alone unreliable (grader.testing.graphs). An error of the grading itself is raised here.
    """
    return _gradients_if_every_check_passes(engine, cases, scalar=scalar) is not None


def _gradients_if_every_check_passes(engine, cases, *, scalar: bool) -> list[list] | None:
    """passes_every_check, with each case's gradients as the engine computed them (None: not all pass).

    Each case's oracle runs first, so that the engine's run can take from it the shapes the
    computation builds on (grader.testing.shapes): the engine's own are read with its values."""
    try:
        oracles, runs, claims = [], [], []
        for f, inputs, seed in cases:
            values = [float(x) for x in inputs] if scalar else [np.array(x, dtype=np.float64) for x in inputs]
            seed_array = None if seed is None else np.array(seed, dtype=np.float64)
            with recording_shapes() as shapes:
                oracles.append(_scalar_oracle(f, values) if scalar else _tensor_oracle(f, values, seed_array))
            leaves = [engine(x) for x in values] if scalar else [engine(given(x)) for x in values]
            with replaying_shapes(shapes) as plan:
                out = f(*leaves)
            if out is None or unfaithful(plan):
                return None
            claims += plan.claims
            if seed is None:
                out.backward()
            else:
                out.backward(given(seed_array))
            runs.append((out, leaves))
        pairs = [pair for out, leaves in runs for pair in [(out, "data"), *((x, "grad") for x in leaves)]]
        reads = iter(read_each([*pairs, *(taken for taken, _ in claims)]))
        as_value = as_float if scalar else as_array
        gradients = []
        for (expected_out, expected_gradient), (_, leaves) in zip(oracles, runs, strict=True):
            expect_close(as_value(next(reads)(), ""), expected_out, "", atol=FORWARD_ATOL, rtol=FORWARD_RTOL)
            gradients.append([as_value(next(reads)(), "") for _ in leaves])
            for i, got in enumerate(gradients[-1]):
                _compare_gradient(np.array(got), np.array(expected_gradient(i)), "", "", lambda: "")
        if any(as_shape(next(reads)(), "") != shape for _, shape in claims):
            return None  # the code's shape was not the oracle's: the check in turn reads it and says so
    except (verdicts.SubmissionError, verdicts.WorkerFailure):
        raise
    except Exception:  # a check failed, or the code under test raised: the caller finds which
        return None
    return gradients


def check_scalar_cases(Value, cases) -> None:
    """check_scalar_gradients(Value, f, inputs, what, hint=hint) for each ``(f, inputs, what, hint)`` of
    ``cases``: all at once when every case passes (passes_every_check: one round trip behind the wall),
    in turn to name the first that fails, with its diagnosis."""
    cases = list(cases)
    if not passes_every_check(Value, [(f, inputs, None) for f, inputs, _, _ in cases], scalar=True):
        for f, inputs, what, hint in cases:
            check_scalar_gradients(Value, f, inputs, what, hint=hint)


def check_tensor_cases(Tensor, cases) -> None:
    """The same for check_tensor_gradients (a multi-element output's backward() gets no seed): each case is
    (f, inputs, what, hint), or (f, inputs, what, hint, forward_hint)."""
    cases = [case if len(case) == 5 else (*case, "") for case in cases]
    if not passes_every_check(Tensor, [(f, inputs, None) for f, inputs, *_ in cases], scalar=False):
        for f, inputs, what, hint, forward_hint in cases:
            check_tensor_gradients(Tensor, f, inputs, what, hint=hint, forward_hint=forward_hint)


def expect_scalar_gradients(
    got,
    expected,
    what: str,
    f,
    inputs,
    *,
    output=None,
    probes=(),
    calls: int = 1,
    hint: str = "",
    also=(),
    **tolerance,
):
    """expect_close for scalar-engine gradients a test computed itself (``got``, one per input of
    ``f`` at ``inputs``, or the only input's, after ``calls`` calls of ``output.backward()``): when
    they are wrong, the hint is the diagnosis, or the test's ``hint``. ``probes``: the student's intermediates that
    ``f`` returns after its output (their gradients are evidence too). ``also``: the same test's
    other ``(f, inputs, gradients)``, more evidence for the diagnosis."""
    if _close(got, expected, tolerance):
        return
    output_grad = None if output is None else _readable(lambda: as_float(output.grad, ""))
    probe_grads = [_readable(lambda p=p: as_float(p.grad, "")) for p in probes]
    found = diagnosis.explain_gradients(
        f,
        [float(x) for x in inputs],
        got if isinstance(got, (list, tuple)) else [got],
        output_grad=output_grad,
        probe_grads=None if None in probe_grads else probe_grads,
        calls=calls,
        constants=False,
        also=also,
    )
    expect_close(got, expected, what, hint=_choose(found, hint), **tolerance)


def expect_tensor_gradients(
    got,
    expected,
    what: str,
    f,
    inputs,
    *,
    output=None,
    seed=None,
    calls: int = 1,
    hint: str = "",
    also=(),
    **tolerance,
):
    """As expect_scalar_gradients, for the tensor engine: ``got`` is one array per input, or the
    only input's; ``seed`` is what ``output.backward()`` was given."""
    if _close(got, expected, tolerance):
        return
    grads = [got] if len(inputs) == 1 else list(got)
    output_grad = None if output is None else _readable(lambda: as_array(output.grad, ""))
    found = diagnosis.explain_gradients(
        f,
        [np.array(x, dtype=np.float64) for x in inputs],
        grads,
        seed=seed,
        output_grad=output_grad,
        calls=calls,
        also=also,
    )
    expect_close(got, expected, what, hint=_choose(found, hint), **tolerance)


def _close(got, expected, tolerance) -> bool:
    got, expected = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    atol, rtol = tolerance.get("atol", 1e-9), tolerance.get("rtol", 1e-9)
    return got.shape == expected.shape and bool(np.allclose(got, expected, atol=atol, rtol=rtol))

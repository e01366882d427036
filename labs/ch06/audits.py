"""Checks of what the lab's loops claim (labs/ch06/loops.py), made on the trusted side.

Behind the wall the loops run in the worker, beside the code under test, where that code
could replace them; whatever they return is a claim. Each check draws what it looks at here,
after the claim is in, and goes through the code under test's own public API: the XOR record
by replaying steps, and one step at a point drawn here against plain numpy's gradients (a
replay alone asks only about points the loop chose, whose answers a forger could keep); the
deep chain by a backward() between two of its nodes.
"""

from __future__ import annotations

import random

import numpy as np

from grader.testing import as_array, fail, given, read_each, read_many
from labs.ch06 import loops

TAMPERED = "the XOR training loop did not return its record (the code under test interfered with it)"
AUDITED_STEPS = 3  # replayed at random, and the last step
REPLAY_RTOL, REPLAY_ATOL = 1e-9, 1e-12  # the same engine on the same numbers: equal but for summation order


def audit_xor(
    Tensor, record: dict, losses: list, predictions, *, zero_grad: bool, lr: float, hidden: int, seed: int = 0
) -> None:
    """Check the loop's claims against the engine: behind the wall the loop ran in the worker,
    where the code under test could have replaced it.

    The record holds every step's parameter values and gradients. The update rule is checked
    for every step here, in numpy; then a few steps, drawn here after the record is in (so no
    loop can know which), are replayed through the code under test's Tensor and must give the
    recorded loss and gradients (and, for the last step, the predictions). Last, the last step's
    parameters moved by noise drawn here go through the engine, whose loss and gradients must be
    plain numpy's there."""
    shapes = [value.shape for value in loops.initial_parameters(hidden, seed)]
    width, steps = sum(int(np.prod(shape)) for shape in shapes), len(losses)
    values, grads = record.get("values"), record.get("grads")
    for array in (values, grads):
        if type(array) is not np.ndarray or array.dtype != np.float64 or array.shape != (steps, width):
            fail(TAMPERED)
    if not steps:
        return
    broken = ~(np.isfinite(values).all(axis=1) & np.isfinite(grads).all(axis=1))
    if broken.any():  # an honest engine's failure, which no replay could match (nan equals nothing)
        step = int(np.argmax(broken))
        when = "at the first step" if step == 0 else f"after {step} updates"
        fail(f"XOR training, {when}: your Tensor's gradients are not all finite numbers (nan or inf)", NOT_FINITE)
    start = np.concatenate([value.reshape(-1) for value in loops.initial_parameters(hidden, seed)])
    if not np.array_equal(values[0], start):
        fail("the XOR training loop's record does not start from the network's initial weights", AUDIT_HINT)
    if not np.allclose(values[1:], values[:-1] - lr * grads[:-1], rtol=REPLAY_RTOL, atol=REPLAY_ATOL):
        fail("the XOR training loop's record does not follow the update w -= lr * grad", AUDIT_HINT)
    chosen = set(random.SystemRandom().sample(range(steps), min(AUDITED_STEPS, steps))) | {steps - 1}
    for step in sorted(chosen):
        _replay(Tensor, step, values, grads, losses, predictions, shapes, zero_grad)
    _check_at_a_new_point(Tensor, values[-1], shapes)


AUDIT_HINT = "the loop's record is checked by replaying steps through your Tensor: run it unchanged"
NOT_FINITE = (
    "a backward rule divided by zero, or grew past what a float holds, where the network's values met it "
    "(x**k's rule written as k * out.data / x, at x = 0, say): check the rules of **, tanh, sigmoid and mean "
    "at 0 and far from it"
)


def _split(flat: np.ndarray, shapes) -> list[np.ndarray]:
    sizes = np.cumsum([int(np.prod(shape)) for shape in shapes])[:-1]
    return [part.reshape(shape) for part, shape in zip(np.split(flat, sizes), shapes, strict=True)]


def _replay(Tensor, step: int, values, grads, losses, predictions, shapes, zero_grad: bool) -> None:
    params = [Tensor(given(value)) for value in _split(values[step], shapes)]
    # Not zeroed, each step starts from the gradients the last one left.
    zeroed = zero_grad or step == 0
    before = [np.zeros(shape) for shape in shapes] if zeroed else _split(grads[step - 1], shapes)
    loss, pred = loops.xor_step(Tensor, Tensor(given(loops.POINTS)), Tensor(given(loops.TARGETS)), params, before)
    read = read_many([(loss, "data"), (pred, "data"), *[(p, "grad") for p in params]])
    got_loss = as_array(read[0], "the replayed loss's .data")
    got_grads = np.concatenate([as_array(g, "a replayed .grad").reshape(-1) for g in read[2:]])
    where = f"XOR training, step {step} replayed through your Tensor"
    if got_loss.shape != () or not np.isclose(float(got_loss), losses[step], rtol=REPLAY_RTOL, atol=REPLAY_ATOL):
        fail(f"{where}: loss {float(np.sum(got_loss)):.17g}, the loop's record {losses[step]:.17g}", AUDIT_HINT)
    if got_grads.shape != grads[step].shape or not np.allclose(
        got_grads, grads[step], rtol=REPLAY_RTOL, atol=REPLAY_ATOL
    ):
        fail(f"{where}: the gradients differ from the loop's record", AUDIT_HINT)
    if step == len(losses) - 1 and predictions.size:
        got_pred = as_array(read[1], "the replayed predictions' .data").reshape(-1)
        if not np.allclose(got_pred, predictions, rtol=REPLAY_RTOL, atol=REPLAY_ATOL):
            fail(f"{where}: the predictions differ from the loop's record", AUDIT_HINT)


NEW_POINT_NOISE = 0.1  # the scale of the noise added to each parameter
NEW_POINT_RTOL, NEW_POINT_ATOL = 1e-7, 1e-10  # another order of the same float64 operations


def _check_at_a_new_point(Tensor, last_values: np.ndarray, shapes) -> None:
    """One step through the engine at parameters no loop has seen, against numpy's own gradients."""
    noise = np.random.default_rng(random.SystemRandom().getrandbits(64)).normal(size=last_values.shape)
    point = last_values + NEW_POINT_NOISE * noise
    params = [Tensor(given(value)) for value in _split(point, shapes)]
    zeros = [np.zeros(shape) for shape in shapes]
    loss, _ = loops.xor_step(Tensor, Tensor(given(loops.POINTS)), Tensor(given(loops.TARGETS)), params, zeros)
    read = read_many([(loss, "data"), *[(p, "grad") for p in params]])
    got_loss = as_array(read[0], "the loss's .data")
    got_grads = np.concatenate([as_array(g, "a parameter's .grad").reshape(-1) for g in read[1:]])
    expected_loss, expected_grads = numpy_xor_step(point, shapes)
    where = "one XOR step at parameters drawn by the test, through your Tensor"
    if got_loss.shape != () or not np.isclose(float(got_loss), expected_loss, rtol=NEW_POINT_RTOL, atol=NEW_POINT_ATOL):
        fail(f"{where}: loss {float(np.sum(got_loss)):.17g}, expected {expected_loss:.17g}", AUDIT_HINT)
    if got_grads.shape != expected_grads.shape or not np.allclose(
        got_grads, expected_grads, rtol=NEW_POINT_RTOL, atol=NEW_POINT_ATOL
    ):
        fail(f"{where}: the gradients are not those of the loss", AUDIT_HINT)


def numpy_xor_step(flat: np.ndarray, shapes) -> tuple[float, np.ndarray]:
    """The XOR network's loss and its gradients (flat, in the parameters' order) at ``flat``, by the
    chain rule written out in plain numpy: what any correct engine computes there."""
    w1, b1, w2, b2 = _split(flat, shapes)
    x, y = np.array(loops.POINTS), np.array(loops.TARGETS)
    h = np.tanh(x @ w1 + b1)
    diff = h @ w2 + b2 - y
    dpred = diff * (2.0 / diff.size)  # d mean(diff**2) / d pred
    dz = (dpred @ w2.T) * (1.0 - h * h)  # back through @ w2 and tanh
    grads = (x.T @ dz, dz.sum(axis=0), h.T @ dpred, dpred.sum(axis=0))
    return float(np.mean(diff * diff)), np.concatenate([g.reshape(-1) for g in grads])


CHECKED_DEPTH = (2_000, 5_000)  # where the later of the chain's two checked nodes is drawn
CHAIN_HINT = (
    "leaf gradients add up across backward() calls, intermediate ones start from zero; "
    "the chain's loop must run unchanged"
)


def audit_chain(x, nodes, length: int) -> None:
    """The chain's claim, checked through two nodes and a seed drawn now (no loop can know them): a
    backward() from the later node must reach the earlier one and x, through every node between
    them. A real chain of additions does that, and walking it is what a deep graph needs; a forged chain
    that builds a small graph for the nodes asked for can answer the same (README, "What an audit cannot
    do"): the scan flags the ways a file reaches the loop to replace it."""
    draw = random.SystemRandom()
    # Deeper than the recursion limit (1000), not as deep as the chain: the check walks the
    # nodes below the later one again, and a few thousand show what twenty thousand would.
    late = draw.randrange(min(CHECKED_DEPTH[0], length - 1), min(CHECKED_DEPTH[1], length))
    early = draw.randrange(late)
    seed = draw.uniform(0.25, 0.75)
    picked = {index: nodes[index] for index in (early, late)}
    # Each pair of reads together (behind the wall, one round trip), checked in turn.
    for index, data in zip(picked, read_each([(node, "data") for node in picked.values()]), strict=True):
        data = as_array(data(), f"node {index}'s .data")
        if data.shape != () or float(data) != 2.5 + index:
            fail(f"node {index} of the chain from Tensor(1.5) should hold {2.5 + index}, got {data!r}", CHAIN_HINT)
    picked[late].backward(given(np.array(seed)))
    reached, again = read_each([(picked[early], "grad"), (x, "grad")])
    reached = as_array(reached(), f"node {early}'s .grad")
    again = as_array(again(), "x.grad after a second backward()")
    if reached.shape != () or float(reached) != seed or again.shape != () or float(again) != 1.0 + seed:
        fail(
            f"backward({seed:.6g}) from node {late} of the chain: node {early}'s .grad should be {seed:.6g} "
            f"and x.grad 1 + {seed:.6g}, got {reached!r} and {again!r}",
            CHAIN_HINT,
        )


# -- the gradient-checking loops -----------------------------------------------------------------
# A review's starter, its engine unwritten, replaced three of them in the worker and scored the three
# tests they serve: one that answered 2 * x for numerical_grad, one a call count, one that raised
# GradcheckError itself. Each answer now stands only if the engine gives it at a point drawn here.
GRADCHECK_TAMPERED = "the gradient-checking loop's answer does not come from your engine"
GRADCHECK_HINT = "the loop beside your code was interfered with: grade what your engine computes"


def audit_numerical_grad(Tensor, x: np.ndarray, got: np.ndarray, eps: float = 1e-6) -> None:
    """The loop's numerical_grad of sum(x ** 2), at one entry drawn here after the answer is in: the engine's
    sum(v ** 2) at x moved by eps either way along it, read through the wall and differenced here as
    numerical_grad does (the same numbers: equal but for the last bits), must give that entry."""
    i = random.SystemRandom().randrange(x.size)
    moved = []
    for step in (eps, -eps):
        v = x.copy()
        v.flat[i] = x.flat[i] + step
        moved.append(((Tensor(given(v)) ** 2).sum(), "data"))
    up, down = read_each(moved)
    entry = (_one_number(up(), "sum(v ** 2).data") - _one_number(down(), "sum(v ** 2).data")) / (2 * eps)
    if not np.isclose(entry, got.flat[i], rtol=1e-6, atol=1e-6):
        fail(f"{GRADCHECK_TAMPERED}: entry {i} is {got.flat[i]!r}, your engine's gives {entry!r}", GRADCHECK_HINT)


def audit_gradcheck_ran(Tensor, shape: tuple, forward=None) -> None:
    """The loop's answer about gradcheck (a number of calls, or a GradcheckError) stands only if the engine runs
    what gradcheck ran, at a point drawn here after the answer is in: a Tensor of it, sum(a * a) (or, given
    ``forward``, the Tensor of ``forward`` of it, summed), its backward(), its value and the leaf's gradient read.
    An engine that cannot raises here, where gradcheck would have raised it; what the values are is left to
    the tests of those operations (a buggy engine's verdicts stay as they were)."""
    x = np.random.default_rng(random.SystemRandom().getrandbits(64)).normal(size=shape)
    a = Tensor(given(x))
    out = (a * a).sum() if forward is None else Tensor(given(forward(x))).sum()
    out.backward()
    for read in read_each([(out, "data"), (a, "grad")]):
        read()  # an error of the engine's is raised here; what it holds is the other tests' to judge


def _one_number(value, what: str) -> float:
    """A single-element array read from the engine, as a float (as the loops' own ``float(y.data)``)."""
    array = as_array(value, what)
    if array.size != 1:
        fail(f"{what} should hold one number, got an array of shape {array.shape}")
    return float(array.reshape(-1)[0])

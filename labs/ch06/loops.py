"""The long loops of the lab's tests, run next to the code under test.

Behind the wall these functions run in the worker, beside the submission, so a loop of
thousands of operations is one request instead of thousands (grader.testing.beside); in
process they run as they are. They are trusted code, but nothing they return is: they
return plain data, which the trusted side checks as it would any value read from the
worker. They may import only numpy and the standard library, and must not use the kit.
"""

import gc

import numpy as np

POINTS = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]  # (4, 2)
TARGETS = [[0.0], [1.0], [1.0], [0.0]]  # (4, 1): 1 where exactly one input is 1
TARGET_LOSS = 0.01


def _array(x, what):
    """A private float64 copy of ``x``; a problem (message, hint) if it is not a float64 array."""
    if type(x) is not np.ndarray:
        return None, (
            f"{what} should be a numpy array, got {type(x).__name__}",
            "store arrays as float64 numpy arrays, e.g. np.array(data, dtype=np.float64)",
        )
    if x.dtype != np.float64:
        return None, (f"{what} should have dtype float64, got {x.dtype}", "convert with dtype=np.float64")
    return np.array(x, dtype=np.float64, copy=True), None


def initial_parameters(hidden, seed=0):
    """The network's starting values: w1 (2, hidden), b1 (hidden,), w2 (hidden, 1), b2 (1,), drawn
    from ``seed`` (the chapter's run: 0)."""
    rng = np.random.default_rng(seed)
    w1 = rng.normal(size=(2, hidden))
    w2 = rng.normal(size=(hidden, 1)) / np.sqrt(hidden)  # scaled so outputs start O(1)
    return [w1, np.zeros(hidden), w2, np.zeros(1)]


def xor_step(Tensor, x, y, params, grads_before):
    """One step's forward and backward on the engine: the loss, the predictions, and each
    parameter's .grad afterwards. ``grads_before``: what each .grad is set to first (zeros, or
    the gradients left by the last step when they are not zeroed; None: left as they are).

    The training loop runs it in the worker; the trusted side replays steps of the loop's
    record through the same function (labs/ch06/xor_mlp.py)."""
    if grads_before is not None:
        for p, grad in zip(params, grads_before, strict=True):
            p.grad = grad
    h = (x @ params[0] + params[1]).tanh()  # (4, hidden)
    pred = h @ params[2] + params[3]  # (4, 1)
    loss = ((pred - y) ** 2).mean()  # ()
    loss.backward()
    return loss, pred


def xor_training(Tensor, zero_grad, max_steps, lr, hidden, checkpoints, atol, seed=0):
    """Gradient descent on the mean squared error until the loss is below 0.01 or ``max_steps`` ran.

    ``checkpoints``: (step, expected loss) pairs; the run stops at the first one it misses
    by more than ``atol``, so a broken engine fails at once. ``seed`` draws the initial
    weights (initial_parameters; the chapter's run: 0). Returns {"losses": [...],
    "predictions": [...] or None, "problem": None or [message, hint], "values": (steps, n)
    array of every parameter's values before each step, "grads": (steps, n) array of their
    gradients after it}: the record the trusted side audits by replaying steps.
    """
    expected = dict(checkpoints)
    x = Tensor(POINTS)
    y = Tensor(TARGETS)
    start = initial_parameters(hidden, seed)
    width = sum(value.size for value in start)
    params = [Tensor(value) for value in start]
    losses, values_record, grads_record = [], [], []
    # The loop keeps its own copy of the parameters' values and writes each update back, so
    # it takes from the engine only the loss and the gradients.
    values = []
    for p in params:
        value, problem = _array(p.data, "a parameter's .data")
        if problem:
            return _record(losses, None, problem, values_record, grads_record, width)
        values.append(value)
    pred = None
    for _ in range(max_steps):
        zeros = [np.zeros(value.shape) for value in values] if zero_grad else None
        values_record.append(np.concatenate(values, axis=None))
        loss, pred = xor_step(Tensor, x, y, params, zeros)
        grads = []
        for i, p in enumerate(params):
            grad, problem = _array(p.grad, "a parameter's .grad")
            if problem or grad.shape != values[i].shape:
                problem = problem or (
                    f"a parameter's .grad has shape {grad.shape}, its .data {values[i].shape}",
                    "a gradient has the shape of what it is the gradient of",
                )
                values_record.pop()
                return _record(losses, None, problem, values_record, grads_record, width)
            grads.append(grad)
            values[i] = values[i] - lr * grad
            p.data = values[i]
        grads_record.append(np.concatenate(grads, axis=None))
        value, problem = _array(loss.data, "the loss's .data")
        if problem:
            return _record(losses, None, problem, values_record[:-1], grads_record[:-1], width)
        losses.append(float(value))
        if losses[-1] < TARGET_LOSS:
            break
        step = len(losses) - 1
        if step in expected and not abs(losses[-1] - expected[step]) <= atol:
            break
    predictions, problem = _array(pred.data, "the predictions' .data") if pred is not None else (None, None)
    return _record(
        losses,
        None if predictions is None else [float(v) for v in predictions[:, 0]],
        problem,
        values_record,
        grads_record,
        width,
    )


def _record(losses, predictions, problem, values_record, grads_record, width):
    return {
        "losses": losses,
        "predictions": predictions,
        "problem": problem,
        "values": np.array(values_record, dtype=np.float64).reshape(len(values_record), width),
        "grads": np.array(grads_record, dtype=np.float64).reshape(len(grads_record), width),
    }


class Chain:
    """The chain's nodes, handed to the test as one object (behind the wall, a handle): the test
    reads only the few it picks, after the loop has answered, then releases them."""

    def __init__(self, nodes, collect):
        self._nodes = nodes
        self._collect = collect

    def __getitem__(self, index):
        return self._nodes[index]

    def release(self):
        """Drop the nodes and turn the cyclic garbage collector back on (if it was on): the
        chain, still uncollected, is freed by the next young-generation pass, not by a full one
        in some later test."""
        self._nodes = []
        if self._collect:
            self._collect = False
            gc.enable()


def chain_of_additions(Tensor, length):
    """x = Tensor(1.5), then ``length`` times y = y + 1.0, then y.backward(): returns (x, x.grad, Chain).

    The nodes stay alive for the test to check the claim through a few of them, and the cyclic
    garbage collector stays off until it calls ``Chain.release``: with it on, it would walk the
    growing chain again and again (0.55 s on the reference instead of 0.34 s), and the chain
    would outlive its test in the oldest generation."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        x = Tensor(1.5)
        y = x
        nodes = []
        for _ in range(length):
            y = y + 1.0
            nodes.append(y)
        y.backward()
    except BaseException:
        if was_enabled:
            gc.enable()
        raise
    return x, x.grad, Chain(nodes, was_enabled)


def data_after_the_caller_changes_it(Tensor):
    """Tensor(a), then the caller adds 10 to a in place: the tensor's .data (a leaf holds a copy of its data).
    Run beside the code: behind the wall an array the test sends is the worker's copy, which the test cannot
    change afterwards."""
    a = np.array([1.0, 2.0, 3.0])
    t = Tensor(a)
    a += 10.0
    return t.data


# The functions some gradcheck tests hand to the code's gradcheck and numerical_grad, which call them
# 1 + 2n times for n input entries: run here, beside the code, they cost no round trip back to the test.
# Each one reads a value of the engine, so it cannot be recorded (grader.testing.recorded).


def numerical_grad_of_squares(numerical_grad, Tensor, x):
    """``numerical_grad`` of sum(x ** 2), the loss computed by the engine and read as a float."""
    return numerical_grad(lambda v: float((Tensor(v) ** 2).sum().data), x)


DETACHED = {  # the right forward value, computed from a.data outside the graph: no gradient reaches a
    "triple": lambda data: data * 3.0,
    "exp": np.exp,
}


def gradcheck_detached(gradcheck, Tensor, x, how):
    """``gradcheck`` of a function whose forward value is right but comes from outside the graph
    (``DETACHED[how]`` of a.data, summed): it must raise, as a backward passing nothing would."""
    forward = DETACHED[how]
    gradcheck(lambda a: Tensor(forward(np.array(a.data, dtype=np.float64))).sum(), [x])


def gradcheck_counting_calls(gradcheck, x):
    """How many times ``gradcheck`` called f = sum(a * a) on the input ``x``. A GradcheckError (the
    lab's, or a class derived from it) is left to the other tests: this one is about the calls and the
    input. It is known by its name: the test cannot hand the class over (behind the wall the test has
    a stand-in for it)."""
    calls = 0

    def f(a):
        nonlocal calls
        calls += 1
        return (a * a).sum()

    try:
        gradcheck(f, [x])
    except Exception as exc:
        if not any(c.__name__ == "GradcheckError" for c in type(exc).__mro__):
            raise
    return calls

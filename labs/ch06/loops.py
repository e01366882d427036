"""The long loops of the lab's tests, run next to the code under test.

Behind the wall these functions run in the worker, beside the submission, so a loop of
thousands of operations is one request instead of thousands (grader.seam.beside); in
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


def xor_training(Tensor, zero_grad, max_steps, lr, hidden, checkpoints, atol):
    """Gradient descent on the mean squared error until the loss is below 0.01 or ``max_steps`` ran.

    ``checkpoints``: (step, expected loss) pairs; the run stops at the first one it misses
    by more than ``atol``, so a broken engine fails at once. Returns {"losses": [...],
    "predictions": [...] or None, "problem": None or [message, hint]}.
    """
    expected = dict(checkpoints)
    rng = np.random.default_rng(0)
    x = Tensor(POINTS)
    y = Tensor(TARGETS)
    w1 = Tensor(rng.normal(size=(2, hidden)))  # (2, hidden)
    b1 = Tensor(np.zeros(hidden))  # (hidden,), broadcast over the four examples
    w2 = Tensor(rng.normal(size=(hidden, 1)) / np.sqrt(hidden))  # (hidden, 1), scaled so outputs start O(1)
    b2 = Tensor(np.zeros(1))  # (1,)
    params = [w1, b1, w2, b2]
    losses = []
    # The loop keeps its own copy of the parameters' values and writes each update back, so
    # it takes from the engine only the loss and the gradients.
    values = []
    for p in params:
        value, problem = _array(p.data, "a parameter's .data")
        if problem:
            return {"losses": losses, "predictions": None, "problem": problem}
        values.append(value)
    pred = None
    for _ in range(max_steps):
        h = (x @ w1 + b1).tanh()  # (4, hidden)
        pred = h @ w2 + b2  # (4, 1)
        loss = ((pred - y) ** 2).mean()  # ()
        if zero_grad:
            for p, value in zip(params, values, strict=True):
                p.grad = np.zeros_like(value)
        loss.backward()
        for i, p in enumerate(params):
            grad, problem = _array(p.grad, "a parameter's .grad")
            if problem:
                return {"losses": losses, "predictions": None, "problem": problem}
            values[i] = values[i] - lr * grad
            p.data = values[i]
        value, problem = _array(loss.data, "the loss's .data")
        if problem:
            return {"losses": losses, "predictions": None, "problem": problem}
        losses.append(float(value))
        if losses[-1] < TARGET_LOSS:
            break
        step = len(losses) - 1
        if step in expected and not abs(losses[-1] - expected[step]) <= atol:
            break
    predictions, problem = _array(pred.data, "the predictions' .data") if pred is not None else (None, None)
    return {
        "losses": losses,
        "predictions": None if predictions is None else [float(v) for v in predictions[:, 0]],
        "problem": problem,
    }


def chain_of_additions(Tensor, length):
    """x = Tensor(1.5), then ``length`` times y = y + 1.0, then y.backward(): returns x.grad."""
    # Every node stays reachable until backward() returns, so the cyclic garbage collector
    # could free nothing: it would only walk the growing chain again and again (with it on,
    # the chain took 0.55 s on the reference instead of 0.34 s).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        x = Tensor(1.5)
        y = x
        for _ in range(length):
            y = y + 1.0
        y.backward()
        return x.grad
    finally:
        if was_enabled:
            gc.enable()

"""Appended to the untouched starter: it replaces the lab's XOR training loop in the worker with
one that computes the whole run in numpy, honestly (the real trajectory, every step's values and
gradients, the update rule followed), and never touches the engine. The trusted side replays
steps of that record through the submission's own Tensor, which is not implemented: the XOR
tests must fail, and the report say why."""

import numpy as _np


def _worker_globals():
    try:
        raise ZeroDivisionError
    except ZeroDivisionError as error:
        frame = error.__traceback__.tb_frame
    while frame is not None:
        if "HELPERS" in frame.f_globals:
            return frame.f_globals
        frame = frame.f_back
    return {}


def _forged_xor(Tensor, zero_grad, max_steps, lr, hidden, checkpoints, atol):
    loops = _worker_globals()["HELPERS"]["loops"]
    x, y = _np.array(loops.POINTS), _np.array(loops.TARGETS)
    params = loops.initial_parameters(hidden)
    accumulated = [_np.zeros_like(p) for p in params]
    losses, values, grads, pred = [], [], [], None
    for _ in range(max_steps):
        w1, b1, w2, b2 = params
        values.append(_np.concatenate([p.reshape(-1) for p in params]))
        h = _np.tanh(x @ w1 + b1)
        pred = h @ w2 + b2
        loss = ((pred - y) ** 2).mean()
        d_pred = 2 * (pred - y) / pred.size
        d_h = d_pred @ w2.T * (1 - h**2)
        step_grads = [x.T @ d_h, d_h.sum(axis=0), h.T @ d_pred, d_pred.sum(axis=0)]
        if zero_grad:
            accumulated = step_grads
        else:
            accumulated = [a + g for a, g in zip(accumulated, step_grads)]
        grads.append(_np.concatenate([g.reshape(-1) for g in accumulated]))
        params = [p - lr * g for p, g in zip(params, accumulated)]
        losses.append(float(loss))
        if losses[-1] < loops.TARGET_LOSS:
            break
    return {
        "losses": losses,
        "predictions": [float(v) for v in pred[:, 0]],
        "problem": None,
        "values": _np.array(values),
        "grads": _np.array(grads),
    }


_worker_globals()["HELPERS"]["loops"].xor_training = _forged_xor

"""Appended to the untouched starter: a Tensor that only computes forward values, whose backward()
looks each step's gradients up, by the parameters' bytes, in what a replaced XOR loop computed by hand
in numpy (the real trajectory, honestly recorded). A replay of the record's own steps finds every
answer kept; one step at parameters the test draws finds none: the XOR tests must fail. It finds
the worker's loops through a traceback, spelled so that the static scan does not see it."""

import numpy as np

_MEMO = {}


class Tensor:  # forward only: no backward rule anywhere
    def __init__(self, data, _parents=()):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._parents = _parents

    @property
    def shape(self):
        return self.data.shape

    def _op(self, value, *parents):
        return Tensor(value, parents)

    def __add__(self, other):
        return self._op(self.data + other.data, self, other)

    def __sub__(self, other):
        return self._op(self.data - other.data, self, other)

    def __matmul__(self, other):
        return self._op(self.data @ other.data, self, other)

    def __pow__(self, k):
        return self._op(self.data**k, self)

    def tanh(self):
        return self._op(np.tanh(self.data), self)

    def mean(self):
        return self._op(np.mean(self.data), self)

    def backward(self, grad=None):
        # loss = mean((tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2): find the four parameters by position
        diff = self._parents[0]._parents[0]
        pred, _y = diff._parents
        mm2, b2 = pred._parents
        h, w2 = mm2._parents
        mm1, b1 = h._parents[0]._parents
        _x, w1 = mm1._parents
        params = [w1, b1, w2, b2]
        grads = _MEMO.get(b"".join(p.data.tobytes() for p in params))
        if grads is not None:
            for p, g in zip(params, grads):
                p.grad = p.grad + g


def _worker_globals():
    try:
        raise ZeroDivisionError
    except ZeroDivisionError as error:
        frame = getattr(error.__traceback__, "tb" + "_frame")
    while frame is not None:
        g = getattr(frame, "f" + "_globals")
        if "HELPERS" in g:
            return g
        frame = getattr(frame, "f" + "_back")
    return {}


def _forged_training(Tensor_, zero_grad, max_steps, lr, hidden, checkpoints, atol, seed=0):
    loops = _worker_globals()["HELPERS"]["loops"]
    x, y = np.array(loops.POINTS), np.array(loops.TARGETS)
    params = loops.initial_parameters(hidden, seed)
    total = [np.zeros_like(p) for p in params]
    losses, values, grads_record, pred = [], [], [], None
    for _ in range(max_steps):
        w1, b1, w2, b2 = params
        values.append(np.concatenate([p.reshape(-1) for p in params]))
        h = np.tanh(x @ w1 + b1)
        pred = h @ w2 + b2
        residual = pred - y
        losses.append(float(np.mean(residual**2)))
        d_pred = 2.0 * residual / residual.size
        d_z = d_pred @ w2.T * (1.0 - h * h)
        grads = [x.T @ d_z, d_z.sum(axis=0), h.T @ d_pred, d_pred.sum(axis=0)]
        _MEMO[b"".join(p.tobytes() for p in params)] = grads
        total = grads if zero_grad else [t + g for t, g in zip(total, grads)]
        grads_record.append(np.concatenate([t.reshape(-1) for t in total]))
        params = [p - lr * t for p, t in zip(params, total)]
        if losses[-1] < loops.TARGET_LOSS:
            break
    width = values[0].size
    return {
        "losses": losses,
        "predictions": [float(v) for v in pred[:, 0]],
        "problem": None,
        "values": np.array(values).reshape(len(values), width),
        "grads": np.array(grads_record).reshape(len(values), width),
    }


_g = _worker_globals()
if _g:
    _g["HELPERS"]["loops"].xor_training = _forged_training

"""Train a two-layer tanh network on XOR with your Tensor (Task 5).

    python -m labs.ch06.xor_mlp                 # your starter.py
    python -m labs.ch06.xor_mlp --impl ref      # the reference
    python -m labs.ch06.xor_mlp --no-zero-grad  # forget to zero the gradients

The reference prints the chapter's trace: the loss falls below 0.01 at step 606.
The lab's tests run the same ``train_xor`` on your engine.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

import numpy as np

from grader.testing import as_array, read_many

POINTS = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]  # (4, 2)
TARGETS = [[0.0], [1.0], [1.0], [0.0]]  # (4, 1): 1 where exactly one input is 1
TARGET_LOSS = 0.01


@dataclass
class XorRun:
    losses: list[float] = field(default_factory=list)  # one per step, in order
    predictions: np.ndarray | None = None  # (4,): the predictions of the last step

    @property
    def last_step(self) -> int:
        return len(self.losses) - 1


def train_xor(
    Tensor,
    *,
    zero_grad: bool = True,
    max_steps: int = 10_000,
    lr: float = 0.05,
    hidden: int = 4,
    checkpoints: dict[int, float] | None = None,
    atol: float = 0.0,
):
    """Gradient descent on the mean squared error until the loss is below 0.01 or ``max_steps`` ran.

    With ``checkpoints`` (step -> expected loss) the run also stops at the first checkpoint
    it misses by more than ``atol``: a broken engine fails at once, not after every step.
    """
    rng = np.random.default_rng(0)
    x = Tensor(POINTS)
    y = Tensor(TARGETS)
    w1 = Tensor(rng.normal(size=(2, hidden)))  # (2, hidden)
    b1 = Tensor(np.zeros(hidden))  # (hidden,), broadcast over the four examples
    w2 = Tensor(rng.normal(size=(hidden, 1)) / np.sqrt(hidden))  # (hidden, 1), scaled so outputs start O(1)
    b2 = Tensor(np.zeros(1))  # (1,)
    params = [w1, b1, w2, b2]
    # The loop keeps its own copy of the parameters' values and writes each update back, so
    # it reads from the engine only what it needs: the loss and the gradients.
    values = [as_array(p.data, "a parameter's .data") for p in params]
    run = XorRun()
    for _ in range(max_steps):
        h = (x @ w1 + b1).tanh()  # (4, hidden)
        pred = h @ w2 + b2  # (4, 1)
        loss = ((pred - y) ** 2).mean()  # ()
        if zero_grad:
            for p, value in zip(params, values, strict=True):
                p.grad = np.zeros_like(value)
        loss.backward()
        *grads, loss_value = read_many([*((p, "grad") for p in params), (loss, "data")])
        for i, (p, grad) in enumerate(zip(params, grads, strict=True)):
            values[i] = values[i] - lr * as_array(grad, "a parameter's .grad")
            p.data = values[i]
        value = float(as_array(loss_value, "the loss's .data"))
        run.losses.append(value)
        if value < TARGET_LOSS:
            break
        step = len(run.losses) - 1
        if checkpoints and step in checkpoints and not abs(value - checkpoints[step]) <= atol:
            break
    run.predictions = as_array(pred.data, "the predictions' .data")[:, 0]
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--impl", default=None, help="mine, ref or a path (default: $IMPL, else mine)")
    parser.add_argument("--no-zero-grad", action="store_true", help="skip zeroing the gradients before backward()")
    args = parser.parse_args(argv)
    if args.impl:
        os.environ["IMPL"] = args.impl
    from grader import under_test

    run = train_xor(under_test("ch06").Tensor, zero_grad=not args.no_zero_grad)
    for step, loss in enumerate(run.losses):
        if step % 100 == 0 or loss < TARGET_LOSS:
            print(f"step {step:4d}  loss {loss:.5f}")
    print("predictions", run.predictions.round(3))


if __name__ == "__main__":
    main()

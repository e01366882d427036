"""The lesson1_3 reference reproduces every figure the lesson prints."""

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from reference.lesson1_3 import (
    Value,
    fit_line,
    matmul_grads,
    max_stable_lr,
    numerical_derivative,
    softmax_cross_entropy,
)

XS, YS = [0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 5.0, 7.0]


def printed(x: float, places: int) -> str:
    """x rounded half up to ``places`` decimals, as the lesson's hand-formatted tables round."""
    return str(Decimal(repr(x)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def test_the_two_worked_graphs():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    f = (a * b + c) * Value(-2.0)
    f.backward()
    assert f"{f.data} {a.grad} {b.grad} {c.grad}" == "-8.0 6.0 -4.0 -2.0"
    x = Value(3.0)
    y = x * x + x * 2
    y.backward()
    assert f"{y.data} {x.grad}" == "15.0 8.0"


def test_the_neuron_and_its_numerical_check():
    w1, w2, bias = Value(-3.0), Value(1.0), Value(6.8814)
    x1, x2 = Value(2.0), Value(0.0)
    out = (w1 * x1 + w2 * x2 + bias).tanh()
    out.backward()
    assert f"{out.data:.5f}" == "0.70712"
    assert (
        " ".join(f"{v.grad:.7f}" for v in (w1, w2, bias, x1, x2))
        == "0.9999626 0.0000000 0.4999813 -1.4999440 0.4999813"
    )

    def f(w1, w2, b, x1, x2):
        return math.tanh(w1 * x1 + w2 * x2 + b)

    vals = [-3.0, 1.0, 6.8814, 2.0, 0.0]
    assert str([round(numerical_derivative(f, vals, i), 6) for i in range(5)]) == (
        "[0.999963, 0.0, 0.499981, -1.499944, 0.499981]"
    )


def test_the_softmax_prints():
    z = [Value(v) for v in (2.0, 1.0, 0.1)]
    probs, loss = softmax_cross_entropy(z, 0)
    loss.backward()
    assert str([round(p.data, 4) for p in probs]) == "[0.659, 0.2424, 0.0986]"
    assert str(round(loss.data, 4)) == "0.417"
    assert str([round(v.grad, 4) for v in z]) == "[-0.341, 0.2424, 0.0986]"


def test_the_matrix_product_check_measures_about_1_9e_9():
    rng = np.random.default_rng(0)
    X, W, T = rng.standard_normal((4, 3)), rng.standard_normal((3, 2)), rng.standard_normal((4, 2))

    def loss(W):
        return 0.5 * ((X @ W - T) ** 2).sum()

    _, dW = matmul_grads(X, W, X @ W - T)
    numeric = np.zeros_like(W)
    for i in range(3):
        for j in range(2):
            up, down = W.copy(), W.copy()
            up[i, j] += 1e-6
            down[i, j] -= 1e-6
            numeric[i, j] = (loss(up) - loss(down)) / 2e-6
    assert f"{np.abs(dW - numeric).max():.1e}" == "1.9e-09"


def test_the_gradient_descent_table():
    table = {  # step: (loss as printed, w, b)
        0: ("21.0", "0.0000", "0.0000"),
        1: ("7.0588", "0.8500", "0.4000"),
        2: ("2.3730", "1.3425", "0.6325"),
        10: ("0.0009", "2.0093", "0.9576"),
        50: ("0.00005", "2.0054", "0.9885"),
        100: ("0.0000", "2.0012", "0.9975"),
        200: ("0.0000", "2.0001", "0.9999"),
    }
    history = fit_line(XS, YS, 0.05, 200)
    for step, (loss, w, b) in table.items():
        row = history[step]
        places = len(loss.split(".")[1])
        assert (printed(row[1], places), printed(row[2], 4), printed(row[3], 4)) == (loss, w, b), step


def test_the_learning_rate_table_and_the_ceiling():
    losses = {lr: fit_line(XS, YS, lr, 99)[-1][1] for lr in (0.001, 0.01, 0.05, 0.1, 0.2, 0.3)}
    assert f"{losses[0.001]:.2f}" == "3.95"
    assert f"{losses[0.01]:.4f}" == "0.0003"
    assert f"{losses[0.05]:.1e}" == "2.5e-06"  # the lesson: 0.0000025
    assert f"{losses[0.1]:.0e}" == "5e-09"
    assert f"{losses[0.2]:.0e}" == "1e-14"  # the lesson: about 1e-14
    assert f"{losses[0.3]:.1e}" == "2.6e+37"
    assert f"{max_stable_lr(XS):.3f}" == "0.238"
    hessian = 0.5 * np.array([[14.0, 6.0], [6.0, 4.0]])
    assert f"{np.linalg.eigvalsh(hessian).max():.1f}" == "8.4"  # the steepest curvature
    assert 0.2 < max_stable_lr(XS) < 0.238 < 0.24 < 0.3  # 0.238 and 0.24 both lie just above the ceiling

"""The ch06 reference reproduces every figure the chapter prints."""

import subprocess
import sys

import numpy as np
import pytest

from grader.labs import KIT_ROOT
from labs.ch06.xor_mlp import train_xor
from reference.ch06 import Tensor, Value

CHAPTER_XOR_OUTPUT = """\
step    0  loss 0.76576
step  100  loss 0.22574
step  200  loss 0.18359
step  300  loss 0.13689
step  400  loss 0.08256
step  500  loss 0.03535
step  600  loss 0.01078
step  606  loss 0.00995
predictions [0.07  0.904 0.919 0.138]
"""


def test_xor_example_prints_the_chapters_trace():
    proc = subprocess.run(
        [sys.executable, "-m", "labs.ch06.xor_mlp", "--impl", "ref"], cwd=KIT_ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == CHAPTER_XOR_OUTPUT


def test_xor_without_zeroing_matches_the_chapter():
    run = train_xor(Tensor, zero_grad=False)
    losses = np.array(run.losses)
    assert len(losses) == 10_000  # never reaches 0.01
    assert f"{losses[157]:.3f}" == "0.023" and int(np.argmin(losses)) == 157
    assert losses[:157].min() > losses[157]  # 0.023 is first reached at step 157
    late = losses[1000:]
    assert f"{late.min():.3f}" == "0.167" and f"{late.max():.3f}" == "0.192"
    assert [f"{p:.3f}" for p in run.predictions] == ["0.274", "0.624", "0.624", "0.624"]


def test_exercise_a_printed_line():
    a, b, c = Value(2.0), Value(-1.0), Value(1.5)
    f = (a * b + c).tanh()
    f.backward()
    line = f"f = {f.data:.4f}  df/da = {a.grad:.4f}  df/db = {b.grad:.4f}  df/dc = {c.grad:.4f}"
    assert line == "f = -0.4621  df/da = -0.7864  df/db = 1.5729  df/dc = 0.7864"


def test_exercise_f_composed_cross_entropy_overflows_to_inf_and_nan():
    def softmax(z):
        e = (z - z.data.max(axis=-1, keepdims=True)).exp()
        return e / e.sum(axis=-1, keepdims=True)

    z = Tensor([[0.0, -800.0]])
    with np.errstate(all="ignore"):
        loss = -(softmax(z).log() * np.array([[0.0, 1.0]])).sum(axis=-1).mean()
        loss.backward()
    assert f"{loss.data} {z.grad}" == "inf [[nan nan]]"


def test_chapter_worked_examples():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    f = (a * b + c) ** 2
    f.backward()
    assert (f.data, a.grad, b.grad, c.grad) == (16.0, -24.0, 16.0, 8.0)
    x = Value(3.0)
    y = x * x + x
    y.backward()
    assert x.grad == 7.0
    a = Value(2.0)
    u = a * 3
    (u * u + u).backward()
    assert a.grad == 39.0


def test_scalar_engine_recursion_limit_and_tensor_chain():
    # The chapter: Value's recursive sort fails on a 20,000-addition chain; Tensor's iterative one does not.
    x = Value(1.0)
    y = x
    for _ in range(20_000):
        y = y + 1.0
    with pytest.raises(RecursionError):
        y.backward()
    t = Tensor(1.0)
    y = t
    for _ in range(20_000):
        y = y + 1.0
    y.backward()
    assert float(t.grad) == 1.0


def test_relu_kink_numerical_derivative_figures():
    from reference.ch06 import numerical_grad

    def relu(v):
        return float(max(v.item(), 0.0))

    assert numerical_grad(relu, np.array(0.0)) == pytest.approx(0.5)
    assert numerical_grad(relu, np.array(3e-7)) == pytest.approx(0.65)


def test_explicit_seed_example():
    x = Tensor([1.0, 2.0, 3.0])
    (x * 2.0).backward(np.array([1.0, 0.0, -1.0]))
    assert x.grad.tolist() == [2.0, 0.0, -2.0]


def test_without_the_reset_leaf_gradients_grow_as_the_chapter_says(tmp_path):
    import importlib.util

    from tests.mutation import Mutant, apply, reference_source

    no_reset = Mutant(
        name="no_reset",
        bug="intermediate gradients not reset",
        within="Tensor.backward",
        # The reference starts a result's gradient afresh in backward(): without the reset it is kept, and added to.
        old="node.grad = None",
        new="pass",
    )
    path = tmp_path / "no_reset.py"
    path.write_text(apply(reference_source("ch06"), no_reset))
    spec = importlib.util.spec_from_file_location("no_reset", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = np.array([1.0, -2.0, 0.5])
    x = module.Tensor(data)
    y = x.sum()
    multiples = []
    for _ in range(3):
        y.backward()
        multiples.append(float(x.grad[0]))
    assert multiples == [1.0, 3.0, 6.0]  # k(k+1)/2 copies instead of k
    x = module.Tensor(data)
    y = (x * x).sum()
    multiples = []
    for _ in range(5):
        y.backward()
        multiples.append(round(float((x.grad / (2 * data))[0]), 9))
    assert multiples == [1.0, 4.0, 10.0, 20.0, 35.0]  # k(k+1)(k+2)/6


def test_every_gradient_is_a_float64_array_of_its_tensors_shape():
    """Intermediate gradients too, for 0-d tensors, where numpy's arithmetic gives scalars: the
    reference hands a rule's result on as it is (Tensor._receive), and must still keep arrays."""
    x = Tensor(np.array(0.5))
    a = x * 3.0
    b = a.exp()
    c = b * a + a
    d = c.sum()
    loss = d.log() - 2.0
    loss.backward()
    for t in (x, a, b, c, d, loss):
        assert type(t.grad) is np.ndarray and t.grad.dtype == np.float64 and t.grad.shape == t.shape, t.grad

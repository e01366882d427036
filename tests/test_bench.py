"""The benchmark compares like with like: every implementation of a step computes the same losses."""

import dataclasses

import pytest

from grader import bench_engine


@pytest.mark.parametrize("problem", [bench_engine.xor_problem, bench_engine.mlp_problem], ids=["xor", "mlp"])
def test_the_engine_and_hand_written_numpy_take_the_same_steps(problem):
    bench_engine.check_same_losses(problem(), bench_engine._builders(torch=None))


def test_a_step_that_differs_is_refused():
    problem = bench_engine.xor_problem()
    off = dataclasses.replace(problem, lr=problem.lr * 1.001)
    builders = {"numpy": bench_engine.numpy_step, "engine": lambda _: bench_engine.engine_step(off)}
    with pytest.raises(AssertionError, match="disagree"):
        bench_engine.check_same_losses(problem, builders)


def test_backward_on_a_chain_is_timed_and_the_scalar_limit_stated():
    rows = bench_engine.bench_backward(1, sizes=(10**3,))
    assert rows["tensor/1e3"]["n"] == 1000 and rows["tensor/1e3"]["backward_s"] > 0
    assert "RecursionError" in str(rows["scalar/1e3"]["backward_s"])

"""Benchmarks of the chapter 6 reference engines: one training step, and backward() on a long chain.

``bench_engine``: one SGD step (forward, zero grads, backward, update) of two tanh networks
with a mean squared error loss, each written three ways from the same float64 initial
weights: with the reference ``Tensor`` engine, by hand in plain numpy (forward and manual
backward: the floor an engine cannot beat), and in PyTorch CPU eager on one thread when
torch is installed (it is never required); numpy's BLAS is held to one thread too, so that
all three use one core, and glibc's malloc keeps large arrays on its heap (steady_malloc), so
that no implementation pays for fresh pages by luck. The three must give the same losses over two steps (checked once,
outside timing). Each implementation's steps are timed in loops of N steps, N chosen so
that one loop lasts about 0.2 s; the implementations take turns loop by loop, and a figure
is a median over the rounds, in microseconds per step.

``bench_backward``: ``backward()`` alone on the chain y = x; y = y + 1.0 (n times), for the
tensor and the scalar engine. A "node" is one link of the chain (one addition; the engine
also wraps each constant 1.0 in a leaf). Memory per node is the peak traced by tracemalloc
while building the chain, over n. The scalar engine sorts the graph by recursion: past the
recursion limit its row says where it fails instead of a time.
"""

from __future__ import annotations

import ctypes
import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

LOOP_SECONDS = 0.2  # a timed loop of steps lasts about this long
SAME_LOSS_RTOL = 1e-9
CHAIN_SIZES = (10**3, 10**4, 10**5, 10**6)
MEDIAN_UP_TO = 10**5  # longer chains are timed LONG_CHAIN_RUNS times: one run alone was off by 2x
LONG_CHAIN_RUNS = 3
# A chain whose timed backward() runs are estimated to last longer, or to need more memory, is
# skipped. Building it under tracemalloc costs 3-4 times its backward() on top (its row's build_s).
MAX_SECONDS = 60.0
MAX_BYTES = 4e9
MEMORY_MARGIN = 2.0  # tracemalloc's own bookkeeping and backward's temporaries come on top of the chain


def _torch():
    """PyTorch if it imports, else None: the bench must run without it."""
    try:
        import torch
    except (ImportError, OSError):
        return None
    torch.set_num_threads(1)  # one core, as numpy's BLAS is held to by one_blas_thread()
    return torch


def _openblas_threads():
    """numpy's OpenBLAS (get, set) thread-count functions, or None (another BLAS, or not Linux)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        # numpy's wheels rename the symbols (scipy_openblas_..._num_threads64_); a system OpenBLAS does not.
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", "_64_", ""):
                get, put = (getattr(lib, f"{prefix}_{verb}_num_threads{suffix}", None) for verb in ("get", "set"))
                if get and put:
                    return get, put
    return None


@contextmanager
def one_blas_thread():
    """numpy's matrix products on one thread, like torch's: BLAS threads on a busy machine cost more than they save.

    Yields the thread count in force: 1, or "default" when numpy's BLAS cannot be told.
    """
    found = _openblas_threads()
    if found is None:
        yield "default"
        return
    get, put = found
    before = get()
    put(1)
    try:
        yield 1
    finally:
        put(before)


# glibc's mallopt parameters, and the values steady_malloc gives them.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
STEADY_MMAP_THRESHOLD = 64 << 20  # the MLP's largest temporaries (1.6 MB) come from the heap
STEADY_TRIM_THRESHOLD = 256 << 20  # and the heap keeps what they free


def steady_malloc() -> str:
    """glibc's malloc set to serve large arrays from its heap, for the rest of the process; says what it did.

    By default glibc maps a large allocation (from 128 KB up, a threshold it raises as mapped blocks
    are freed) to fresh pages, a page fault for every 4 KB when they are written. Whether the
    hand-written numpy step's 1.6 MB temporaries (``lr * g``) cost those depends on what the process
    allocated before: it took 1.42 ms alone and 2.30 ms after the other suites (2026-12-03), the
    engine (which adds into gradients it keeps) 1.8 ms both times. With fixed thresholds every
    implementation is timed computing, not faulting pages.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        done = libc.mallopt(M_MMAP_THRESHOLD, STEADY_MMAP_THRESHOLD) and libc.mallopt(
            M_TRIM_THRESHOLD, STEADY_TRIM_THRESHOLD
        )
    except (OSError, AttributeError):  # not glibc
        return "default"
    return (
        f"glibc: large arrays from the heap (mmap threshold {STEADY_MMAP_THRESHOLD >> 20} MiB)" if done else "default"
    )


def _sig(x: float, digits: int = 3) -> float:
    return float(f"{x:.{digits}g}")


# ---------------------------------------------------------------------------------------------
# One training step


@dataclass(frozen=True)
class Problem:
    """A tanh network ``tanh(x @ w1 + b1) @ w2 + b2`` fitted by SGD on the mean squared error."""

    x: np.ndarray
    y: np.ndarray
    params: tuple[np.ndarray, ...]  # w1, b1, w2, b2: every implementation starts from copies
    lr: float


def mlp_problem() -> Problem:
    """784-256-10, a batch of 64 random inputs against one-hot targets."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 784))
    y = np.eye(10)[rng.integers(0, 10, size=64)]
    w1 = rng.normal(size=(784, 256)) / np.sqrt(784)
    w2 = rng.normal(size=(256, 10)) / np.sqrt(256)
    return Problem(x, y, (w1, np.zeros(256), w2, np.zeros(10)), lr=0.05)


def xor_problem(hidden: int = 4) -> Problem:
    """The lab's XOR network (labs/ch06/loops.py): 2-4-1, the four points, the same initial weights."""
    rng = np.random.default_rng(0)
    x = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([[0.0], [1.0], [1.0], [0.0]])
    w1 = rng.normal(size=(2, hidden))
    w2 = rng.normal(size=(hidden, 1)) / np.sqrt(hidden)
    return Problem(x, y, (w1, np.zeros(hidden), w2, np.zeros(1)), lr=0.05)


# Each builder returns (step, as_float): step() runs one step and returns the loss in its own
# type; as_float converts it, outside timing, for the cross-check.
Step = tuple[Callable[[], object], Callable[[object], float]]


def engine_step(problem: Problem) -> Step:
    from reference.ch06.tensor import Tensor

    # The data are constants, as torch.tensor makes them: no gradient is computed for them.
    x, y = Tensor(problem.x, requires_grad=False), Tensor(problem.y, requires_grad=False)
    params = [Tensor(p) for p in problem.params]  # Tensor copies its leaves' data
    w1, b1, w2, b2 = params
    lr = problem.lr

    def step():
        h = (x @ w1 + b1).tanh()
        pred = h @ w2 + b2
        loss = ((pred - y) ** 2).mean()
        for p in params:
            p.grad.fill(0.0)  # in place: the engine adds into a leaf's .grad
        loss.backward()
        for p in params:
            p.data -= lr * p.grad
        return loss

    return step, lambda loss: float(loss.data)


def numpy_step(problem: Problem) -> Step:
    x, y = problem.x, problem.y
    w1, b1, w2, b2 = params = [p.copy() for p in problem.params]
    lr = problem.lr

    def step():
        h = np.tanh(x @ w1 + b1)
        diff = h @ w2 + b2 - y
        loss = np.mean(diff * diff)
        dpred = diff * (2.0 / diff.size)
        dz = (dpred @ w2.T) * (1.0 - h * h)
        grads = (x.T @ dz, dz.sum(axis=0), h.T @ dpred, dpred.sum(axis=0))
        for p, g in zip(params, grads, strict=True):
            p -= lr * g
        return loss

    return step, float


def torch_step(problem: Problem, torch) -> Step:
    x, y = torch.tensor(problem.x), torch.tensor(problem.y)  # float64, as the arrays are
    params = [torch.tensor(p, requires_grad=True) for p in problem.params]
    w1, b1, w2, b2 = params
    lr = problem.lr

    def step():
        h = torch.tanh(x @ w1 + b1)
        pred = h @ w2 + b2
        loss = ((pred - y) ** 2).mean()
        for p in params:
            p.grad = None  # what optimizer.zero_grad() does by default
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        return loss

    return step, lambda loss: loss.item()


def step_builders(torch) -> dict[str, Callable[[Problem], Step]]:
    builders = {"engine": engine_step, "numpy": numpy_step}
    if torch is not None:
        builders["torch"] = lambda problem: torch_step(problem, torch)
    return builders


def check_same_losses(problem: Problem, builders: dict[str, Callable[[Problem], Step]], steps: int = 2) -> None:
    """Fail unless every implementation gives the same losses: the second one tests the first update."""
    losses = {}
    for name, build in builders.items():
        step, as_float = build(problem)
        losses[name] = [as_float(step()) for _ in range(steps)]
    expected = losses["numpy"]
    for name, got in losses.items():
        for a, b in zip(got, expected, strict=True):
            if not abs(a - b) <= SAME_LOSS_RTOL * abs(b):
                raise AssertionError(f"{name} and numpy disagree on the loss: {got} != {expected}")


def _steps_per_loop(step: Callable[[], object]) -> int:
    """How many steps last about LOOP_SECONDS (doubling until a loop is long enough to time)."""
    n = 1
    while True:
        started = time.perf_counter()
        for _ in range(n):
            step()
        elapsed = time.perf_counter() - started
        if elapsed >= LOOP_SECONDS / 4:
            return max(1, round(n * LOOP_SECONDS / elapsed))
        n *= 2


def time_steps_us(steps: dict[str, Callable[[], object]], repeat: int) -> tuple[dict, dict]:
    """Microseconds per step of each implementation, and each one's ratio to numpy's.

    The implementations take turns: round r times one loop of each, in an order rotated by r,
    so that a slow spell of a shared machine falls on all of them alike. A time is the median
    over max(repeat, 5) rounds; a ratio is the median of the rounds' own ratios.
    """
    loops = {name: _steps_per_loop(step) for name, step in steps.items()}  # also warms caches and allocators
    names = list(steps)
    rounds = []
    for r in range(max(repeat, 5)):
        times = {}
        for name in names[r % len(names) :] + names[: r % len(names)]:
            n = loops[name]
            started = time.perf_counter()
            for _ in range(n):
                steps[name]()
            times[name] = (time.perf_counter() - started) / n
        rounds.append(times)
    us = {name: statistics.median(t[name] for t in rounds) * 1e6 for name in names}
    ratios = {name: statistics.median(t["engine"] / t[name] for t in rounds) for name in names if name != "engine"}
    return us, ratios


def bench_problem(problem: Problem, repeat: int, torch) -> dict:
    builders = step_builders(torch)
    check_same_losses(problem, builders)
    # Fresh weights for timing; the timed steps go on training, at the same cost per step.
    us, engine_over = time_steps_us({name: build(problem)[0] for name, build in builders.items()}, repeat)
    row = {
        "engine_us": _sig(us["engine"]),
        "numpy_us": _sig(us["numpy"]),
        "torch_us": _sig(us["torch"]) if torch is not None else "not installed",
        "engine_vs_numpy": round(engine_over["numpy"], 2),
    }
    if torch is not None:
        row["engine_vs_torch"] = round(engine_over["torch"], 2)
    return row


def bench_engine(repeat: int) -> dict:
    """One SGD step of an MLP and of the lab's XOR network: the engine against numpy (and torch)."""
    torch = _torch()
    malloc = steady_malloc()
    with one_blas_thread() as threads:
        rows = {
            "mlp_784_256_10_b64": bench_problem(mlp_problem(), repeat, torch),
            "xor_2_4_1": bench_problem(xor_problem(), repeat, torch),
        }
    return {name: {**row, "blas_threads": threads, "malloc": malloc} for name, row in rows.items()}


# ---------------------------------------------------------------------------------------------
# backward() on a long chain


def _engines() -> dict[str, type]:
    from reference.ch06.scalar import Value
    from reference.ch06.tensor import Tensor

    return {"tensor": Tensor, "scalar": Value}


def build_chain(leaf: type, n: int):
    """x, then n times y = y + 1.0; returns (x, y, peak traced bytes, seconds)."""
    was_enabled = gc.isenabled()
    # Every node stays reachable while the chain grows, so a collection would only cost time.
    gc.disable()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        x = y = leaf(1.5)
        for _ in range(n):
            y = y + 1.0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        if was_enabled:
            gc.enable()
    # Move the chain to the oldest generation, as collections during a build with gc on would have:
    # otherwise the first collection in the timed backward() would walk the whole chain.
    gc.collect()
    return x, y, peak, time.perf_counter() - started


def time_backward(y, runs: int) -> float:
    """Median seconds of y.backward() (the engines recompute intermediate gradients on each call)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        y.backward()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _runs(n: int, repeat: int) -> int:
    return max(repeat, 3) if n <= MEDIAN_UP_TO else LONG_CHAIN_RUNS


def measure_chain(leaf: type, n: int, repeat: int) -> dict:
    """A row for one chain length; raises RecursionError if backward() does."""
    runs = _runs(n, repeat)
    x, y, peak, build_s = build_chain(leaf, n)
    try:
        seconds = time_backward(y, runs)
    finally:
        del x, y
        gc.collect()  # a Value is in a cycle with its backward closure: refcounts alone do not free it
    return {
        "n": n,
        "runs": runs,
        "backward_s": _sig(seconds),
        "us_per_node": _sig(seconds / n * 1e6),
        "bytes_per_node": round(peak / n),
        "build_s": _sig(build_s),
    }


def recursion_limit_nodes(leaf: type, failing: int) -> int:
    """The longest chain whose backward() works, by bisection below a length known to fail."""

    def works(n: int) -> bool:
        x, y, _, _ = build_chain(leaf, n)
        try:
            y.backward()
            return True
        except RecursionError:
            return False
        finally:
            del x, y
            gc.collect()

    good, bad = 0, failing
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if works(middle) else (good, middle)
    return good


def estimate(previous: dict, n: int, repeat: int) -> tuple[float, float]:
    """Seconds of the timed backward() runs and bytes of a chain of n, scaled linearly from a shorter one."""
    scale = n / previous["n"]
    return previous["backward_s"] * _runs(n, repeat) * scale, previous["bytes_per_node"] * n * MEMORY_MARGIN


def _label(n: int) -> str:
    exponent = round(np.log10(n))
    return f"1e{exponent}" if 10**exponent == n else str(n)


def bench_chain(name: str, leaf: type, repeat: int, sizes) -> tuple[dict, dict]:
    """The rows of one engine, and its linearity: us per node at the longest chain over the shortest."""
    rows, measured, failure = {}, [], None
    for n in sizes:
        key = f"{name}/{_label(n)}"
        if failure:
            rows[key] = {"n": n, "backward_s": failure}
            continue
        if measured:
            seconds, nbytes = estimate(measured[-1], n, repeat)
            if seconds > MAX_SECONDS or nbytes > MAX_BYTES:
                limits = f"{MAX_SECONDS:.0f} s, {MAX_BYTES / 1e9:.0f} GB"
                rows[key] = {"n": n, "skipped": f"estimated {seconds:.3g} s, {nbytes / 1e9:.2g} GB (limits {limits})"}
                continue
        try:
            rows[key] = measure_chain(leaf, n, repeat)
        except RecursionError:
            limit = recursion_limit_nodes(leaf, n)
            failure = f"RecursionError beyond ~{limit} nodes"
            rows[key] = {"n": n, "backward_s": failure}
            if limit >= 10:  # time the longest chain that works, less a margin for the timed call's deeper stack
                rows[f"{name}/max"] = measure_chain(leaf, limit * 9 // 10, repeat)
            continue
        measured.append(rows[key])
    if failure:
        return rows, {name: failure}
    if len(measured) < 2:
        return rows, {name: "fewer than two sizes measured"}
    first, last = measured[0], measured[-1]
    return rows, {
        name: round(last["us_per_node"] / first["us_per_node"], 2),
        f"{name}_sizes": f"{_label(first['n'])}..{_label(last['n'])}",
    }


def bench_backward(repeat: int, sizes=CHAIN_SIZES) -> dict:
    """backward() alone on chains of additions, tensor and scalar engines: time and memory per node."""
    figures, linear = {}, {}
    for name, leaf in _engines().items():
        rows, ratio = bench_chain(name, leaf, repeat, sizes)
        figures.update(rows)
        linear.update(ratio)
    figures["linear"] = linear
    return figures

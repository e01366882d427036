"""Appended to the reference with a recursive backward() (which fails on deep graphs): it replaces
the deep-graph test's loop in the worker with one that builds the chain but skips backward(),
sets x.grad to 1 and hands back a chain of its own choosing. The test draws two nodes and a seed
after the answer is in: a backward() from the later node must walk the real chain, and recurses
too deep; a star of nodes each one step from x never reaches the earlier node."""

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


def _forged_chain(Tensor, length):
    loops = _worker_globals()["HELPERS"]["loops"]
    x = Tensor(1.5)
    nodes = [x + float(i + 1) for i in range(length)]  # a star: every node one step from x
    x.grad = _np.array(1.0)
    return x, x.grad, loops.Chain(nodes, False)


_worker_globals()["HELPERS"]["loops"].chain_of_additions = _forged_chain

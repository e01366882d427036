"""grader.harness.module_data: a lab test module's data as collected, put back before each submission of a queue."""

import functools
import types

import numpy as np

from grader.harness.module_data import ModuleData
from grader.testing import constant


def test_every_array_and_list_a_module_holds_gets_its_values_back_and_caches_are_emptied():
    module = types.ModuleType("test_lab")
    inputs = np.arange(3.0)
    module.CASES = {"add": (lambda a: a, [inputs, [1.0, 2.0]])}
    module.XS = [0.0, 1.0]
    module.FIXED = constant(np.ones(2))
    kept = np.zeros((2, 3))

    def case(x, w=np.ones(2)):  # noqa: B008 - a default a test module might hold
        return x + w + kept

    module.case = case

    @functools.cache
    def weights(n):
        return np.ones(n)

    module.weights = weights
    weights(3)
    data = ModuleData([module])
    # what a submission's calls could change, copied back behind the wall (or in-process, directly)
    inputs[...] = np.nan
    module.CASES["add"][1][1][0] = 99.0
    module.CASES["add"][1][0] = "replaced"
    module.XS.append(5.0)
    case.__defaults__[0][0] = 7.0
    kept.shape = (6,)
    kept[...] = 3.0
    data.restore()
    assert module.CASES["add"][1][0] is inputs and np.array_equal(inputs, np.arange(3.0))
    assert module.CASES["add"][1][1] == [1.0, 2.0] and module.XS == [0.0, 1.0]
    assert np.array_equal(case.__defaults__[0], np.ones(2))
    assert kept.shape == (2, 3) and not kept.any()
    assert weights.cache_info().currsize == 0
    assert not module.FIXED.flags.writeable  # left alone: it cannot change

"""What a lab's test file uses: markers for points, exact conversions, teaching checks, the kit's own gradient checker.

Everything here runs in the trusted process and touches the code under test only
through the lab's public API.
"""

from ..seam import beside, read_many
from .checks import LabCheckFailure, as_array, as_float, as_shape, expect_close, expect_shape, fail, raises
from .gradients import check_scalar_gradients, check_tensor_gradients
from .marks import graded
from .numeric import numerical_gradient
from .spec import SpecScalar, SpecTensor

__all__ = [
    "LabCheckFailure",
    "SpecScalar",
    "SpecTensor",
    "as_array",
    "beside",
    "as_float",
    "as_shape",
    "check_scalar_gradients",
    "check_tensor_gradients",
    "expect_close",
    "expect_shape",
    "fail",
    "graded",
    "numerical_gradient",
    "raises",
    "read_many",
]

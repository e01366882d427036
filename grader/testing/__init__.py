"""What a lab's test file uses: markers for points, exact conversions, teaching checks, the kit's own gradient checker.

Everything here runs in the trusted process and touches the code under test only
through the lab's public API.
"""

from grader.testing.checks import (
    LabCheckFailure,
    as_array,
    as_float,
    as_shape,
    expect_close,
    expect_shape,
    fail,
    raises,
    read_floats,
)
from grader.testing.gradients import (
    FORWARD_HINT,
    check_scalar_cases,
    check_scalar_gradients,
    check_tensor_cases,
    check_tensor_gradients,
    expect_scalar_gradients,
    expect_tensor_gradients,
    explained_errors,
)
from grader.testing.marks import graded, searching
from grader.testing.numeric import numerical_gradient
from grader.testing.remote import beside, constant, given, probe, read_each, read_many, recorded
from grader.testing.shapes import shape_of
from grader.testing.spec import SpecScalar, SpecTensor

__all__ = [
    "FORWARD_HINT",
    "LabCheckFailure",
    "SpecScalar",
    "SpecTensor",
    "as_array",
    "beside",
    "as_float",
    "as_shape",
    "check_scalar_cases",
    "check_scalar_gradients",
    "check_tensor_cases",
    "check_tensor_gradients",
    "constant",
    "expect_close",
    "expect_scalar_gradients",
    "expect_shape",
    "expect_tensor_gradients",
    "explained_errors",
    "fail",
    "graded",
    "searching",
    "numerical_gradient",
    "raises",
    "given",
    "probe",
    "read_each",
    "read_floats",
    "read_many",
    "recorded",
    "shape_of",
]

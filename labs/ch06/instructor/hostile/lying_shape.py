"""Appended to the honest reference: every Tensor claims a shape of a million by a million.

A test that draws weights of its result's shape (rng.normal(size=out.shape)) would ask the
trusted process for 8 TB; it must check the claim first (grader.testing.as_shape) and fail
the test, not the grader."""

Tensor.shape = property(lambda self: (1_000_000, 1_000_000))

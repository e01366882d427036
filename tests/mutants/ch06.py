"""Realistic student bugs in lab ch06, each with the lab tests that catch it."""

from tests.mutation import Mutant

MUTANTS = [
    Mutant(
        name="value_add_assigns_gradient",
        bug="Value.__add__ assigns the gradient (=) instead of accumulating it (+=)",
        within="Value.__add__",
        old="self.grad += out.grad",
        new="self.grad = out.grad",
        caught_by={},
    ),
]

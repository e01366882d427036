"""The markers of a lab's tests: what makes a test count (its task and its points), and what makes it costly."""

import pytest


def graded(task: str, points: float, hint: str = ""):
    """Mark a test as worth ``points`` in ``task`` (an id from lab.toml); ``hint`` is shown when it fails."""
    return pytest.mark.graded(task=task, points=points, hint=hint)


# A test that searches many cases (the random graphs): a run that stops at a submission's first failure
# (grader mutants) runs these after every other test, since any cheaper test that fails ends it sooner.
searching = pytest.mark.searching

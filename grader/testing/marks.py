"""The marker that makes a test count: its task and its points."""

import pytest


def graded(task: str, points: float, hint: str = ""):
    """Mark a test as worth ``points`` in ``task`` (an id from lab.toml); ``hint`` is shown when it fails."""
    return pytest.mark.graded(task=task, points=points, hint=hint)

"""labkit's grader: the seam the labs' tests use, the pytest plugin, and the `grader` command."""

__version__ = "0.1.0"


def under_test(lab_id: str):
    """The lab's public names for the implementation under test; see grader.harness.seam."""
    from grader.harness.seam import under_test as _under_test

    return _under_test(lab_id)

"""labkit's grader: the `grader` command, the pytest plugin, and the seam the labs' tests use.

The three processes of a grading run each have a folder: ``grading/`` (the grader's own),
``harness/`` (the trusted pytest process), ``wall/`` (the worker and its sandbox). What
they share sits at this level: the labs, the code under test, the orders (``env``), the
progress stream and the words of verdicts. See ARCHITECTURE.md.
"""

__version__ = "0.1.0"


def under_test(lab_id: str):
    """The lab's public names for the implementation under test; see grader.harness.handles."""
    from grader.harness import handles

    return handles.under_test(lab_id)

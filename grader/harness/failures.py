"""Exceptions that carry a verdict: the code under test could not be used, or its worker failed."""


class SubmissionError(Exception):
    """The code under test cannot be used at all (does not import, lacks a public name): outcome error."""

    outcome = "error"

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


class WorkerFailure(Exception):
    """The worker running the code under test timed out or crashed: the outcome names which."""

    outcome = "crashed"

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


class WorkerTimeout(WorkerFailure):
    outcome = "timeout"


class WorkerCrashed(WorkerFailure):
    outcome = "crashed"

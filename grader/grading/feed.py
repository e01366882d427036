"""What one queue session grades: submissions handed over on its orders' pipe one at a time.

A pytest session that grades a queue (grader.grading.runner.run_queue) reads its submissions
from the pipe its orders came on (grader.harness.incoming). The feed writes the next one as
the session turns to the one before it: a session that finishes a submission finds the next
waiting, and holds at most one it has not begun, so the jobs of a batch that share one queue
end together, one student apart. The feed closes the pipe, and the session ends, when the
queue is empty or the session has had ``limit`` submissions.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Collection
from typing import BinaryIO

from grader.implementation import Implementation
from grader.progress import ProgressReader

Given = tuple[object, Implementation]  # the caller's item (its key to the result) and the code to grade

# Submissions one pytest session grades at most: a session starts in about half a second, and its
# process should not grow with the class. What grew (pytest's terminal reporter kept every report,
# about 0.3 MiB a student) is dropped after each one (grader.harness.plugin); a limit still bounds
# whatever a later change might keep, and in-process each file's module stays loaded.
SESSION_LIMIT = 100


class Feed:
    """Submissions from ``take`` (a Given, or None when there are no more) for one session's pipe."""

    def __init__(
        self,
        take: Callable[[], Given | None],
        extra: dict,
        limit: int | None = None,
        ahead: int = 1,
        only: Callable[[object], Collection[str] | None] | None = None,
    ):
        self.take = take  # must not block: the session's watch calls it
        self.extra = extra  # added to every entry (stop_at_first_failure, record_calls)
        self.only = only  # a given item's tests to run (None: all)
        self.limit = SESSION_LIMIT if limit is None else limit
        self.ahead = ahead  # submissions given beyond the one the session is on
        self.given: dict[str, Given] = {}  # by the key the session streams, in the order given
        self.pipe: BinaryIO | None = None

    def attach(self, pipe: BinaryIO) -> None:
        """Write the session's first submission on ``pipe``, the rest as it asks for them (``poll``)."""
        self.pipe = pipe
        self._give(started=0)

    def poll(self, progress: ProgressReader) -> None:
        """One more submission once the session has turned to the last one given."""
        self._give(started=len(progress.parts) - 1)  # parts: one a submission begun, and None's

    def _give(self, started: int) -> None:
        while self.pipe is not None and len(self.given) < started + self.ahead:
            got = self.take() if len(self.given) < self.limit else None
            if got is None:
                self.close()
                return
            key = str(len(self.given))
            self.given[key] = got
            entry = {"key": key, "path": str(got[1].path), **self.extra}
            tests = self.only(got[0]) if self.only is not None else None
            if tests is not None:
                entry["only"] = sorted(tests)
            try:
                self.pipe.write((json.dumps(entry) + "\n").encode())
                self.pipe.flush()
            except OSError:  # the session has died: the runner sees it and grades what it left
                self.close()

    def close(self) -> None:
        """No more submissions: the session ends after the ones given."""
        pipe, self.pipe = self.pipe, None
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()

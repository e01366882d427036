"""Which commits of a fork to grade at a deadline, and when its history cannot be trusted. Pure functions.

The branch is read along first parents (the student's own line of work, not what a merge
brought in), newest first, by committer time. The commit graded is the newest one dated at
or before the deadline; the commits above it are later, and the newest of those, the head, is
late work, graded too and marked with how late it is.

Dates are the student's claim: anyone can commit with any date. Git can still tell some
rewrites, and those make the fork ``suspect`` (graded by nobody until the instructor decides):

- dates that go backwards across the deadline: a commit dated before it whose parent is dated
  after it (the work was done after the deadline, then dated back);
- a commit dated after the time of the collection (a clock, or a date, set by hand);
- with an earlier collection of the same fork: a commit it recorded that is no longer in the
  branch (history rewritten and force-pushed since), or, when that collection ran after the
  deadline, a commit dated before the deadline that it did not see (pushed after the deadline
  with an earlier date). Collecting at the deadline, then again later, is what makes these two
  checks possible: git keeps no record of when a commit was pushed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grader.batch.git import Commit

MAX_LATER_LISTED = 50  # later commits listed in the record (all are counted)


@dataclass(frozen=True)
class Earlier:
    """What an earlier collection of the same fork recorded: its commits, when it fetched, what it graded on time."""

    commits: tuple[str, ...]
    fetched_at: int | None  # seconds since the epoch
    on_time: str | None


@dataclass
class Choice:
    on_time: Commit | None  # the newest commit dated at or before the deadline
    later: list[Commit] = field(default_factory=list)  # dated after it, newest first
    suspect: str = ""  # why the history cannot be trusted, or ""

    @property
    def late(self) -> Commit | None:
        """The late work to grade: the branch's head, when it is dated after the deadline."""
        return self.later[0] if self.later else None


def duration(seconds: int) -> str:
    """A duration as hours:minutes:seconds (hours past 24 as they are), which a spreadsheet reads as a duration."""
    sign = "-" if seconds < 0 else ""
    seconds = abs(int(seconds))
    return f"{sign}{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def choose(history: list[Commit], deadline: int, now: int, earlier: Earlier | None, in_branch) -> Choice:
    """The commits to grade from ``history`` (first parents, newest first) at ``deadline``, collected at ``now``.

    ``in_branch(sha)`` says whether a commit is still in the branch (an ancestor of its head).
    """
    index = next((i for i, c in enumerate(history) if c.time <= deadline), None)
    choice = Choice(history[index] if index is not None else None, history[: len(history) if index is None else index])
    choice.suspect = _suspect(history, deadline, now, earlier, in_branch, choice)
    return choice


def _suspect(history: list[Commit], deadline: int, now: int, earlier: Earlier | None, in_branch, choice: Choice) -> str:
    for child, parent in zip(history, history[1:], strict=False):
        if child.time <= deadline < parent.time:
            return (
                f"commit {child.sha[:12]} is dated before the deadline but its parent {parent.sha[:12]} after it "
                f"({duration(parent.time - deadline)} after): dates rewritten"
            )
    future = [c for c in history if c.time > now]
    if future:
        return f"commit {future[0].sha[:12]} is dated {duration(future[0].time - now)} after this collection"
    if earlier is None:
        return ""
    gone = [sha for sha in earlier.commits if not in_branch(sha)]
    if gone:
        return f"commit {gone[0][:12]}, collected earlier, is no longer in the branch: history rewritten since"
    new_on_time = choice.on_time.sha if choice.on_time else None
    if earlier.fetched_at is not None and earlier.fetched_at > deadline and new_on_time != earlier.on_time:
        return (
            f"commit {new_on_time[:12] if new_on_time else '(none)'} is dated before the deadline but was not "
            f"there when the fork was collected after it (which graded {(earlier.on_time or 'nothing')[:12]}): "
            "pushed after the deadline"
        )
    return ""

"""Whether a batch folder's grades are still of the files its inputs hold.

The inputs may change after a batch: a second ``grader collect`` into the same folder, a fresh
download from the LMS with resubmissions. ``grader export`` must not hand back the grades of files
the students have since replaced without saying so. ``batch.json`` names the inputs (their absolute
paths) and the roster they gave, each student's intake status and file sha256
(grader.batch.shards.describe); ``check`` reads the inputs again, as the batch read them, and
compares the two rosters.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from grader.batch import inputs, shards
from grader.batch.collection import LATE
from grader.grading import scratch
from grader.report.text import a_few

SAME, CHANGED, UNCHECKED = "same", "changed", "unchecked"


@dataclass(frozen=True)
class Freshness:
    state: str  # SAME, CHANGED or UNCHECKED
    words: str = ""  # what changed; for UNCHECKED, why it could not be checked (or not all of it)
    inputs: tuple[str, ...] = ()  # as batch.json names them
    gone: list[str] = field(default_factory=list)  # students no longer in the inputs
    unchecked: str = ""  # with CHANGED: what could not be checked besides
    students: list[str] = field(default_factory=list)  # with CHANGED: every student whose entry differs


def recorded_inputs(paths: list[Path]) -> list[str]:
    """What ``batch.json`` keeps of the inputs: absolute paths, ``..`` resolved by name (not through links, so a
    ``current`` link to the latest download is followed when the inputs are read again, as the batch did)."""
    return [os.path.abspath(p) for p in paths]


def check(about: dict, *, late_work_counts: bool = True) -> Freshness:
    """Whether the inputs ``about`` (a batch.json) names hold today the students and files it recorded; late work
    left out unless it counts (grader export counts it only under a late policy). Inputs no longer there, or
    that cannot be read, are left unchecked, and so are their students; the others are checked."""
    named = about.get("inputs")
    if not isinstance(named, list) or not named or not all(isinstance(p, str) and p for p in named):
        return Freshness(UNCHECKED, "the batch folder does not name its inputs (an older kit graded it)")
    here = [p for p in named if os.path.lexists(p)]
    missing = "" if len(here) == len(named) else f"{next(p for p in named if p not in here)} is no longer there"
    if not here:
        return Freshness(UNCHECKED, missing, tuple(named))
    with scratch.temporary("freshness") as unpacked:
        try:
            now = shards.roster_of(inputs.discover([Path(p) for p in here], str(about.get("lab")), unpacked))
        except (inputs.InputError, OSError) as exc:
            return Freshness(UNCHECKED, f"the inputs cannot be read again: {exc}", tuple(named))
    recorded = about.get("roster") or []
    if not late_work_counts:
        recorded, now = ([r for r in roster if r.get("version") != LATE] for roster in (recorded, now))
    before, after = {r.get("key"): r for r in recorded}, {r.get("key"): r for r in now}
    changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    new = sorted(after.keys() - before.keys())
    gone = [] if missing else sorted(before.keys() - after.keys())  # with an input missing, its students are too
    if not (changed or new or gone):
        return Freshness(UNCHECKED, f"{missing}: its students were not checked") if missing else Freshness(SAME)
    parts = [
        f"{words} {_names([after.get(k) or before[k] for k in keys])}"
        for words, keys in (("resubmitted or another status:", changed), ("new:", new), ("gone:", gone))
        if keys
    ]
    return Freshness(
        CHANGED,
        "; ".join(parts),
        tuple(named),
        sorted({str(before[k].get("student")) for k in gone}),
        missing,
        sorted({str((after.get(k) or before[k]).get("student")) for k in [*changed, *new, *gone]}),
    )


def _names(entries: list[dict]) -> str:
    """'ana, bo (late work) and 2 more': each student's id quoted where it could be misread."""
    names = set()
    for entry in entries:
        student = str(entry.get("student"))
        shown = repr(student) if not student.isprintable() or any(c in student for c in ",;") else student
        names.add(shown + (" (late work)" if entry.get("version") == LATE else ""))
    return a_few(sorted(names), 3)

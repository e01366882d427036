"""Whether a batch folder's grades are still of the files its inputs hold.

The inputs may change after a batch: a second ``grader collect`` into the same folder, a fresh
download from the LMS with resubmissions. ``grader export`` must not hand back the grades of files
the students have since replaced without saying so. ``batch.json`` names the inputs (their absolute
paths) and the roster they gave, each student's intake status and file sha256
(grader.batch.shards.describe); ``check`` reads the inputs again, as the batch read them, and
compares the two rosters.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.batch import inputs, shards
from grader.grading import scratch

SAME, CHANGED, UNCHECKED = "same", "changed", "unchecked"


@dataclass(frozen=True)
class Freshness:
    state: str  # SAME, CHANGED or UNCHECKED
    words: str = ""  # what changed, or why it could not be checked
    inputs: tuple[str, ...] = ()  # as batch.json names them


def recorded_inputs(paths: list[Path]) -> list[str]:
    """What ``batch.json`` keeps of the inputs: absolute paths, so a check from another folder finds them."""
    return [str(Path(p).absolute()) for p in paths]


def check(about: dict) -> Freshness:
    """Whether the inputs ``about`` (a batch.json) names hold today the students and files it recorded."""
    named = about.get("inputs")
    if not isinstance(named, list) or not named or not all(isinstance(p, str) and p for p in named):
        return Freshness(UNCHECKED, "the batch folder does not name its inputs (an older kit graded it)")
    gone = [p for p in named if not Path(p).exists()]
    if gone:
        return Freshness(UNCHECKED, f"{gone[0]} is no longer there", tuple(named))
    with scratch.temporary("freshness") as unpacked:
        try:
            now = shards.roster_of(inputs.discover([Path(p) for p in named], str(about.get("lab")), unpacked))
        except inputs.InputError as exc:
            return Freshness(UNCHECKED, f"the inputs cannot be read again: {exc}", tuple(named))
    recorded = about.get("roster") or []
    if now == recorded:
        return Freshness(SAME, "", tuple(named))
    return Freshness(CHANGED, _difference(recorded, now), tuple(named))


def _difference(recorded: list[dict], now: list[dict]) -> str:
    """'a new file for 2 students (amy, bo); 1 student new (cy)': by roster key (a student's late work, from a
    collection, has its own), named by student."""
    before, after = {r.get("key"): r for r in recorded}, {r.get("key"): r for r in now}
    kinds = (
        ("a new file or status for", [k for k in before.keys() & after.keys() if before[k] != after[k]]),
        ("new in the inputs:", list(after.keys() - before.keys())),
        ("gone from the inputs:", list(before.keys() - after.keys())),
    )
    parts = []
    for words, keys in kinds:
        students = sorted({str((after.get(k) or before[k]).get("student")) for k in keys})
        if students:
            shown = ", ".join(students[:3]) + (f" and {len(students) - 3} more" if len(students) > 3 else "")
            parts.append(f"{words} {shown}")
    return "; ".join(parts) or "the same students in another order"

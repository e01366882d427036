"""The late policy of ``grader export``: how much of a late score a student keeps. Pure functions.

A policy is a percentage taken per day late, a cap on what is taken, and a grace period:

- work handed in at the due time, or up to the grace period after it, is on time (no penalty);
- past the grace period, lateness counts from the due time itself (not from the end of the grace), and
  every day begun counts as a whole day: 1 second late past the grace is 1 day, 24 h 1 s is 2 days;
- the penalty is ``min(cap, per_day * days)`` percent of the score the late work earned (a late student
  never drops below 0, and a perfect late file keeps ``100 - penalty`` percent of the points).

The policy comes from the command line or a course file's ``[late]`` table (``per_day``, ``cap``,
``grace``, ``due``); the command line wins, key by key.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from grader.batch.collection import parse_deadline

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DAY = 86400
DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)\s*$")
UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": DAY, "": 60}  # a bare number is minutes
COURSE_KEYS = ("per_day", "cap", "grace", "due")


class PolicyError(ValueError):
    """A late policy, a course file or a time that cannot be used: one line saying why (exit status 2)."""


@dataclass(frozen=True)
class LatePolicy:
    per_day: float  # percent of the late score taken per day late
    cap: float = 100.0  # the most taken, in percent
    grace_seconds: int = 0

    def describe(self) -> dict:
        return {"per_day_percent": self.per_day, "cap_percent": self.cap, "grace_seconds": self.grace_seconds}


def parse_duration(text: str) -> int:
    """A grace period in seconds: ``15m``, ``2h``, ``1d``, ``90s``, or a bare number of minutes."""
    found = DURATION.match(str(text))
    if not found:
        raise PolicyError(f"{text!r} is not a duration: write e.g. 15m, 2h, 1d or 90s")
    return round(float(found.group(1)) * UNIT_SECONDS[found.group(2)])


def policy(per_day: float | None, cap: float | None = None, grace: str | float | None = None) -> LatePolicy:
    """A checked policy: percentages from 0 to 100, a grace period of 0 to 30 days."""
    if per_day is None:
        raise PolicyError("a late policy needs its percentage per day (--late-per-day, or per_day in [late])")
    values = {"per-day": per_day, "cap": 100.0 if cap is None else cap}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
            raise PolicyError(f"the late {name} percentage must be a number from 0 to 100, got {value!r}")
    if isinstance(grace, bool) or not (grace is None or isinstance(grace, str | int | float)):
        raise PolicyError(f'the grace period must be a duration ("15m") or a number of minutes, got {grace!r}')
    # A number is minutes, as the command line's --late-grace 1.5 is (90 s): never cut to whole minutes.
    grace_seconds = parse_duration(grace) if isinstance(grace, str) else (grace or 0) * 60
    if not 0 <= grace_seconds <= 30 * DAY:  # nan and inf too
        raise PolicyError(f"the grace period must be from 0 to 30 days, got {grace!r}")
    return LatePolicy(float(values["per-day"]), float(values["cap"]), round(grace_seconds))


def days_late(late_seconds: int | float | None, rule: LatePolicy) -> int:
    """Days counted late: 0 at or before the due time and within the grace period; past it, every day begun."""
    if late_seconds is None or late_seconds <= rule.grace_seconds:
        return 0
    return math.ceil(late_seconds / DAY)


def penalty_percent(late_seconds: int | float | None, rule: LatePolicy) -> float:
    return min(rule.cap, rule.per_day * days_late(late_seconds, rule))


def penalty_points(score: float, late_seconds: int | float | None, rule: LatePolicy) -> float:
    """The points a late score loses (never more than the score itself)."""
    return round(score * penalty_percent(late_seconds, rule) / 100, 4)


def seconds_late(submitted_at: str, due: datetime) -> int:
    """How late an LMS submission time (ISO 8601 with its offset) is after ``due`` (negative: early)."""
    try:
        moment = parse_deadline(submitted_at)
    except ValueError as exc:
        raise PolicyError(f"the submission time {exc}") from None
    return int((moment - due).total_seconds())


def read_course(path: Path) -> dict:
    """A course file's ``[late]`` table (per_day, cap, grace, due), checked for its keys; PolicyError otherwise."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PolicyError(f"cannot read the course file {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PolicyError(f"{path.name} is not a TOML file: {exc}") from None
    # The course file holds the late policy and nothing else: a policy written at the top or under another
    # name would be no policy at all, and every late student would silently get 0.
    if set(document) != {"late"}:
        found = ", ".join(repr(k) for k in sorted(set(document) - {"late"}))
        where = f"; it holds {found}" if found else ""
        raise PolicyError(f"{path.name}: a course file holds one [late] table (per_day, cap, grace, due){where}")
    late = document["late"]
    if not isinstance(late, dict):
        raise PolicyError(f"{path.name}: [late] must be a table")
    unknown = sorted(set(late) - set(COURSE_KEYS))
    if unknown:
        raise PolicyError(f"{path.name}: [late] has no key {unknown[0]!r} (it takes {', '.join(COURSE_KEYS)})")
    if "due" in late:
        due = late["due"]
        if isinstance(due, datetime):  # TOML's own date-time
            if due.tzinfo is None:
                raise PolicyError(f"{path.name}: [late] due has no time zone: write e.g. 2026-12-01T23:59:00+01:00")
            late = {**late, "due": due.isoformat()}
        elif not isinstance(due, str):
            raise PolicyError(f"{path.name}: [late] due must be an ISO 8601 time, got {due!r}")
    return late


def due_time(text: str) -> datetime:
    try:
        return parse_deadline(text)
    except ValueError as exc:
        raise PolicyError(f"the due time {exc}") from None

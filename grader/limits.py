"""The limits a lab is graded under: their names, units, defaults and ranges, in one place.

A lab's ``[limits]`` in lab.toml (checked when the lab is loaded, grader.labs) and
``--limit NAME=VALUE`` (grader.cli.options) may set any of them and nothing else. ``Limits``
is the share the wall enforces on the code under test, per test (grader.wall); ``run_seconds``,
the time one submission's whole run may take, is the runner's (grader.grading.runner). The
limits in force (``in_force``) are written into every report and batch record.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace

HOUR = 3600
# The worker imports numpy before its limits apply, and every test's child inherits that
# address space: about 96 MiB (VmSize after `import numpy`, numpy 2.4, one BLAS thread). At
# 100 MiB every ch06 test of the reference crashes; from 110 MiB the worker runs; ch06's
# reference passes every test from 140 MiB.
MIN_MEMORY_MB = 128


@dataclass(frozen=True)
class Range:
    """What values one limit takes: whole numbers or any, from ``low`` (excluded if not ``from_low``) to ``high``."""

    low: float
    high: float
    whole: bool
    unit: str = ""
    from_low: bool = True  # False: more than ``low`` (a time limit of 0 s is none)

    def words(self) -> str:
        unit = f" of {self.unit}" if self.unit else ""
        low, high = _plain(self.low), _plain(self.high)
        if self.whole:
            return f"a whole number{unit} from {low} to {high}"
        return f"a number{unit} {'at least' if self.from_low else 'more than'} {low} and at most {high}"

    def admits(self, value: float) -> bool:
        above = value >= self.low if self.from_low else value > self.low
        return math.isfinite(value) and above and value <= self.high and (not self.whole or value == int(value))


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _limit(default, low, high, unit="", *, from_low=True):
    whole = isinstance(default, int)
    return field(default=default, metadata={"range": Range(low, high, whole, unit, from_low)})


# A time limit under a tenth of a second measures the clock, not the code; a whole run needs seconds
# to start its test process and collect the tests before the first one runs.
SECONDS = {"low": 0.1, "high": HOUR, "unit": "seconds"}
MIN_RUN_SECONDS = 5


@dataclass(frozen=True)
class Limits:
    """Per-test limits on the code under test, enforced behind the wall (lab.toml ``[limits]``; these defaults)."""

    test_seconds: float = _limit(10.0, **SECONDS)  # wall clock for one test
    call_seconds: float = _limit(10.0, **SECONDS)  # wall clock for one operation
    cpu_seconds: int = _limit(10, 1, HOUR, "seconds")  # CPU time of one test's worker (RLIMIT_CPU counts whole seconds)
    memory_mb: int = _limit(1024, MIN_MEMORY_MB, 64 * 1024, "MiB")  # address space
    output_kb: int = _limit(1024, 1, 1024 * 1024, "KiB")  # what the code under test may print or write
    processes: int = _limit(32, 1, 1024)  # processes of the unprivileged user (only where children run as one)
    import_seconds: float = _limit(10.0, **SECONDS)  # for importing the submission
    # Once a test of a submission has timed out, each later test of its run may take this long (at most
    # test_seconds): a loop that never ends in an operation every test calls (backward()) would otherwise
    # cost every test the full limit, and the whole run its run_seconds.
    test_seconds_after_timeout: float = _limit(2.0, **SECONDS)

    def after_a_timeout(self) -> Limits:
        """The limits of the tests that follow one that timed out: each test at most
        ``test_seconds_after_timeout`` of wall clock (a call within it too). The others stay: a fresh
        worker's import keeps ``import_seconds``, and the CPU limit, whole seconds, is reached after the clock's."""
        return replace(self, test_seconds=min(self.test_seconds, self.test_seconds_after_timeout))

    @classmethod
    def from_lab(cls, limits: dict) -> Limits:
        """The lab's limits (names this class does not know, such as run_seconds, are the runner's)."""
        types = {f.name: f.type for f in fields(cls)}
        chosen = {k: (int(v) if types[k] == "int" else float(v)) for k, v in limits.items() if k in types}
        if "cpu_seconds" not in chosen:  # CPU time defaults to the test's wall-clock limit
            chosen["cpu_seconds"] = max(1, int(chosen.get("test_seconds", cls.test_seconds)))
        return cls(**chosen)


RUN_SECONDS = "run_seconds"  # the runner's: one submission's whole run, in a batch as alone
DEFAULT_RUN_SECONDS = 300.0
RANGES: dict[str, Range] = {
    **{f.name: f.metadata["range"] for f in fields(Limits)},
    RUN_SECONDS: Range(**{**SECONDS, "low": MIN_RUN_SECONDS}, whole=False),
}


class LimitError(ValueError):
    """A limit that does not exist or is out of its range: the message is one line and names the limits."""


def known() -> str:
    """The names of the limits, for a message."""
    return f"the limits are {', '.join(RANGES)}"


def check(name: str, value: object) -> int | float:
    """``value`` as limit ``name`` takes it (an int or a float), or LimitError saying what is wrong
    (the caller says which value, and where it was given)."""
    if name not in RANGES:
        raise LimitError(f"there is no limit {name!r}; {known()}")
    rule = RANGES[name]
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if number is None or not rule.admits(number):
        raise LimitError(f"{name} must be {rule.words()}; {known()}")
    return int(number) if rule.whole else float(number)


def checked(limits: dict) -> dict:
    """Every limit of ``limits`` checked and typed (LimitError at the first wrong one)."""
    return {name: check(name, value) for name, value in limits.items()}


def in_force(limits: dict, run_seconds: float | None = None) -> dict:
    """Every limit's value in a run given ``limits``, defaults filled in (``run_seconds``: the runner was told one)."""
    chosen = run_seconds if run_seconds is not None else limits.get(RUN_SECONDS, DEFAULT_RUN_SECONDS)
    values = asdict(Limits.from_lab(limits))
    # What it is in force: a test after a timeout never gets more than any test (Limits.after_a_timeout).
    values["test_seconds_after_timeout"] = min(values["test_seconds"], values["test_seconds_after_timeout"])
    return {**values, RUN_SECONDS: float(chosen)}

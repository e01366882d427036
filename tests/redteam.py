"""The red team's machinery: grade a hostile file behind the wall with small limits, and check that
it earned nothing it did not earn honestly and left nothing behind."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from grader import labs
from grader.grading import grade
from grader.implementation import Implementation
from tests import instructor
from tests.mutation import apply, catalogue, reference_source

# Small limits keep the suite fast; every limit is still exercised. 5 s leaves the honest
# reference's slowest test (a 20,000-node chain, about 1 s) room on a loaded 2-core machine. A busy
# loop stops at the CPU limit, below the wall-clock ones: it spends 2 s of a core, not 5 (a waiting
# one still meets test_seconds); the honest reference's slowest test uses a tenth of it. Which of the
# CPU limit and a clock a busy loop meets first depends on the machine's load (a make test on 2 cores
# once gave one less than 2 s of CPU in 10 s): its entry accepts either limit's words, and
# tests/test_limits.py checks the CPU limit's words at import where nothing else can come first.
SMALL_LIMITS = {
    "test_seconds": 5,
    "call_seconds": 5,
    "cpu_seconds": 2,
    "memory_mb": 512,
    "output_kb": 64,
    "import_seconds": 4,
    "run_seconds": 240,
}
MARKER_PREFIX = "/tmp/labkit-redteam-"  # hostile files try to leave files with this prefix


@dataclass(frozen=True)
class Hostile:
    """One hostile file and what its report must say.

    ``file`` is in the lab's ``instructor/hostile/`` folder, whose ``__init__.py`` lists the lab's
    entries; ``lab`` is set when the catalogue collects them (tests/hostile/catalogue.py).

    ``base``: "reference" appends the file to the lab's honest one-file reference (so the
    honest operations around the attack must still be graded); "starter" to the untouched
    starter (an attack that forges work); "mutant:NAME" to the reference with that catalogued
    bug (an attack that hides it); None grades the file alone.
    """

    file: str
    lab: str = ""  # the lab whose catalogue holds the entry
    base: str | None = "reference"
    outcomes: dict = field(default_factory=dict)  # test id -> outcome it must have
    others: str | None = None  # the outcome every other test must have (None: not checked)
    all_outcomes: str | None = None  # the outcome of every test
    message: str | tuple = ""  # a text every test that lost points must show in its message (a tuple: one of them)
    max_score: float | None = None  # the score may not exceed this
    flags: frozenset = frozenset()  # scan flag codes the report must carry
    fill: tuple = ()  # (KEY, value) pairs: @KEY@ in the file becomes value (one file, several attacks)

    def __post_init__(self):
        object.__setattr__(self, "flags", frozenset(self.flags))

    @property
    def name(self) -> str:
        return f"{self.lab}-{Path(self.file).stem}" + "".join(f"-{value}" for _, value in self.fill)

    def source(self) -> str:
        attack = (instructor.hostile_folder(self.lab) / self.file).read_text(encoding="utf-8")
        for key, value in self.fill:
            attack = attack.replace(f"@{key}@", value)
        if self.base == "starter":
            return labs.get(self.lab).starter.read_text(encoding="utf-8") + "\n\n" + attack
        if self.base and self.base.startswith("mutant:"):  # a realistic bug the attack tries to hide
            mutant = next(m for m in catalogue(self.lab) if m.name == self.base.partition(":")[2])
            return apply(reference_source(self.lab), mutant) + "\n\n" + attack
        return attack if self.base is None else reference_source(self.lab) + "\n\n" + attack


def grade_behind_the_wall(lab_id: str, path: Path) -> dict:
    lab = dataclasses.replace(labs.get(lab_id), limits={**labs.get(lab_id).limits, **SMALL_LIMITS})
    return grade.grade(lab, Implementation.parse(str(path), lab), isolation="worker")


def kit_fingerprint() -> str:
    """A hash of every file of the kit that git knows or would add (hostile code must change none)."""
    root = labs.KIT_ROOT
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    digest = hashlib.sha256()
    for name in sorted(n for n in listed if n):
        path = root / os.fsdecode(name)
        digest.update(name)
        if path.is_file():
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def numpy_fingerprint() -> str:
    """A hash of numpy's Python files: the ones a planted payload would go into."""
    import numpy

    digest = hashlib.sha256()
    for path in sorted(Path(numpy.__file__).parent.rglob("*.py")):
        digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def leftover_processes() -> list[str]:
    """Worker processes whose grading has ended (their scratch folder is gone), and processes
    started by hostile code (they carry the red team's marker): there must be none.

    Workers of gradings still running (other tests, in parallel) keep their scratch folder.
    """
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        scratch = re.search(r"/[^\s\"']*labkit-wall-[A-Za-z0-9_]+", cmdline)
        if (scratch and not Path(scratch.group(0)).exists()) or "labkit-redteam" in cmdline:
            found.append(f"{entry}: {cmdline[:120]}")
    return found


def leftover_files() -> list[str]:
    return [str(p) for p in Path("/tmp").glob(Path(MARKER_PREFIX).name + "*")]

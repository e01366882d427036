"""Grade a lab's generated mutants (grader.kit.mutants) with its visible tests, behind the wall, in parallel.

Each mutant runs only the tests that reach the function it edits (grader.kit.reach), stopping at its first
failure: a test that does not call that function runs the mutant as it runs the reference, which passes.

A mutant is killed when it loses any point, survives when it scores full marks. A survivor the lab
declares equivalent (``labs/<id>/instructor/equivalent_mutants.toml``: an ``[[equivalent]]`` table per
mutant, with its ``id`` and a one-line ``reason``) is not a failure; a declared id that no generated
mutant has any more is an error, so stale declarations do not rot.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from grader import awake
from grader.grading import runner
from grader.implementation import Implementation
from grader.kit import mutants, reach, starters
from grader.labs import Lab

DECLARATIONS = "instructor/equivalent_mutants.toml"


class DeclarationError(ValueError):
    """The lab's equivalent_mutants.toml is malformed or names a mutant that no longer exists."""


@dataclass
class Outcome:
    mutants: list[mutants.GeneratedMutant]
    reference: str
    killed: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)  # full marks and not declared equivalent
    equivalent: list[str] = field(default_factory=list)  # full marks and declared equivalent
    reasons: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def by_operator(self) -> dict[str, dict[str, int]]:
        """For each operator: how many mutants were killed, survived, declared equivalent."""
        operator = {mutant.id: mutant.operator for mutant in self.mutants}
        counts: dict[str, Counter] = {}
        for status, ids in (("killed", self.killed), ("survived", self.survived), ("equivalent", self.equivalent)):
            for mutant_id in ids:
                counts.setdefault(operator[mutant_id], Counter())[status] += 1
        return {name: dict(counts[name]) for name in sorted(counts)}

    def as_dict(self) -> dict:
        by_id = {mutant.id: mutant for mutant in self.mutants}
        return {
            "mutants": len(self.mutants),
            "killed": len(self.killed),
            "survived": len(self.survived),
            "equivalent": len(self.equivalent),
            "seconds": round(self.seconds, 1),
            "by_operator": self.by_operator(),
            "survivors": [{"id": i, "diff": by_id[i].diff(self.reference)} for i in self.survived],
            "equivalents": [{"id": i, "reason": self.reasons[i]} for i in self.equivalent],
        }


def declared_equivalent(lab: Lab) -> dict[str, str]:
    """The lab's declared equivalent mutants: id -> reason (none when it has no file)."""
    path = lab.folder / DECLARATIONS
    if not path.exists():
        return {}
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("equivalent", [])
    except tomllib.TOMLDecodeError as exc:
        raise DeclarationError(f"{path}: {exc}") from None
    declared = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry.get("reason"):
            raise DeclarationError(f"{path}: each [[equivalent]] needs an id and a one-line reason: {entry!r}")
        declared[entry["id"]] = str(entry["reason"])
    return declared


def checked_declarations(lab: Lab, generated: list[mutants.GeneratedMutant]) -> dict[str, str]:
    """The lab's declarations; DeclarationError naming any id that no generated mutant has (a stale one)."""
    declared = declared_equivalent(lab)
    stale = sorted(set(declared) - {mutant.id for mutant in generated})
    if stale:
        raise DeclarationError(
            f"lab {lab.id} declares equivalent mutants that no longer exist (remove them from"
            f" {DECLARATIONS}): {', '.join(stale)}"
        )
    return declared


def generate(lab: Lab) -> tuple[str, list[mutants.GeneratedMutant]]:
    """The reference's one-file form and its mutants."""
    reference = starters.assemble(lab, strip=False)
    return reference, mutants.generate(reference)


def grade(lab: Lab, *, jobs: int = 2) -> Outcome:
    """Grade every mutant of the lab with its visible tests; DeclarationError for a stale or bad declaration."""
    started = time.monotonic()
    reference, generated = generate(lab)
    declared = checked_declarations(lab, generated)
    visible = lab.visible_only()
    reached = reach.measure(visible, reference)
    selected = [reached.tests_for(mutant.qualname) for mutant in generated]  # a test left out passes the mutant
    full_marks: dict[int, bool] = {}
    lock = threading.Lock()
    failures: list[BaseException] = []
    with tempfile.TemporaryDirectory(prefix="labkit-mutants-") as folder:
        impls = []
        for index, mutant in enumerate(generated):
            path = Path(folder) / f"mutant_{index:04d}.py"
            path.write_text(mutant.source, encoding="utf-8")
            impls.append(Implementation("submission", path))
        todo = iter(list(enumerate(impls)))  # one queue for every job: each takes the next as it is free

        def take() -> tuple[int, Implementation] | None:
            with lock:
                return None if failures else next(todo, None)

        def finished(index: int, run: runner.Run) -> None:
            graded = [r for r in run.results if not reach.left_out(r, selected[index])]
            lost = any(result.points < result.max_points for result in graded)
            with lock:
                full_marks[index] = not lost

        def work() -> None:
            try:
                runner.run_queue(
                    visible,
                    take,
                    isolation="worker",
                    on_result=finished,
                    stop_at_first_failure=True,  # one lost point kills a mutant: the rest is not needed
                    only=selected.__getitem__,
                )
            except BaseException as exc:  # noqa: BLE001 - handed to the calling thread, which re-raises it
                failures.append(exc)

        threads = [threading.Thread(target=work, name=f"labkit-mutants-{i}", daemon=True) for i in range(jobs)]
        for thread in threads:
            thread.start()
        try:
            awake.join(threads)  # not thread.join(): a Ctrl-C must reach the main thread
        except BaseException as exc:
            with lock:
                failures.append(exc)  # the jobs take no other mutant
            runner.stop_all()  # and the sessions running now end, with their sandboxes
            raise
    if failures:
        raise failures[0]
    outcome = Outcome(generated, reference, reasons=declared)
    for index, mutant in enumerate(generated):
        if not full_marks[index]:
            outcome.killed.append(mutant.id)
        elif mutant.id in declared:
            outcome.equivalent.append(mutant.id)
        else:
            outcome.survived.append(mutant.id)
    outcome.seconds = time.monotonic() - started
    return outcome

"""Every realistic student bug in the catalogue loses points, and exactly the recorded tests catch it,
in-process and behind the wall alike (the same verdict in both modes).

Mutants are graded in chunks, one pytest session per chunk (grader.runner.run_many). Each
chunk is a test class, and `make test` distributes whole classes to its xdist workers
(--dist loadscope), so each chunk is graded once, by one worker.

Every mutant is graded in both modes.
"""

import dataclasses
import functools

import pytest

from grader import labs, runner
from grader.seam import Implementation
from tests.mutation import apply, catalogue, reference_source

CHUNKS = 6  # per lab and isolation mode: short chunks pack well onto the xdist workers
MODES = ("in-process", "worker")
# A bug that makes a test loop forever costs its time limit: 5 s, not the lab's 10, still
# five times what the reference's slowest test needs.
MUTANT_LIMITS = {"test_seconds": 5, "call_seconds": 5, "cpu_seconds": 5}


def _members(lab_id: str, isolation: str, index: int) -> list:
    return [m for i, m in enumerate(catalogue(lab_id)) if i % CHUNKS == index]


@functools.cache
def _graded(lab_id: str, isolation: str, index: int, folder) -> dict:
    members = _members(lab_id, isolation, index)
    folder.mkdir(parents=True, exist_ok=True)
    impls = []
    for mutant in members:
        path = folder / f"{mutant.name}.py"
        path.write_text(apply(reference_source(lab_id), mutant), encoding="utf-8")
        impls.append(Implementation("submission", path))
    lab = labs.get(lab_id)
    lab = dataclasses.replace(lab, limits={**lab.limits, **MUTANT_LIMITS})
    runs = runner.run_many(lab, impls, isolation=isolation, timeout=180)
    return {m.name: run for m, run in zip(members, runs, strict=True)}


class _Chunk:
    """One chunk of one lab's catalogue in one isolation mode (subclasses below set which)."""

    lab_id: str
    isolation: str
    index: int

    def test_mutant_is_caught_by_the_recorded_tests(self, mutant, tmp_path_factory):
        folder = tmp_path_factory.getbasetemp() / f"{self.lab_id}-{self.isolation}-{self.index}"
        run = _graded(self.lab_id, self.isolation, self.index, folder)[mutant.name]
        failing = {r.id for r in run.results if r.outcome != "passed"}
        assert failing, f"{mutant.name} ({mutant.bug}) loses no points: the lab's tests miss this bug"
        recorded = sorted(mutant.caught_by)
        assert failing == mutant.caught_by, (
            f"{mutant.name} ({self.isolation}): caught by {sorted(failing)}, catalogue records {recorded}"
        )


def pytest_generate_tests(metafunc):
    cls = metafunc.cls
    if cls is not None and issubclass(cls, _Chunk) and "mutant" in metafunc.fixturenames:
        members = _members(cls.lab_id, cls.isolation, cls.index)
        metafunc.parametrize("mutant", members, ids=[m.name for m in members])


for _lab_id in labs.discover():
    for _isolation in MODES:
        for _index in range(CHUNKS):
            _name = f"TestMutants_{_lab_id}_{_isolation.replace('-', '_')}_{_index}"
            globals()[_name] = type(_name, (_Chunk,), {"lab_id": _lab_id, "isolation": _isolation, "index": _index})


@pytest.mark.parametrize("lab_id", list(labs.discover()))
def test_catalogue_names_are_unique_and_tests_exist(lab_id):
    names = [m.name for m in catalogue(lab_id)]
    assert len(names) == len(set(names))
    known = {t["id"] for t in runner.collect(labs.get(lab_id))}
    for mutant in catalogue(lab_id):
        assert mutant.caught_by <= known, f"{mutant.name} records unknown tests {sorted(mutant.caught_by - known)}"

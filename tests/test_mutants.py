"""Every realistic student bug in the catalogue loses points, and exactly the recorded tests catch it."""

import pytest

from grader import labs, runner
from grader.seam import Implementation
from tests.mutation import apply, catalogue, reference_source

CASES = [(lab_id, m) for lab_id in labs.discover() for m in catalogue(lab_id)]


@pytest.mark.parametrize(("lab_id", "mutant"), CASES, ids=[f"{lab}-{m.name}" for lab, m in CASES])
def test_mutant_is_caught_by_the_recorded_tests(lab_id, mutant, tmp_path):
    path = tmp_path / f"{mutant.name}.py"
    path.write_text(apply(reference_source(lab_id), mutant), encoding="utf-8")
    results = runner.run_tests(labs.get(lab_id), Implementation("submission", path), timeout=180)
    failing = {r.id for r in results if r.outcome != "passed"}
    assert failing, f"{mutant.name} ({mutant.bug}) loses no points: the lab's tests miss this bug"
    assert failing == mutant.caught_by, (
        f"{mutant.name}: caught by {sorted(failing)}, catalogue records {sorted(mutant.caught_by)}"
    )


@pytest.mark.parametrize("lab_id", list(labs.discover()))
def test_catalogue_names_are_unique_and_tests_exist(lab_id):
    names = [m.name for m in catalogue(lab_id)]
    assert len(names) == len(set(names))
    known = {t["id"] for t in runner.collect(labs.get(lab_id))}
    for mutant in catalogue(lab_id):
        assert mutant.caught_by <= known, f"{mutant.name} records unknown tests {sorted(mutant.caught_by - known)}"

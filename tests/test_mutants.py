"""Every realistic student bug in the catalogue loses points, and exactly the recorded tests catch it:
in-process, as `make lab` grades a student at home and `grader mutants` grades the hidden catalogues;
and behind the wall, as a batch job and a fork's CI grade it, for a fifth of the catalogue (a fifth
of each chunk below, and each mutant that once gave different verdicts in the two modes): for those,
test by test the same outcome in both modes. The whole catalogue in both modes was a fifth of `make
test`'s time, which must stay under 10 minutes on 2 cores (and `make test` is bound by its CPU: both
cores busy from start to end); in-process is the cheaper mode (no round trips), and the modes'
agreement is the wall's property, which that fifth, the wall's own tests, the student bugs
(tests/test_student_bugs.py, graded behind the wall) and the red team check. A third was compared until
the suite came near its limit: behind the wall, a third took half the file's time (ch06's chunk: 9.7 s
in-process for 23 mutants, 11.0 s behind the wall for 8).

In-process a mutant runs only the tests that reach its edit (grader.kit.reach: the tests that call the
function it edits, in the reference); every other test runs it as it runs the reference, which passes.
That took 40% off the in-process grading (ch06's first chunk, 14 mutants: 10.0 s to 5.8 s; most of what is
left is the failing tests' own work). The fifth graded behind the wall runs every test, so the comparison
of the two modes checks that argument too.

The catalogue records what the visible tests (test_lab.py, which students have) catch, and what a
student reads first: mutants are graded without the lab's hidden tests, whose strength
tests/test_hidden.py proves apart.

Every discovered lab must have a catalogue (labs/<id>/instructor/mutants.py): a lab without one
fails test_catalogue_names_are_unique_and_tests_exist, whose message names the file to write.

Mutants are graded in chunks, one pytest session per chunk and mode (grader.grading.runner.run_many).
Each chunk is a test class, and `make test` distributes whole classes to its xdist workers
(--dist loadscope), so each chunk is graded once, by one worker.
"""

import dataclasses
import functools
import re

import pytest

from grader import labs
from grader.grading import runner
from grader.implementation import Implementation
from grader.kit import reach as kit_reach
from grader.testing import bugs
from tests.instructor import MissingMaterial
from tests.mutation import apply, catalogue, reach, reference_source, shared_folder

# Per lab: short enough to pack onto the xdist workers; each costs a session in each mode (the file took 186
# core-seconds with 8 chunks, 168 with 5).
CHUNKS = 5
MODES = ("in-process", "worker")
COMPARED_EVERY = 5  # a fifth of the catalogue is graded behind the wall too
# The lab's own limits (10 s): with less, a slow bug (a graph that grows every step) could time
# out in one mode and raise in the other on a loaded machine, and the verdicts must agree.
MUTANT_LIMITS = {"test_seconds": 10, "call_seconds": 10, "cpu_seconds": 10}


def _catalogue(lab_id: str) -> list:
    try:
        return catalogue(lab_id)
    except MissingMaterial:  # test_catalogue_names_are_unique_and_tests_exist fails, saying what to write
        return []


def _members(lab_id: str, index: int) -> list:
    return [m for i, m in enumerate(_catalogue(lab_id)) if i % CHUNKS == index]


def _compared(lab_id: str) -> set[str]:
    """The mutants graded in both modes."""
    mutants = _catalogue(lab_id)
    # Chunk c holds mutants c, c + CHUNKS, c + 2 * CHUNKS, ...: a fifth of each chunk, its 1st, 6th, 11th, ...
    return {m.name for i, m in enumerate(mutants) if (i // CHUNKS) % COMPARED_EVERY == 0 or m.diverged_once}


@functools.cache
def _graded(lab_id: str, index: int, folder, shared) -> dict:
    """Each mutant of the chunk graded in-process with the tests that reach its edit (grader.kit.reach), and
    the compared ones behind the wall too, with every test: {mode: {mutant name: run}}."""
    members = _members(lab_id, index)
    folder.mkdir(parents=True, exist_ok=True)
    impls = {}
    for number, mutant in enumerate(members):
        # Named as a student's file is, not after the bug: a message that quotes the file's name
        # (starter.py:42 in backward) must not name the bug by it.
        path = folder / f"{number:03d}" / "starter.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(apply(reference_source(lab_id), mutant), encoding="utf-8")
        impls[mutant.name] = Implementation("submission", path)
    lab = labs.get(lab_id).visible_only()
    lab = dataclasses.replace(lab, limits={**lab.limits, **MUTANT_LIMITS})
    compared = _compared(lab_id)
    graded = {}
    reached = reach(lab_id, shared)
    selected = {m.name: reached.tests_for(m.within) for m in members}
    for isolation in MODES:
        names = [name for name in impls if isolation == "in-process" or name in compared]
        only = [selected[name] for name in names] if isolation == "in-process" else None
        runs = (
            runner.run_many(lab, [impls[n] for n in names], isolation=isolation, timeout=180, only=only)
            if names
            else []
        )
        graded[isolation] = {name: _verdicts(run, selected[name]) for name, run in zip(names, runs, strict=True)}
    return graded


def _verdicts(run: runner.Run, selected: frozenset[str] | None) -> list[tuple[str, str, str, str]]:
    """(test id, outcome, message, hint) for each test, in order. A test the run left out because it does not
    reach the mutant's edit (grader.kit.reach) runs the mutant as it runs the reference, which passes it."""
    verdicts = []
    for r in run.results:
        left_out = kit_reach.left_out(r, selected)
        verdicts.append((r.id, "passed" if left_out else r.outcome, "" if left_out else r.message, r.hint))
    return verdicts


class _Chunk:
    """One chunk of one lab's catalogue, graded in both modes (subclasses below set which)."""

    lab_id: str
    index: int

    def _runs(self, mutant, tmp_path_factory) -> dict:
        """{mode: verdicts}, for each mode the mutant was graded in (``_verdicts``)."""
        folder = tmp_path_factory.getbasetemp() / f"{self.lab_id}-mutants-{self.index}"
        graded = _graded(self.lab_id, self.index, folder, shared_folder(tmp_path_factory))
        return {isolation: graded[isolation][mutant.name] for isolation in MODES if mutant.name in graded[isolation]}

    def test_mutant_is_caught_by_the_recorded_tests(self, mutant, tmp_path_factory):
        for isolation, run in self._runs(mutant, tmp_path_factory).items():
            failing = {test for test, outcome, _, _ in run if outcome != "passed"}
            assert failing, f"{mutant.name} ({mutant.bug}) loses no points: the lab's tests miss this bug"
            recorded = sorted(mutant.caught_by)
            assert failing == mutant.caught_by, (
                f"{mutant.name} ({isolation}): caught by {sorted(failing)}, catalogue records {recorded}"
            )

    def test_mutant_gets_the_same_verdict_in_both_modes(self, compared_mutant, tmp_path_factory):
        """Test by test the same outcome (failed, error, timeout, crashed), not just the same score."""
        mutant = compared_mutant
        runs = self._runs(mutant, tmp_path_factory)
        assert set(runs) == set(MODES), f"{mutant.name} was graded in {sorted(runs)} only"
        in_process, worker = ({test: outcome for test, outcome, _, _ in runs[m]} for m in MODES)
        differ = {t: (in_process[t], worker.get(t)) for t in in_process if in_process[t] != worker.get(t)}
        assert not differ, (
            f"{mutant.name}: in-process, with the tests that reach its edit (grader.kit.reach), and behind the wall,"
            f" with every test, disagree on {differ}"
        )

    def test_first_failure_names_the_bug(self, mutant, tmp_path_factory):
        """What a student reads first (the first failing test's message and hint) names the bug the
        mutant models, in the vocabulary of grader.testing.bugs; where the catalogue records that it
        cannot, it names no other bug either."""
        bug = bugs.BUGS[mutant.kind]
        for isolation, run in self._runs(mutant, tmp_path_factory).items():
            test, _, message, hint = next(v for v in run if v[1] != "passed")
            said = f"{message}\nhint: {hint}"
            names = bugs.named_in(said)
            where = f"{mutant.name} ({isolation}), whose bug is {bug.label!r}: {test} says\n{said}\n"
            if mutant.named:
                assert mutant.kind in names, where + f"which names {sorted(names) or 'no bug'}"
                assert len(names) <= 2, where + f"which names {sorted(names)}: a hint names the bug, not a list"
            else:
                assert mutant.kind not in names, where + "which names it: record named=True"
                assert not names, where + f"which names another bug: {sorted(names)}"


def pytest_generate_tests(metafunc):
    cls = metafunc.cls
    if cls is None or not issubclass(cls, _Chunk):
        return
    members = _members(cls.lab_id, cls.index)
    if "mutant" in metafunc.fixturenames:
        metafunc.parametrize("mutant", members, ids=[m.name for m in members])
    if "compared_mutant" in metafunc.fixturenames:
        compared = [m for m in members if m.name in _compared(cls.lab_id)]
        metafunc.parametrize("compared_mutant", compared, ids=[m.name for m in compared])


for _lab_id in labs.discover():
    for _index in range(CHUNKS):
        _name = f"TestMutants_{_lab_id}_{_index}"
        globals()[_name] = type(_name, (_Chunk,), {"lab_id": _lab_id, "index": _index})


@pytest.mark.parametrize("lab_id", list(labs.discover()))
def test_catalogue_names_are_unique_and_tests_exist(lab_id):
    try:
        mutants, missing = catalogue(lab_id), None
    except MissingMaterial as exc:
        mutants, missing = [], str(exc)
    if missing:
        pytest.fail(missing, pytrace=False)
    names = [m.name for m in mutants]
    assert len(names) == len(set(names))
    unlabelled = [m.name for m in mutants if m.kind not in bugs.BUGS]
    assert not unlabelled, f"label these with the kind of bug they model (grader.testing.bugs.BUGS): {unlabelled}"
    known = {t["id"] for t in runner.collect(labs.get(lab_id).visible_only())}
    for mutant in mutants:
        assert mutant.caught_by <= known, f"{mutant.name} records unknown tests {sorted(mutant.caught_by - known)}"


# The README quotes, per lab, how many of the catalogue's bugs the first failure names.
SHARE_LINE = re.compile(r"^\| `(?P<lab>[\w-]+)` \| (?P<named>\d+) of (?P<total>\d+) \| (?P<percent>\d+)% \|$", re.M)
SHARE_FLOOR = 0.9


@pytest.mark.parametrize("lab_id", list(labs.discover()))
def test_readme_quotes_the_share_of_named_bugs(lab_id):
    """The share is the catalogue's record, which test_first_failure_names_the_bug keeps true."""
    mutants = catalogue(lab_id)
    named = sum(m.named for m in mutants)
    quoted = {m["lab"]: m.groupdict() for m in SHARE_LINE.finditer((labs.KIT_ROOT / "README.md").read_text())}
    expected = {
        "lab": lab_id,
        "named": str(named),
        "total": str(len(mutants)),
        "percent": str(100 * named // len(mutants)),
    }
    assert quoted.get(lab_id) == expected, f"README's table of named bugs should read | `{lab_id}` | {named} of ..."
    assert named >= SHARE_FLOOR * len(mutants), f"{lab_id}: the first failure names {named} of {len(mutants)} bugs"

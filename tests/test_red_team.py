"""The red team: hostile and broken submissions behind the wall (see tests/hostile/catalogue.py, which
collects every discovered lab's entries from its labs/<id>/instructor/hostile/).

The entries of a lab are graded in chunks, one pytest session per chunk (as an instructor's
batch would grade them; each chunk is a test class, which `make test` gives to one xdist
worker), followed in the same session by an honest submission: every entry
is graded right after another hostile one, and the honest one right after the last, so a
hostile file that left anything behind would show in the next one's report. The kit's files,
leftover processes and files are checked once the chunk is done.
"""

import dataclasses
import functools
from pathlib import Path

from grader import labs
from grader.implementation import Implementation
from tests import grading
from tests.hostile.catalogue import HOSTILE
from tests.mutation import reference_source
from tests.redteam import SMALL_LIMITS, kit_fingerprint, leftover_files, leftover_processes, numpy_fingerprint

CHUNKS = 4  # per lab: more chunks overlap their waits for time limits


def _lab(lab_id: str):
    # The entries count the visible tests: each attack sits in an operation that one test of test_lab.py
    # performs, and the hidden tests (which perform it again) would only add copies of the same verdict.
    lab = labs.get(lab_id).visible_only()
    return dataclasses.replace(lab, limits={**lab.limits, **SMALL_LIMITS})


def _chunk(hostile) -> str:
    same_lab = [h for h in HOSTILE if h.lab == hostile.lab]
    return f"{hostile.lab}:{same_lab.index(hostile) % CHUNKS}"


def outcomes(report):
    return {t["id"]: t["outcome"] for t in report["tests"]}


@functools.cache
def _graded(chunk: str, folder) -> dict:
    lab_id = chunk.split(":")[0]
    members = [h for h in HOSTILE if _chunk(h) == chunk]
    folder.mkdir(parents=True, exist_ok=True)
    impls = []
    for hostile in members:
        path = folder / f"{hostile.name}.py"
        path.write_text(hostile.source())
        impls.append(Implementation("submission", path))
    honest = folder / "honest.py"
    honest.write_text(reference_source(lab_id))
    before, numpy_before = kit_fingerprint(), numpy_fingerprint()
    reports = grading.grade_many(_lab(lab_id), [*impls, Implementation("submission", honest)])
    return {
        "reports": {h.name: r for h, r in zip(members, reports, strict=False)},
        "honest": outcomes(reports[-1]),
        "kit_changed": kit_fingerprint() != before,
        "numpy_changed": numpy_fingerprint() != numpy_before,
        "processes": leftover_processes(),
        "files": leftover_files(),
    }


class _Chunk:
    """The hostile entries of one chunk (subclasses below set which)."""

    chunk: str

    def test_hostile_submission_earns_nothing_and_leaves_nothing(self, hostile, tmp_path_factory):
        _check(hostile, tmp_path_factory)


def pytest_generate_tests(metafunc):
    cls = metafunc.cls
    if cls is not None and issubclass(cls, _Chunk) and "hostile" in metafunc.fixturenames:
        members = [h for h in HOSTILE if _chunk(h) == cls.chunk]
        metafunc.parametrize("hostile", members, ids=[h.name for h in members])


for _name in sorted({_chunk(h) for h in HOSTILE}):
    _cls = "TestRedTeam_" + _name.replace(":", "_")
    globals()[_cls] = type(_cls, (_Chunk,), {"chunk": _name})


def _check(hostile, tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    chunk = _graded(_chunk(hostile), base / f"redteam-{_chunk(hostile).replace(':', '-')}")
    report = chunk["reports"][hostile.name]
    got = outcomes(report)
    lost = {t["id"]: t["message"] for t in report["tests"] if t["outcome"] != "passed"}
    for test_id, outcome in hostile.outcomes.items():
        assert got[test_id] == outcome, (test_id, got[test_id], lost.get(test_id))
    for test_id, outcome in got.items():
        if hostile.all_outcomes:
            assert outcome == hostile.all_outcomes, (test_id, outcome, lost.get(test_id))
        elif hostile.others and test_id not in hostile.outcomes:
            assert outcome == hostile.others, (test_id, outcome, lost.get(test_id))
    if hostile.message:
        texts = hostile.message if isinstance(hostile.message, tuple) else (hostile.message,)
        assert all(any(text in m for text in texts) for m in lost.values()), lost
    if hostile.max_score is not None:
        assert report["score"] <= hostile.max_score, report["score"]
    assert hostile.flags <= {f["code"] for f in report["flags"]}, report["flags"]
    assert report["isolation"]["mode"] == "worker" and report["isolation"]["protections"]
    assert report["isolation"]["level"] == "bubblewrap", "graded below the kernel sandbox"
    assert not chunk["kit_changed"], "a hostile submission of this chunk changed the kit's files"
    assert not chunk["numpy_changed"], "a hostile submission of this chunk changed numpy's files"
    assert not chunk["processes"], chunk["processes"]
    assert not chunk["files"], chunk["files"]
    # Alone, the reference passes every test behind the wall (tests/test_cli.py grades it so, and exits 0).
    affected = {t: outcome for t, outcome in chunk["honest"].items() if outcome != "passed"}
    assert not affected, f"an honest submission graded after the chunk's hostile ones was affected: {affected}"


def test_a_submission_that_changes_what_it_is_given_cannot_change_the_next_students_grade(tmp_path):
    """One pytest session grades up to 100 students in turn (a batch job's session), hidden tests included.
    The first changes every array and list it is handed, which the wall copies back into the tests'
    own: the next student's report is its report alone."""
    lab = labs.get("ch06")
    poisoner, honest = tmp_path / "poisoner.py", tmp_path / "honest.py"
    attack = (Path(__file__).parent / "attacks" / "poison_the_tests_data.py").read_text(encoding="utf-8")
    poisoner.write_text(reference_source("ch06") + "\n" + attack, encoding="utf-8")
    honest.write_text(reference_source("ch06"), encoding="utf-8")
    alone = grading.grade_many(lab, [Implementation("submission", honest)])[0]
    assert alone["score"] == alone["max_score"]
    after = grading.grade_many(lab, [Implementation("submission", poisoner), Implementation("submission", honest)])
    assert after[0]["score"] < after[0]["max_score"]  # its attack ran: it broke its own tests
    assert outcomes(after[1]) == outcomes(alone), {
        t["id"]: t["message"] for t in after[1]["tests"] if t["outcome"] != "passed"
    }

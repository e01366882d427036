"""Each lab's tests are strong: the reference gets full marks, the pristine starter fails every test
with a message saying what to implement, and independently written correct submissions (each lab's
labs/<id>/instructor/submissions/correct_*.py) get full marks."""

import pytest

from grader import labs
from tests import instructor
from tests.grading import failing, grade
from tests.mutation import reference_source

LAB_IDS = list(labs.discover())
CORRECT = [(lab_id, path) for lab_id in LAB_IDS for path in instructor.submissions(lab_id)]


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_reference_gets_full_marks(lab_id):
    document = grade(lab_id, "ref")
    assert not failing(document), {k: v["message"] for k, v in failing(document).items()}
    assert document["score"] == document["max_score"] > 0


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_pristine_starter_fails_every_test_saying_what_to_implement(lab_id):
    document = grade(lab_id, "mine")
    assert document["score"] == 0
    task_titles = {t.id: t.title for t in labs.get(lab_id).tasks}
    for test in document["tests"]:
        assert test["outcome"] == "failed", test
        assert test["message"].startswith("not implemented yet: Task"), test
        assert "implement " in test["message"] and "README.md" in test["message"], test
        assert any(title in test["message"] for title in task_titles.values()), test


@pytest.mark.parametrize("isolation", ["in-process", "worker"])
@pytest.mark.parametrize(("lab_id", "path"), CORRECT, ids=[f"{lab_id}-{p.stem}" for lab_id, p in CORRECT])
def test_independent_correct_submission_gets_full_marks(lab_id, path, isolation):
    """In both modes: every test passed, so the same outcome test by test."""
    document = grade(lab_id, path, isolation)
    assert not failing(document), {k: v["message"] for k, v in failing(document).items()}


@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_every_task_has_tests_and_every_test_has_points(lab_id):
    document = grade(lab_id, "ref")
    for task in document["tasks"]:
        assert task["tests"] > 0 and task["max_score"] > 0, task
    assert all(t["max_points"] > 0 for t in document["tests"])


def test_the_provided_lift_works_with_the_chapters_init_signature(tmp_path):
    """The chapter's Tensor.__init__ has no requires_grad: a student who pastes its signature over
    the starter's must not break the provided _lift, which marks constants after construction."""
    source = reference_source("ch06")
    ours = 'def __init__(self, data, _parents=(), _op="", requires_grad=True):'
    assert ours in source
    chapters = 'def __init__(self, data, _parents=(), _op=""):\n        requires_grad = True'
    path = tmp_path / "chapter_signature.py"
    path.write_text(source.replace(ours, chapters))
    document = grade("ch06", path)
    assert not failing(document), {k: v["message"] for k, v in failing(document).items()}

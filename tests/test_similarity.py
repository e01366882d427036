"""Similar submissions (grader.batch.similarity): a copy with names changed and code moved is found,
honest independent work is not, and the lab's starter never makes two students alike.

The class is written for the test: one of the independent correct files and a copy of it with
variables renamed and functions reordered; the other independent file; the reference and a bug
put into it; two near-empty submissions (the starter with one different method each). The pair
functions run on the texts alone; one small batch checks what `grader batch` and `grader merge` write.
"""

import json

import pytest
from click.testing import CliRunner

from grader import labs
from grader.batch import similarity
from grader.cli import main
from tests import instructor
from tests.mutation import CH06_RENAMES, apply, catalogue, reference_source, renamed

LAB = "ch06"
TODO = (
    "raise NotImplementedError('Task 1: Value, the scalar engine - implement Value.{} (handout: labs/ch06/README.md)')"
)


def _reordered(text: str) -> str:
    """Two module-level helpers swapped: harmless, as both are defined before any call."""
    a, b, c = (text.index(f"def {name}(") for name in ("_arr", "_sum_to_shape", "_canonical_axes"))
    return text[:a] + text[b:c] + text[a:b] + text[c:]


def _filled(starter: str, method: str, body: str) -> str:
    filled = starter.replace(TODO.format(method), body, 1)
    assert filled != starter, method
    return filled


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    starter = labs.get(LAB).starter.read_text(encoding="utf-8")
    original = instructor.submission_text(LAB, "correct_functional")
    return {
        "orla": original,
        "colm": renamed(_reordered(original), CH06_RENAMES),
        "ada": instructor.submission_text(LAB, "correct_alt_style"),
        "rex": reference_source(LAB),
        "mia": apply(reference_source(LAB), catalogue(LAB)[0]),
        "nina": _filled(
            starter, "__init__", "self.data = float(data)\n        self.grad = 0.0\n        self._prev = _parents"
        ),
        "ned": _filled(starter, "exp", "out = Value(math.exp(self.data), (self,), 'exp')\n        return out"),
    }


def _submissions(texts: dict[str, str]) -> list[similarity.Submission]:
    return [similarity.Submission(student, text) for student, text in texts.items()]


def _found(pairs: list[dict]) -> set[frozenset[str]]:
    return {frozenset(p["students"]) for p in pairs}


def test_the_copy_is_found_and_honest_work_is_not(texts):
    starter = labs.get(LAB).starter.read_text(encoding="utf-8")
    pairs = similarity.pairs(_submissions(texts), starter, similarity.DEFAULT_THRESHOLD)
    assert _found(pairs) == {frozenset({"orla", "colm"}), frozenset({"rex", "mia"})}
    copy = next(p for p in pairs if set(p["students"]) == {"orla", "colm"})
    assert copy["students"] == ["colm", "orla"]  # in order of the ids
    assert min(copy["scores"]) >= 0.9 and copy["token_overlap"] > 1000
    for student, ranges in zip(copy["students"], copy["lines"], strict=True):
        lines = texts[student].count("\n") + 1
        assert ranges and all(1 <= first <= last <= lines for first, last in ranges)
        assert all(a[1] + 1 < b[0] for a, b in zip(ranges, ranges[1:], strict=False))  # sorted, apart
    assert [max(p["scores"]) for p in pairs] == sorted((max(p["scores"]) for p in pairs), reverse=True)
    honest = similarity.pairs(_submissions({k: texts[k] for k in ("orla", "ada")}), starter, 0)
    assert max(honest[0]["scores"]) < 0.5  # written apart, the same engine: well under the threshold


def test_the_starter_alone_makes_no_two_students_alike(texts):
    near_empty = _submissions({k: texts[k] for k in ("nina", "ned")})
    starter = labs.get(LAB).starter.read_text(encoding="utf-8")
    assert _found(similarity.pairs(near_empty, None, similarity.DEFAULT_THRESHOLD)) == {frozenset({"nina", "ned"})}
    assert similarity.pairs(near_empty, starter, 0) == []


def test_a_few_lines_in_common_are_not_a_copy(texts):
    """nina's own code is a few lines, most of them in ada's too: a high share of a tiny file."""
    starter = labs.get(LAB).starter.read_text(encoding="utf-8")
    subs = _submissions({k: texts[k] for k in ("nina", "ada")})
    fingerprints = [similarity.fingerprint(s.text, similarity.boilerplate(starter)) for s in subs]
    overlap, scores, _ = similarity.compare_files(*fingerprints)
    assert max(scores) >= 0.5 and 0 < overlap < similarity.MIN_TOKEN_OVERLAP
    assert similarity.pairs(subs, starter, 0.5) == []


def test_identical_pairs_are_left_to_identical():
    text = reference_source(LAB)
    subs = _submissions({"a": text, "b": text, "c": text.replace("\nclass ", "\n# mine\nclass ")})
    assert len(similarity.pairs(subs, None, 0.8)) == 3
    skip = similarity.identical_pairs([["a", "b"]])
    assert _found(similarity.pairs(subs, None, 0.8, skip=skip)) == {frozenset("ac"), frozenset("bc")}


def test_with_no_pair_to_compare_nothing_is_fingerprinted(monkeypatch):
    """One student, or copies that grader.batch.identical groups already: no text is fingerprinted (a shard of
    one student, a fork's CI, pays nothing for copydetect)."""

    def refuse(texts, starter):
        raise AssertionError(f"fingerprinted {len(texts)} texts")

    monkeypatch.setattr(similarity, "fingerprint_texts", refuse)
    text = reference_source(LAB)
    assert similarity.pairs(_submissions({"a": text}), None, 0.8) == []
    copies = _submissions({"a": text, "b": text})
    assert similarity.pairs(copies, None, 0.8, skip=similarity.identical_pairs([["a", "b"]])) == []


def test_processes_side_by_side_find_what_one_finds(texts, monkeypatch):
    """Enough distinct files for the pairs to be shared out (similarity.PARALLEL_PAIRS, lowered here: a file
    takes copydetect 0.2 s, and the class's 7 files and 8 bugs make 105 pairs): two spawned processes give the
    same pairs, scores and lines as the batch's process alone."""
    reference = reference_source(LAB)
    many = dict(texts)
    many.update({f"bug{i:02d}": apply(reference, mutant) for i, mutant in enumerate(catalogue(LAB)[:8])})
    distinct = len(set(many.values()))
    monkeypatch.setattr(similarity, "PARALLEL_PAIRS", distinct * (distinct - 1) // 2)
    starter = labs.get(LAB).starter.read_text(encoding="utf-8")
    alone = similarity.pairs(_submissions(many), starter, similarity.DEFAULT_THRESHOLD)
    assert len(alone) >= 46, len(alone)  # 45 pairs of the reference, mia and the 8 bugs, and the copy
    shared_out = []
    pool = similarity.ProcessPoolExecutor
    monkeypatch.setattr(
        similarity, "ProcessPoolExecutor", lambda *args, **kwargs: shared_out.append(1) or pool(*args, **kwargs)
    )
    assert similarity.pairs(_submissions(many), starter, similarity.DEFAULT_THRESHOLD, jobs=2) == alone
    assert shared_out, "the texts were not shared out"


def test_a_comparison_gives_what_copydetect_gives(texts):
    """similarity.compare_files picks out the shared fingerprints with numpy, not copydetect's way: for
    every pair of the class, the same overlap, scores and slices as copydetect's own compare_files."""
    import io
    import itertools

    import numpy as np
    from copydetect import CodeFingerprint, compare_files

    def theirs(text, hashes):
        window = similarity.GUARANTEE_TOKENS - similarity.NOISE_TOKENS + 1
        return CodeFingerprint(
            "s.py", similarity.NOISE_TOKENS, window, boilerplate=hashes, language="python", fp=io.StringIO(text)
        )

    many = [*texts.values(), *(apply(reference_source(LAB), mutant) for mutant in catalogue(LAB)[:3])]
    for hashes in (similarity.boilerplate(labs.get(LAB).starter.read_text(encoding="utf-8")), None):
        ours = [similarity.fingerprint(text, hashes) for text in many]
        copydetects = [theirs(text, hashes) for text in many]
        for a, b in itertools.combinations(range(len(many)), 2):
            overlap, scores, slices = similarity.compare_files(ours[a], ours[b])
            expected = compare_files(copydetects[a], copydetects[b])
            assert (overlap, scores) == expected[:2]
            assert all(np.array_equal(mine, copy) for mine, copy in zip(slices, expected[2], strict=True))


def test_line_ranges_join_touching_slices():
    text = "a\nb\nc\nd\ne\n"
    assert similarity.line_ranges(text, [4, 0, 8], [5, 3, 9]) == [[1, 3], [5, 5]]


@pytest.mark.parametrize("bad", ["1.5", "-0.1", "nan", "high", ""])
def test_a_bad_threshold_is_refused_in_one_line(bad, tmp_path):
    with pytest.raises(similarity.ThresholdError):
        similarity.parse_threshold(bad)
    for command in (["batch", str(tmp_path)], ["merge", str(tmp_path)]):
        result = CliRunner().invoke(
            main, [*command, "--lab", LAB, "--out", str(tmp_path / "out"), "--similarity-threshold", bad]
        )
        assert result.exit_code == 2
        assert result.output.strip().count("\n") == 0 and "--similarity-threshold" in result.output
    assert not (tmp_path / "out").exists()


def test_without_copydetect_a_batch_that_would_compare_refuses_before_grading(tmp_path, monkeypatch):
    """copydetect is the instructor's extra: a kit installed as a student's is told how to get it, or to turn
    similarity off, in one line and before anyone is graded."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "copydetect" else real(name, *a))
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "alice.py").write_text(reference_source(LAB))
    refused = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--lab", LAB, "--out", str(tmp_path / "out")])
    assert refused.exit_code == 2 and refused.output.strip().count("\n") == 0, refused.output
    assert "copydetect" in refused.output and "--similarity-threshold off" in refused.output
    assert not (tmp_path / "out").exists()
    off = ["--similarity-threshold", "off", "--jobs", "1"]
    graded = CliRunner().invoke(
        main, ["batch", str(tmp_path / "class"), "--lab", LAB, "--out", str(tmp_path / "out"), *off]
    )
    assert graded.exit_code == 0, graded.output
    assert (tmp_path / "out" / "grades.csv").is_file() and not (tmp_path / "out" / "similarity.json").exists()


def test_threshold_words():
    assert similarity.parse_threshold("off") is None and similarity.parse_threshold("0.75") == 0.75
    assert similarity.parse_threshold("0") == 0 and similarity.parse_threshold("1") == 1


def test_batch_and_merge_write_the_similar_pairs(texts, tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    for student in ("orla", "colm", "ada", "nina", "ned"):
        (root / f"{student}.py").write_text(texts[student], encoding="utf-8")
    (root / "tess.py").write_text(texts["orla"], encoding="utf-8")  # orla's file: identical, not listed here
    (root / "pat.py").write_text(labs.get(LAB).starter.read_text(encoding="utf-8"))  # the starter untouched
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(root), "--lab", LAB, "--out", str(out), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert (out / "files" / "colm.py").read_text(encoding="utf-8") == texts["colm"]
    found = json.loads((out / "similarity.json").read_text())
    assert found["threshold"] == similarity.DEFAULT_THRESHOLD and found["compared"] == 7
    assert [p["students"] for p in found["pairs"]] == [["colm", "orla"], ["colm", "tess"]]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["similar"] == found and summary["identical"]["same_file"] == [["orla", "tess"]]
    markdown = (out / "summary.md").read_text()
    section = markdown.split("## Similar submissions")[1].split("\n## ")[0]
    assert "| colm, orla |" in section and "| colm, tess |" in section and "ada" not in section

    merged = tmp_path / "merged"
    result = CliRunner().invoke(main, ["merge", str(out), "--lab", LAB, "--out", str(merged)])
    assert result.exit_code == 0, result.output
    assert json.loads((merged / "similarity.json").read_text()) == found
    stricter = tmp_path / "stricter"
    result = CliRunner().invoke(
        main, ["merge", str(out), "--lab", LAB, "--out", str(stricter), "--similarity-threshold", "0.999"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads((stricter / "similarity.json").read_text())["pairs"] == []
    off = tmp_path / "off"
    result = CliRunner().invoke(
        main, ["merge", str(out), "--lab", LAB, "--out", str(off), "--similarity-threshold", "off"]
    )
    assert result.exit_code == 0, result.output
    assert not (off / "similarity.json").exists() and "similar" not in json.loads((off / "summary.json").read_text())
    assert "Similar submissions" not in (off / "summary.md").read_text()


def test_a_folder_without_kept_texts_says_who_was_not_compared(texts, tmp_path):
    """A graded student whose kept text is gone: the merge lists them as not compared."""
    root = tmp_path / "class"
    root.mkdir()
    (root / "ada.py").write_text(texts["ada"], encoding="utf-8")
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["batch", str(root), "--lab", LAB, "--out", str(out)]).exit_code == 0
    (out / "files" / "ada.py").unlink()
    merged = tmp_path / "merged"
    assert CliRunner().invoke(main, ["merge", str(out), "--lab", LAB, "--out", str(merged)]).exit_code == 0
    found = json.loads((merged / "similarity.json").read_text())
    assert found["not_compared"] == ["ada"] and found["compared"] == 0
    assert "Not compared" in (merged / "summary.md").read_text()

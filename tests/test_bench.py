"""The benchmark compares like with like: every implementation of a step computes the same losses."""

import dataclasses
import json

import pytest

from bench import batch as bench_batch
from bench import breakdown as bench_breakdown
from bench import engine as bench_engine
from bench import scale as bench_scale
from bench import suite as bench
from bench import targets as bench_targets
from grader import labs
from grader.grading import runner


@pytest.mark.parametrize("problem", [bench_engine.xor_problem, bench_engine.mlp_problem], ids=["xor", "mlp"])
def test_the_engine_and_hand_written_numpy_take_the_same_steps(problem):
    bench_engine.check_same_losses(problem(), bench_engine.step_builders(torch=None))


@pytest.mark.parametrize("problem", [bench_engine.xor_problem, bench_engine.mlp_problem], ids=["xor", "mlp"])
def test_pytorch_takes_the_same_steps_when_installed(problem):
    torch = pytest.importorskip("torch")  # never a dependency: checked where it is installed
    bench_engine.check_same_losses(problem(), bench_engine.step_builders(torch=torch))


def test_a_step_that_differs_is_refused():
    problem = bench_engine.xor_problem()
    off = dataclasses.replace(problem, lr=problem.lr * 1.001)
    builders = {"numpy": bench_engine.numpy_step, "engine": lambda _: bench_engine.engine_step(off)}
    with pytest.raises(AssertionError, match="disagree"):
        bench_engine.check_same_losses(problem, builders)


def test_backward_on_a_chain_is_timed_and_the_scalar_limit_stated():
    rows = bench_engine.bench_backward(1, sizes=(10**3,))
    assert rows["tensor/1e3"]["n"] == 1000 and rows["tensor/1e3"]["backward_s"] > 0
    assert "RecursionError" in str(rows["scalar/1e3"]["backward_s"])


def test_implementations_are_timed_in_turns_and_compared_round_by_round():
    calls = []
    steps = {"engine": lambda: calls.append("engine"), "numpy": lambda: calls.append("numpy")}
    us, engine_over = bench_engine.time_steps_us(steps, repeat=5)
    assert set(us) == {"engine", "numpy"} and all(t > 0 for t in us.values())
    assert set(engine_over) == {"numpy"} and engine_over["numpy"] > 0
    assert calls.count("engine") > 0 and calls.count("numpy") > 0


def test_commands_are_timed_in_rotating_rounds():
    rounds = bench.time_rounds({"a": ["true"], "b": ["true"]}, repeat=3)
    assert len(rounds) == 3 and [list(r) for r in rounds] == [["a", "b"], ["b", "a"], ["a", "b"]]
    assert bench.ratio([{"a": 2.0, "b": 1.0}, {"a": 3.0, "b": 1.0}, {"a": 9.0, "b": 3.0}], "a", "b") == 3.0


def test_a_generated_class_mixes_every_kind_in_every_ten_students(tmp_path):
    kinds = bench_batch.generate_class(tmp_path, 40)
    assert sorted(kinds) == sorted(p.stem for p in tmp_path.glob("*.py"))
    for first in range(0, 40, 10):
        ten = [kinds[f"student{i:04d}"] for i in range(first, first + 10)]
        assert ten.count("correct") >= 3 and ten.count("starter") == 2
    texts = {(tmp_path / f"{name}.py").read_text() for name, kind in kinds.items() if kind == "correct"}
    assert len(texts) >= 3  # the reference and the independently written engines, not one file copied
    assert set(kinds.values()) >= {"correct", "starter", "buggy"}


def test_the_batch_baseline_grades_each_student_with_grader_run(tmp_path):
    bench_batch.generate_class(tmp_path / "class", 2)
    seconds = bench_batch.one_by_one_seconds(tmp_path / "class", ["student0000", "student0001"], tmp_path / "out")
    assert seconds > 0
    reports = sorted(p.name for p in (tmp_path / "out").glob("*.json"))
    assert reports == ["student0000.json", "student0001.json"]  # each was graded, not merely started


def test_the_honest_students_ratio_grades_them_both_ways_in_turns(tmp_path, monkeypatch):
    bench_batch.generate_class(tmp_path, 3)
    files = [tmp_path / f"student{i:04d}.py" for i in range(3)]
    graded = []
    real = runner.run_many

    def run_many(lab, chunk, **kwargs):
        graded.append((kwargs["isolation"], len(chunk), kwargs["session_limit"]))
        return real(lab, chunk, **kwargs)

    monkeypatch.setattr(runner, "run_many", run_many)
    figure = bench_batch.honest_times(labs.get("ch06"), files, rounds=2)
    assert graded == [("worker", 3, 3), ("in-process", 3, 3)] * 2  # one session each way, in turns
    assert figure["students"] == 3 and figure["rounds"] == 2
    assert figure["ratio"] == pytest.approx(figure["behind_the_wall_s"] / figure["in_process_s"], abs=0.01)


def test_the_hidden_tests_cost_is_a_ratio_of_the_same_class_graded_with_and_without_them(tmp_path):
    bench_batch.generate_class(tmp_path / "class", 2)
    figure = bench_batch.hidden_tests_cost(tmp_path / "class", tmp_path, 1, rounds=1)  # the bench's are 2, in turns
    assert figure["students"] == 2 and figure["with_hidden_s"] > 0 and figure["visible_only_s"] > 0
    for name, tiers in (("with_hidden", {"visible", "hidden"}), ("visible_only", {"visible"})):
        reports = sorted((tmp_path / f"hidden-{name}-0" / "reports").glob("*.json"))
        assert len(reports) == 2, name
        for report in reports:
            assert {t["tier"] for t in json.loads(report.read_text())["tests"]} == tiers, name


def test_the_breakdown_counts_each_round_trip_and_charges_the_workers_time_once():
    """Two reference students behind the wall, profiled: every round trip has a kind, and the worker's
    CPU time is the sum of its kinds of work (each moment charged once, a callback's wait as reading);
    and one round trip's cost, through bare pipes and through the wall."""
    results = bench_breakdown.bench_breakdown(1, students=2)
    figures = results["ch06/reference"]
    assert figures["students"] == 2 and figures["in_process_s"] > 0 and figures["behind_the_wall_s"] > 0
    kinds = {k: v for k, v in figures.items() if k.startswith("round_trips_")}
    assert sum(kinds.values()) == figures["round_trips"] < figures["requests"]
    # A child serving the next test says it is fit with that test's first reply: never a round trip of its own.
    assert "round_trips_hello" not in figures
    assert figures["round_trips_callback"] > 0 and figures["round_trips_read"] > 0  # gradcheck calls f back
    parts = sum(figures[f"worker_{k}_s"] for k in ("starting", "running", "reading", "writing", "handling"))
    assert parts == pytest.approx(figures["worker_cpu_s"], abs=2e-3)
    assert figures["worker_running_s"] > figures["worker_handling_s"] > 0 and figures["trusted_cpu_s"] > 0
    # A round trip through the wall does what one through bare pipes does, and both sides' protocol besides.
    floor = results["round_trip"]
    assert 0 < floor["pipes_us"] < floor["wall_us"]


def test_the_similarity_figure_compares_the_generated_class(tmp_path):
    kinds = bench_batch.generate_class(tmp_path, 20)
    figure = bench_batch.similarity_seconds(tmp_path, sorted(kinds))
    # The class is built from copies: the reference's mutants are alike (each one bug apart)
    assert figure["students"] == 20 and figure["pairs"] > 0 and figure["seconds"] > 0
    # ...so it also says what a class of distinct files would cost, from each part's own time
    texts = {(tmp_path / f"{name}.py").read_text() for name in kinds}
    assert figure["distinct_texts"] == len(texts) < 20
    # (a fingerprint may cost nothing here: the kit's tests remember them, tests/pure_memo.py)
    assert figure["per_text_ms"] >= 0 and figure["per_pair_us"] > 0
    n = bench_batch.SIMILARITY_CLASS
    estimate = n * (n - 1) / 2 * figure["per_pair_us"] / 1e6  # from the rounded figure: within 0.2 s
    assert abs(figure[f"{n}_distinct_comparisons_s"] - estimate) <= 0.2


def test_the_report_figure_writes_the_class_report_of_a_graded_folder(tmp_path):
    bench_batch.generate_class(tmp_path / "class", 2)
    out = tmp_path / "out"
    seconds, peaks = bench_batch.batch_seconds(tmp_path / "class", out, 1)
    assert seconds > 0 and set(peaks) == {"pytest_process", "sandbox_process"}
    # read while the batch ran (it lasts several polls): a Python with numpy loaded, tens of MiB
    assert all(20 < peak < 2000 for peak in peaks.values()), peaks
    (out / "report.html").unlink()
    assert bench_batch.report_seconds(out) > 0
    assert '<section id="scores">' in (out / "report.html").read_text(encoding="utf-8")  # written again


def test_a_course_on_one_shard_costs_every_student_in_turn():
    one = bench_scale.course_cost(10_000, 1, 0.5, merge_s=0.0, setup_s=0.0)
    assert one["students_per_shard"] == 10_000 and one["shard_minutes"] == round(0.5 * 10_000 / 60, 1)
    assert one["billed_minutes"] == 84  # 83.3 minutes, rounded up; a merge job of no time bills nothing


def test_every_shard_job_and_the_merge_job_are_billed_whole_minutes():
    # 3 shards of 34, 34 and 32 students (the largest decides): 30 s of set-up and 17 s of grading, 1 minute
    # each; the merge job's 30 s and 40 s, 2 minutes
    cost = bench_scale.course_cost(100, 3, 0.5, merge_s=40.0, setup_s=30.0)
    assert cost["students_per_shard"] == 34 and cost["billed_minutes"] == 3 * 1 + 2
    assert cost["wall_minutes"] == round((30 + 17 + 30 + 40) / 60, 1)


def test_the_merge_estimate_scales_the_measured_costs_and_ignores_negative_noise():
    merge = {"first_shard_partial_s": 2.0, "per_student_s": 0.01, "per_more_folder_s": 0.1}
    assert bench_scale.merge_estimate_s(10_000, 51, merge) == 2.0 + 100.0 + 5.0
    noisy = dict(merge, per_student_s=-0.01, per_more_folder_s=-0.1)
    assert bench_scale.merge_estimate_s(10_000, 51, noisy) == 2.0


def test_the_course_table_has_a_row_per_shard_count_up_to_the_matrix_limit():
    merge = {"first_shard_partial_s": 2.0, "per_student_s": 0.01, "per_more_folder_s": 0.1}
    table = bench_scale.course_table(0.5, merge)
    assert list(table) == [f"course_{n}_shards" for n in (1, 10, 20, 50, 100, 256)]
    minutes = [row["shard_minutes"] for row in table.values()]
    assert minutes == sorted(minutes, reverse=True)  # more shards, shorter shards
    assert table["course_256_shards"]["students_per_shard"] == 40


def test_shards_of_a_class_merge_into_a_gradebook_with_every_student_once(tmp_path):
    kinds = bench_batch.generate_class(tmp_path / "class", 2)
    folders, seconds = bench_scale.grade_shards(tmp_path / "class", tmp_path, 2)
    assert len(folders) == 2 and all(s > 0 for s in seconds)
    assert bench_scale.merge_seconds(folders, tmp_path / "merged") > 0
    assert sorted(bench_scale.gradebook_students(tmp_path / "merged")) == sorted(kinds)
    assert bench_scale.merge_seconds(folders[:1], tmp_path / "partial", "--partial") > 0
    assert bench_scale.gradebook_students(tmp_path / "partial") == ["student0000"]  # the other shard's left out


def test_each_target_is_met_missed_or_not_measured_from_the_runs_figures():
    results = {
        "batch": {"parallel": {"jobs": 2}, "2_jobs": {"seconds": 59.0}, "scaling": {"linearity": 1.3}},
        "engine": {"xor_2_4_1": {"engine_us": 80.0, "torch_us": "not installed", "engine_vs_numpy": 1.9}},
    }
    rows = {row["target"]: row for row in bench_targets.check(results)}
    assert len(rows) == len(bench_targets.TARGETS)
    said = {what: row["met"] for what, row in rows.items()}
    assert said[next(w for w in said if w.startswith("batch: the class of 200"))] is True  # 59 s of 60
    assert said[next(w for w in said if w.startswith("batch: linear"))] is False  # 1.3 over 1.1
    assert said[next(w for w in said if w.startswith("engine: one XOR step"))] is True
    assert said[next(w for w in said if w.startswith("engine: the XOR step over PyTorch"))] is None  # not installed
    assert said[next(w for w in said if w.startswith("backward"))] is None  # the suite did not run
    shown = bench_targets.table(bench_targets.check(results))
    assert "MISSED" in shown and "not measured" in shown and " met" in shown


def test_a_generated_class_keeps_its_kinds_and_hostile_files_when_the_catalogue_grows(tmp_path, monkeypatch):
    """Which student is which kind, and which hostile file a hostile student is, do not depend on the
    catalogue's size: a bench figure must not move because a mutant was added. And the first 160
    students hold every hostile file the bench lists."""
    from tests import mutation

    before = bench_batch.generate_class(tmp_path / "before", 160)
    catalogue = mutation.catalogue
    monkeypatch.setattr(mutation, "catalogue", lambda lab_id: [*catalogue(lab_id), catalogue(lab_id)[0]])
    after = bench_batch.generate_class(tmp_path / "after", 160)
    assert before == after
    for name, kind in before.items():
        if kind != "buggy":
            assert (tmp_path / "before" / f"{name}.py").read_text() == (tmp_path / "after" / f"{name}.py").read_text()
    hostile = {(tmp_path / "before" / f"{n}.py").read_text() for n, kind in before.items() if kind == "hostile"}
    assert len(hostile) == len(bench_batch.BENCH_HOSTILE)
    assert sorted(set(before.values())) == ["buggy", "correct", "hostile", "starter"]


def test_the_linearity_s_class_holds_every_kind_but_no_file_that_hangs(tmp_path):
    """A file that hangs costs its limits at any class size, and a prefix holds it or not by where it falls:
    the linearity's classes leave it out, and keep the other hostile files and every kind in every prefix."""
    from tests.hostile.catalogue import HOSTILE

    listed = [h for h in HOSTILE if h.lab == "ch06" and h.file in bench_batch.BENCH_HOSTILE]
    hanging = {h.source() for h in listed if bench_batch.hangs(h)}
    assert hanging, "the bench's class holds a file that hangs (student 89)"
    steady = bench_batch.generate_class(tmp_path / "steady", 160, hanging=False)
    texts = {(tmp_path / "steady" / f"{n}.py").read_text() for n, kind in steady.items() if kind == "hostile"}
    assert texts and not texts & hanging and len(texts) == len(listed) - len(hanging)
    assert steady == bench_batch.generate_class(tmp_path / "whole", 160)  # the same kinds, student by student


def test_a_lab_without_the_bench_hostile_files_gets_a_class_without_hostile_students(tmp_path):
    kinds = bench_batch.generate_class(tmp_path, 20, "lesson1_3")
    assert sorted(set(kinds.values())) == ["buggy", "correct", "starter"] and list(kinds.values()).count("buggy") == 10

"""A pytest plugin for the kit's tests (`make test` loads it: ``-p tests.longest_first``): the longest test
scopes start first.

`make test` gives whole scopes (a module, or a class where tests are in one) to its xdist workers
(--dist loadscope), in the order they are queued. xdist's own order, by number of tests, queued the
long scopes with few tests last: a module of seven tests that grades a whole class three ways (114 s
on a loaded machine), the real install (five tests, 86 s). In a run on 6 workers the last 2% of the
tests took over two minutes; longest first (the usual rule for packing jobs onto workers), the short
scopes fill the end, and the 4 workers of a sampled run ended within 4 s of each other, both cores
busy from start to end (/proc/stat). The costs are what `--junitxml` measured per scope on the kit's
2-core VM, rounded: a scope that grows past its figure only starts later than it should, and a scope
not listed here queues after the listed ones, in collection order.
"""

# Seconds per scope, from `make test` on 4 workers (2026-12-07). A key is a scope's node id, or the start of
# the node ids of several scopes (the mutant and red-team chunks, one class each).
SCOPE_SECONDS = {
    "tests/test_cli.py": 194,
    "tests/test_bench.py": 137,
    "tests/test_class_gradebook.py": 114,
    "tests/test_batch.py": 104,
    "tests/test_class_report.py": 93,
    "tests/test_similarity.py": 89,
    "tests/test_install.py": 86,
    "tests/test_intake.py": 75,
    "tests/test_integrity.py": 72,
    "tests/test_export.py": 66,
    "tests/test_random_graphs.py": 62,
    "tests/test_student_bugs.py::TestStudentBugs_ch06": 59,
    "tests/test_table.py": 57,
    "tests/test_mutants.py::TestMutants_ch06": 40,
    "tests/test_red_team.py::TestRedTeam_ch06": 36,
    "tests/test_batch_regrade.py": 41,
    "tests/test_collect.py": 39,
    "tests/test_limits.py": 38,
    "tests/test_feedback.py": 37,
    "tests/test_generated_mutants.py::TestCh06": 37,
    "tests/test_sandbox_kernel.py": 29,
    "tests/test_gradescope.py": 29,
    "tests/test_hidden.py": 28,
    "tests/test_mutants.py::TestMutants_lesson1_3": 23,
    "tests/test_student_bugs.py::TestStudentBugs_lesson1_3": 26,
    "tests/test_lab_strength.py": 22,
    "tests/test_feed.py": 21,
    "labs/ch06/instructor/test_figures.py": 20,
    "tests/test_plugin.py": 19,
    "tests/test_wall_sessions.py": 19,
    "tests/test_hints_in_the_table.py": 19,
    "tests/test_generated_mutants.py::TestLesson1_3": 18,
    "tests/test_generated_mutants.py": 18,
    "tests/test_ci.py": 15,
    "tests/test_fork_server.py": 14,
    "tests/test_pytest_process.py": 12,
    "tests/test_workflows.py": 11,
    "tests/test_red_team.py::TestRedTeam_lesson1_3": 5,
}


def scope_of(nodeid: str) -> str:
    """The scope xdist's loadscope gives to one worker (its own rule): the test's class, or its module."""
    return nodeid.rsplit("::", 1)[0]


def seconds(scope: str) -> int:
    """What the scope took when measured (the longest matching key), 0 if it is not listed."""
    matching = [key for key in SCOPE_SECONDS if scope == key or scope.startswith(key + "_")]
    return SCOPE_SECONDS[max(matching, key=len)] if matching else 0


def pytest_configure(config):
    # xdist would order the scopes again, by their number of tests (its --loadscope-reorder, on by default).
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    # A stable sort: each scope's tests keep their order, and the scopes of equal cost theirs.
    items.sort(key=lambda item: -seconds(scope_of(item.nodeid)))

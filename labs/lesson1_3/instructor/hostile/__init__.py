"""Lab lesson1_3's entries in the red team's catalogue: each hostile or broken file of this folder and
the report it must produce (tests/hostile/catalogue.py collects every lab's entries; tests/redteam.py
says what every run must hold beyond them). Each file is appended to the lab's honest one-file
reference unless its entry says otherwise, so an attack confined to one operation costs exactly the
tests that use it.
"""

from tests.redteam import Hostile

HOSTILE = [
    Hostile(
        "op_hang_max_stable_lr.py",
        outcomes={"test_max_stable_lr": "timeout"},
        others="passed",
        message="timeout",
        max_score=96,
    ),
    Hostile(
        "op_segfault_matmul_grads.py",  # a wild write: SIGSEGV or SIGBUS, either way "crashed"
        outcomes={"test_matmul_grads_match_the_numerical_check[5x3x6]": "crashed"},
        others="passed",
        message="crashed: the worker stopped during matmul_grads(...)",
        max_score=97.5,
    ),
    Hostile(
        "exit_in_fit_line.py",
        outcomes={"test_fit_line_without_zeroing_keeps_overshooting": "error"},
        others="passed",
        message="raised SystemExit",
        max_score=94,
    ),
    Hostile(
        "disallowed_import_time.py",
        all_outcomes="error",
        message="labkit: this lab does not allow importing 'time'",
        max_score=0,
        flags={"disallowed-import"},
    ),
    Hostile(
        "always_equal_numerical.py",
        outcomes={
            "test_numerical_derivative_is_central": "failed",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone": "failed",
            "test_numerical_derivative_agrees_with_the_engine": "failed",
        },
        others="passed",
        message="should be a float, got AgreeableFloat",
        max_score=90,
    ),
]

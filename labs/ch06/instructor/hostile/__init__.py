"""Lab ch06's entries in the red team's catalogue: each hostile or broken file of this folder and the
report it must produce (tests/hostile/catalogue.py collects every lab's entries; tests/redteam.py
says what every run must hold beyond them).

Files with ``base="reference"`` (the default) are appended to the lab's honest one-file
reference, so the honest score is 100 and an attack confined to one operation costs exactly
the tests that use it. Most attacks sit in an operation only one test performs:
``Value ** Value`` (test_value_pow_rejects_a_variable_exponent), ``Tensor @ vector``
(test_matmul_rejects_operands_with_fewer_than_two_axes) or ``backward()`` without a seed on a
multi-element tensor (test_backward_without_seed_needs_a_single_element).
"""

from tests.redteam import Hostile

POW_TEST = "test_value_pow_rejects_a_variable_exponent"  # the only test computing Value ** Value
MATMUL_VECTOR_TEST = "test_matmul_rejects_operands_with_fewer_than_two_axes"  # the only Tensor @ vector
NO_SEED_TEST = "test_backward_without_seed_needs_a_single_element"  # the only seedless multi-element backward
GRADCHECK_TESTS = (
    "test_gradcheck_accepts_correct_gradients",
    "test_gradcheck_rejects_a_noop_backward_rule",
    "test_gradcheck_rejects_a_multi_element_output",
    "test_gradcheck_leaves_inputs_untouched",
)

BUSY_IMPORT = ("used more than the CPU limit of 2 s", "did not finish within 4 s")

IMPORT_TIME = [
    # -- 1. Import-time breakage: every test "error", one message naming the cause and the line.
    Hostile("syntax_error.py", base=None, all_outcomes="error", message="SyntaxError at line 2", max_score=0),
    Hostile(
        "import_missing_module.py",
        base=None,
        all_outcomes="error",
        message="raised ModuleNotFoundError at line 5: No module named 'numpy.autodiff_helpers'",
        max_score=0,
    ),
    Hostile(
        "disallowed_import_os.py",
        base=None,
        all_outcomes="error",
        message="raised ImportError at line 4: labkit: this lab does not allow importing 'os'",
        max_score=0,
        flags={"disallowed-import", "environment"},
    ),
    Hostile(
        "disallowed_import_subprocess.py",
        base=None,
        all_outcomes="error",
        message="raised ImportError at line 4: labkit: this lab does not allow importing 'subprocess'",
        max_score=0,
        flags={"disallowed-import"},
    ),
    Hostile(
        "disallowed_import_importlib.py",
        base=None,
        all_outcomes="error",
        message="raised ImportError at line 5: labkit: this lab does not allow importing 'importlib'",
        max_score=0,
        flags={"disallowed-import"},
    ),
    Hostile(
        "input_at_import.py",
        base=None,
        all_outcomes="error",
        message="raised EOFError at line 5",  # stdin is /dev/null: input() never waits
        max_score=0,
        flags={"interactive"},
    ),
    # exit(), sys.exit() and SystemExit at import: the message names the cause but not the line
    # (session._import_failure drops the line it was given for SystemExit).
    Hostile(
        "exit_at_import.py",
        base=None,
        all_outcomes="error",
        message="called exit() while being imported",
        max_score=0,
        flags={"exit"},
    ),
    # The scan misses sys.exit(...) reached through numpy (no "exit" flag; "exit" only flags the
    # bare names exit/quit) and a bare `raise SystemExit` (no flag at all).
    Hostile(
        "sys_exit_at_import.py",
        base=None,
        all_outcomes="error",
        message="called exit() while being imported",
        max_score=0,
    ),
    Hostile(
        "raise_systemexit_at_import.py",
        base=None,
        all_outcomes="error",
        message="called exit() while being imported",
        max_score=0,
    ),
    Hostile(
        "exit_zero_at_import.py",  # os._exit(0) at import: "exited cleanly" must not read as success
        base=None,
        all_outcomes="error",
        message="stopped the worker: crashed",
        max_score=0,
        flags={"process"},
    ),
    # A busy loop at import meets the CPU limit (2 s in the red team) or the import's clock (4 s), whichever
    # comes first on a loaded machine; a wait meets the clock.
    Hostile("hang_at_import.py", base=None, all_outcomes="error", message=BUSY_IMPORT, max_score=0),
    Hostile("hang_at_import_catch_all.py", base=None, all_outcomes="error", message=BUSY_IMPORT, max_score=0),
    Hostile(
        "hang_at_import_sleeping.py", base=None, all_outcomes="error", message="did not finish within 4 s", max_score=0
    ),
    Hostile(
        "exception_at_import.py",
        base=None,
        all_outcomes="error",
        message="raised ValueError at line 5: math domain error",
        max_score=0,
    ),
    Hostile(
        "output_flood_at_import.py",  # the import's own output counts against the limit, and the message says which
        base=None,
        all_outcomes="error",
        message="raised OSError at line 3: [Errno 27] File too large (the output limit is 64 KiB)",  # the red team's
        max_score=0,
    ),
]

IN_ONE_OPERATION = [
    # -- 2. Inside one operation: that test fails with the reason, every other test is graded.
    Hostile("op_exception.py", outcomes={POW_TEST: "error"}, others="passed", message="KeyError", max_score=99),
    Hostile(
        "exit_in_operation.py",  # Value.__mul__ exits: every test multiplying Values loses, the rest pass
        outcomes={"test_value_hand_derived_gradients": "error"},
        message="raised SystemExit",
        max_score=99,
        flags={"exit"},
    ),
    Hostile("op_infinite_loop.py", outcomes={POW_TEST: "timeout"}, others="passed", message="timeout", max_score=99),
    Hostile(
        "op_loop_catches_everything.py",
        outcomes={POW_TEST: "timeout"},
        others="passed",
        message="timeout",
        max_score=99,
    ),
    Hostile("op_sleep_select.py", outcomes={POW_TEST: "timeout"}, others="passed", message="timeout", max_score=99),
    Hostile("op_busy_wait_clock.py", outcomes={POW_TEST: "timeout"}, others="passed", message="timeout", max_score=99),
    Hostile(
        "op_blocking_read.py",  # the fifo it would block on is refused
        outcomes={POW_TEST: "error"},
        others="passed",
        message="fifos and device files are not allowed",
        max_score=99,
        flags={"file-access"},
    ),
    Hostile(
        "op_segfault_as_strided.py",
        outcomes={POW_TEST: "crashed"},
        others="passed",
        message="segmentation fault",
        max_score=99,
    ),
    Hostile(
        "op_segfault_bogus_buffer.py",
        outcomes={MATMUL_VECTOR_TEST: "crashed"},
        others="passed",
        message="segmentation fault",
        max_score=99,
    ),
    Hostile(
        "op_os_exit.py",
        outcomes={POW_TEST: "crashed"},
        others="passed",
        message="exited with status 3",
        max_score=99,
        flags={"process"},
    ),
    Hostile(
        "op_raise_systemexit.py",
        outcomes={NO_SEED_TEST: "error"},
        others="passed",
        message="raised SystemExit",
        max_score=99,
    ),
    Hostile(
        "op_memory_bomb_list.py",
        outcomes={POW_TEST: "error"},
        others="passed",
        message="the memory limit is 512 MiB",
        max_score=99,
    ),
    Hostile(
        "op_memory_bomb_numpy.py",
        outcomes={POW_TEST: "error"},
        others="passed",
        message="the memory limit is 512 MiB",
        max_score=99,
    ),
    Hostile(
        "op_memory_creep.py",
        outcomes={POW_TEST: "error"},
        others="passed",
        message="the memory limit is 512 MiB",
        max_score=99,
    ),
    # Python ignores SIGXFSZ, so the output limit shows as "OSError: [Errno 27] File too large"
    # (the session's "wrote more than the output limit" message never appears).
    Hostile(
        "op_output_flood_print.py",
        outcomes={POW_TEST: "error"},
        others="passed",
        message="File too large",
        max_score=99,
    ),
    Hostile(
        "op_output_flood_streams.py",
        outcomes={MATMUL_VECTOR_TEST: "error"},
        others="passed",
        message="File too large",
        max_score=99,
    ),
    Hostile("chatty_backward.py", all_outcomes="passed"),  # the output limit is per test
    Hostile(
        "trusted_memory_flood.py",  # a forged 10 MB frame on the wire: refused before it is parsed
        outcomes={POW_TEST: "crashed"},
        others="passed",
        message="larger than the protocol allows",
        max_score=99,
        flags={"introspection"},
    ),
]

LEFTOVERS = [
    # -- 3. Leftovers: no effect on the verdict, nothing survives the run.
    Hostile("leftover_threads.py", all_outcomes="passed"),
    Hostile("leftover_processes.py", all_outcomes="passed", flags={"dynamic-code", "process"}),
    # A child may make no new file (the kernel refuses it; the guard says so): its import fails.
    Hostile(
        "files_in_own_folder.py",
        all_outcomes="error",
        message="may not create files or folders",
        max_score=0,
        flags={"file-access"},
    ),
    Hostile("inode_flood.py", all_outcomes="passed"),
    # The scan does not flag os.remove/unlink/rename/truncate (only the open() call is flagged).
    Hostile("delete_own_file.py", all_outcomes="passed", flags={"file-access"}),
    Hostile("write_outside_folder.py", all_outcomes="passed", flags={"file-access", "suspicious-string"}),
]

FORGERIES = [
    # -- 4. Forgery attempts: no point not earned honestly, the kit untouched, the attempt flagged.
    Hostile(
        "patch_numpy.py",  # only the student's own gradcheck is fooled
        outcomes={"test_gradcheck_rejects_a_noop_backward_rule": "failed"},
        others="passed",
        max_score=99,
        flags={"monkeypatch"},
    ),
    # The scan flags __builtins__ but not `_builtins.type = ...` (a module reached through
    # numpy and kept in a variable is not a known module alias): no "monkeypatch" flag.
    Hostile(
        "patch_builtins.py",
        base=None,
        all_outcomes="error",
        message="stopped the worker",
        max_score=0,
        flags={"introspection"},
    ),
    Hostile(
        "always_equal_objects.py",
        base=None,
        all_outcomes="failed",
        max_score=0,
    ),
    Hostile(
        "exit_zero_early.py",
        outcomes=dict.fromkeys(GRADCHECK_TESTS, "crashed"),
        others="passed",
        message="exited with status 0",
        max_score=96,
        flags={"process"},
    ),
    Hostile("fake_summary.py", base=None, all_outcomes="failed", message="not implemented yet", max_score=0),
    Hostile("constructors_raise_value_error.py", base="starter", max_score=0),
    Hostile("hang_between_tests.py", all_outcomes="passed", flags={"introspection"}),
    Hostile("forge_kit_files.py", all_outcomes="passed", flags={"file-access", "suspicious-string"}),
    Hostile(
        "skip_module_unittest.py",
        base=None,
        all_outcomes="error",
        message="does not allow importing 'unittest'",
        max_score=0,
        flags={"dynamic-code"},
    ),
    Hostile(
        "skip_module_pytest.py",
        base=None,
        all_outcomes="error",
        message="does not allow importing 'pytest'",
        max_score=0,
        flags={"disallowed-import"},
    ),
    # The scan flags the paths (suspicious-string) and open(), but not np.loadtxt, np.fromfile,
    # np.load, np.memmap or os.open on them (no "file-access").
    Hostile(
        "import_reference.py",
        base=None,
        all_outcomes="error",
        message="the code under test does not define",
        max_score=0,
        flags={"disallowed-import", "dynamic-code", "file-access", "introspection", "suspicious-string"},
    ),
    Hostile("ci_environment.py", all_outcomes="passed", flags={"environment", "file-access", "suspicious-string"}),
    Hostile("introspection_escapes.py", all_outcomes="passed", flags={"introspection", "process", "file-access"}),
]

# ---------------------------------------------------------------------------------------------
# Weaknesses the red team found and the wall now closes (each hostile file's header explains the
# original mechanism): the allow-list checked by the caller's frame, not its globals; os.mkdir
# and listing checked against the folders, fifos and device files refused; no folder may be
# opened (a folder's descriptor made relative paths escape the check); no threads (the race on
# the hook's old re-entrancy flag); a private /tmp in the mount namespace (the trusted side's
# files out of sight); an unreadable pytest report no longer crashes the grader.
# ---------------------------------------------------------------------------------------------

CLOSED_WEAKNESSES = [
    Hostile(
        "allowlist_bypass_dunder_import.py",
        all_outcomes="error",
        message="does not allow importing 'os'",
        max_score=0,
        flags={"dynamic-code"},
    ),
    Hostile("mkdir_mkfifo_outside.py", others="passed", max_score=100, flags={"file-access"}),
    Hostile("dirfd_write_outside.py", others="passed", max_score=100, flags={"file-access"}),
    Hostile("audit_race_write_outside.py", max_score=100),
    Hostile("audit_race_steal_reference.py", base=None, max_score=0, flags={"introspection"}),
    Hostile("forge_progress_stream.py", base=None, max_score=0),
    Hostile("crash_grader_pytest_json.py", base=None, max_score=0),
]

FORGED_LOOPS = [
    # The XOR loop replaced in the worker by an honest numpy run: its record is consistent, but the
    # replay through the untouched starter's Tensor fails. Nothing earned (the starter earns 0).
    Hostile(
        "forge_xor_record.py",
        base="starter",
        max_score=0,
        outcomes={
            "test_xor_training_reproduces_the_chapter": "failed",
            "test_xor_without_zeroing_overshoots": "failed",
        },
        flags={"introspection"},
    ),
    # The three gradient-checking loops replaced in the worker (a security review's: the starter scored 3/120).
    Hostile(
        "forge_gradcheck_loops.py",
        base="starter",
        max_score=0,
        outcomes={
            "test_gradcheck_rejects_a_noop_backward_rule": "failed",
            "test_gradcheck_leaves_inputs_untouched": "failed",
            "test_numerical_grad_agrees_with_your_engine": "failed",
        },
        flags={"introspection"},
    ),
    # The same, with a forward-only Tensor whose backward() looks up the loop's hand-computed gradients:
    # the replays of the record's steps all find theirs; the step at a point the test draws finds none.
    Hostile(
        "forge_xor_memo.py",
        base="starter",
        max_score=0,
        outcomes={
            "test_xor_training_reproduces_the_chapter": "failed",
            "test_xor_without_zeroing_overshoots": "failed",
        },
        flags={"introspection"},  # it reaches the loops through getattr() with names made at run time
    ),
    # The chain's loop replaced by a star of nodes one step from x: the nodes drawn after the answer
    # are not linked, so the deep-graph test fails as it does for the honest recursive engine.
    Hostile(
        "forge_deep_chain.py",
        base="mutant:tensor_backward_recursive_sort",
        outcomes={"test_deep_graph_does_not_recurse": "failed"},
        others="passed",
        flags={"introspection"},
    ),
]

LYING_SHAPE = [
    # The shape a test allocates by is checked first: those tests fail, the grader does not.
    Hostile("lying_shape.py", max_score=90, message=""),
]

# -- Replies that break the protocol: bounded before they are decoded, that one test crashed.
MALFORMED_REPLIES = [
    Hostile(
        "reply_malformed.py",
        fill=(("KIND", kind),),
        outcomes={POW_TEST: "crashed"},
        others="passed",
        message="the worker broke the protocol",
        flags={"introspection"},
    )
    for kind in (
        "deep_json",
        "many_dimensions",
        "huge_integer",
        "huge_numpy_integer",
        "shared_buffer",
        "dtype_not_a_string",
        "shape_numpy_cannot_hold",
        "error_not_an_object",
        # A review's worker sent 14 such frames of 200 MiB: each was decoded, refused as an unknown callback,
        # and kept with its traceback until the trusted process reached its 4 GiB (42 tests MemoryError).
        "unknown_callback",
        # A review's three (2026-12-07): the first two raised Python's TypeError on the trusted side, which the
        # test took for the one ** Value must raise (the test passed); the third cost 900 MB and 9.5 s of CPU.
        "callback_id_not_a_number",
        "buffer_lengths_not_a_list",
        "many_empty_buffers",
    )
]

# A reply that says the call changed an argument the call was not given (position "²"): checked as any
# other claim, that one test crashed (it expects the ValueError int("²") once raised on the trusted side).
FORGED_CHANGES = [
    Hostile(
        "reply_malformed.py",
        fill=(("KIND", "forged_changes"),),
        outcomes={  # the noop rule's test hands gradcheck a (2, 2) array too, from its loop beside the code
            "test_gradcheck_rejects_a_multi_element_output": "crashed",
            "test_gradcheck_rejects_a_noop_backward_rule": "crashed",
        },
        others="passed",
        message="the worker broke the protocol",
        flags={"introspection"},
    ),
]

# A review's two (2026-12-07, a second round): calls back nested one inside another (the trusted side held
# every level's frame: 2 GB at 80 levels), and a read answered with one value too many (each test that read
# waited 5 s for a child it had not stopped: a worker doing it at every read ran the lab out of its 300 s).
NESTED_CALLBACKS = [
    Hostile(
        "reply_malformed.py",
        fill=(("KIND", "nested_callbacks"),),
        outcomes={"test_gradcheck_rejects_a_multi_element_output": "crashed"},
        others="passed",
        message="the worker broke the protocol",
        flags={"introspection"},
    ),
    Hostile(
        "read_count_forged.py",
        outcomes={"test_value_random_graphs": "crashed"},
        others="passed",
        message="the worker broke the protocol",
        flags={"introspection"},
    ),
]

CHANGED_ARGUMENTS = [
    # gradcheck flattens and changes the arrays it was given: behind the wall the change, shape
    # included, reaches the test's arrays as it does in-process, and the test that checks them fails.
    Hostile(
        "gradcheck_reshapes_its_inputs.py",
        outcomes={"test_gradcheck_leaves_inputs_untouched": "failed"},
        others="passed",
    ),
]

HOSTILE = [
    *IMPORT_TIME,
    *IN_ONE_OPERATION,
    *LEFTOVERS,
    *FORGERIES,
    *CLOSED_WEAKNESSES,
    *MALFORMED_REPLIES,
    *FORGED_CHANGES,
    *NESTED_CALLBACKS,
    *LYING_SHAPE,
    *FORGED_LOOPS,
    *CHANGED_ARGUMENTS,
]

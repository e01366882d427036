"""Lab lesson1_3's held-out student bugs: whole submissions, each with one bug as a student makes it,
written apart from the kit (from the handout, the lesson and the starter; not from the reference, the lab's
tests, the mutant catalogue or the kit's diagnoses). ``correct.py`` is the solution they were made from,
written the same way; every other file is it with one edit. tests/test_student_bugs.py grades them behind
the wall and checks whether the first failure a student reads names the bug (``named``, as measured). Not
part of the student edition: correct.py is a full solution.
"""

from tests.instructor import StudentBug

STUDENT_BUGS = [
    # Task 1: the Value engine
    StudentBug("mul_assigns_grad.py", "I wrote self.grad = ... in __mul__'s backward instead of +=", "overwrite"),
    StudentBug("add_assigns_grad.py", "__add__'s backward assigns out.grad instead of adding it", "overwrite"),
    StudentBug("pow_derivative_keeps_exponent.py", "the power rule as k * x**k, not k * x**(k-1)", "derivative"),
    StudentBug(
        "tanh_derivative_of_input.py",
        "tanh's derivative as 1 - x*x with x the input, not the output",
        "derivative",
        named=False,
    ),
    StudentBug(
        "log_forgets_out_grad.py",
        "log's backward adds 1/x and forgets to multiply by out.grad",
        "chain_rule",
    ),
    StudentBug("rsub_backwards.py", "__rsub__ returns self - other, so 2 - x computes x - 2", "reflected"),
    StudentBug(
        "backward_resets_every_node.py", "backward() zeroes every node's grad before starting, the leaves too", "reset"
    ),
    StudentBug("backward_not_reversed.py", "backward() runs the steps in topological order, not reversed", "order"),
    # Task 2: the numerical check
    StudentBug("forward_difference.py", "a forward difference (f(x + h) - f(x)) / h", "numeric"),
    StudentBug("divides_by_h.py", "the central difference divided by h instead of 2h", "numeric"),
    StudentBug("nudges_callers_list.py", "I nudge args[i] in the caller's list and put it back afterwards", "in_place"),
    # Task 3: softmax and cross-entropy
    StudentBug("softmax_no_shift.py", "no max subtraction before exp", "stability"),
    StudentBug("softmax_loss_of_first_logit.py", "the loss is -log probs[0], as in the lesson's example", "target"),
    # Task 4: matrix-product gradients
    StudentBug("matmul_grads_no_transpose.py", "dX = dY @ W, without transposing W", "transpose"),
    StudentBug("matmul_grads_dw_wrong_order.py", "dW = dY.T @ X, the product in the wrong order", "transpose"),
    # Task 5: gradient descent
    StudentBug("fit_line_sum_not_mean.py", "the loss sums the squared errors, never divides by n", "factor"),
    StudentBug("fit_line_records_after_update.py", "I append the row after updating w and b", "loop"),
    StudentBug("fit_line_one_step_short.py", "for step in range(steps), one row short", "loop"),
    StudentBug("fit_line_ignores_zero_grad.py", "w.grad and b.grad are cleared even when zero_grad=False", "reset"),
    StudentBug(
        "fit_line_zeroes_after_backward.py",
        "I clear w.grad and b.grad after backward(), before the update",
        "reset",
    ),
    StudentBug("fit_line_climbs.py", "the update adds lr * grad instead of subtracting it", "sign"),
    # Task 6: the learning-rate ceiling
    StudentBug("max_lr_uses_trace.py", "2 divided by the trace of the Hessian", "eigenvalue"),
    StudentBug(
        "max_lr_smallest_eigenvalue.py",
        "2 divided by the first eigenvalue eigvalsh returns (the smallest)",
        "eigenvalue",
    ),
    StudentBug("max_lr_forgets_two_over_n.py", "the Hessian without its 2/n in front", "factor"),
]

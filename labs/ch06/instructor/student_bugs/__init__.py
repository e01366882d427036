"""Lab ch06's held-out student bugs: whole submissions, each with one bug as a student makes it, written
apart from the kit (from the handout, the chapter and the starter; not from the reference, the lab's tests,
the mutant catalogue or the kit's diagnoses). ``correct.py`` is the solution they were made from, written
the same way; every other file is it with one edit. tests/test_student_bugs.py grades them behind the wall
and checks whether the first failure a student reads names the bug (``named``, as measured). Not part of
the student edition: correct.py is a full solution.
"""

from tests.instructor import StudentBug

STUDENT_BUGS = [
    # Task 1: Value
    StudentBug(
        "value_mul_assigns_grad.py",
        "I wrote self.grad = ... in __mul__'s backward instead of +=",
        "overwrite",
    ),
    StudentBug(
        "value_mul_uses_own_data.py",
        "in __mul__ I multiplied each grad by its own data, not the other's",
        "other_operand",
        named=False,
    ),
    StudentBug(
        "value_pow_forgets_exponent.py",
        "the power rule without the k in front: x**(k-1) * out.grad",
        "factor",
    ),
    StudentBug(
        "value_exp_forgets_out_grad.py",
        "exp's backward adds out.data and forgets to multiply by out.grad",
        "chain_rule",
    ),
    StudentBug(
        "value_tanh_derivative_of_input.py",
        "tanh's derivative as 1 - x**2 with x the input, not the output",
        "derivative",
    ),
    StudentBug(
        "value_relu_passes_at_zero.py",
        "relu lets the gradient through at exactly 0 (>= instead of >)",
        "derivative",
    ),
    StudentBug("value_rsub_backwards.py", "__rsub__ returns self - other, so 2 - x computes x - 2", "reflected"),
    StudentBug("value_pow_valueerror.py", "Value ** Value raises ValueError, not TypeError", "raises"),
    StudentBug(
        "value_add_no_wrap.py",
        "__add__ does not wrap a plain number in a Value, so x + 1 crashes",
        "numbers",
    ),
    StudentBug("value_topo_preorder.py", "my topological sort appends a node before its parents", "order"),
    StudentBug(
        "value_topo_no_visited.py", "no visited set in the sort: a node reached twice is listed twice", "visited"
    ),
    StudentBug("value_backward_resets_leaves.py", "backward() zeroes every node's grad, the leaves too", "reset"),
    StudentBug("value_backward_no_reset.py", "backward() never zeroes the intermediate nodes", "reset"),
    StudentBug(
        "value_backward_no_seed.py",
        "I forgot to set the output's grad to 1 before the backward steps",
        "seed",
    ),
    # Task 2: Tensor
    StudentBug(
        "tensor_add_no_unbroadcast.py", "Tensor.__add__ passes out.grad back without _unbroadcast", "unbroadcast"
    ),
    StudentBug(
        "unbroadcast_drops_kept_axes.py", "_unbroadcast sums the stretched size-1 axes without keepdims", "unbroadcast"
    ),
    StudentBug(
        "tensor_mul_uses_own_data.py",
        "Tensor.__mul__ multiplies each grad by its own data",
        "other_operand",
    ),
    StudentBug(
        "tensor_sub_own_rule_no_minus.py", "I gave __sub__ its own backward and forgot the minus for other", "sign"
    ),
    StudentBug("matmul_no_transpose.py", "dA = dC @ B, without transposing B", "transpose"),
    StudentBug(
        "matmul_dot_T.py",
        "the matmul backward transposes with .T instead of swapping the last two axes",
        "transpose",
    ),
    StudentBug("matmul_allows_vectors.py", "@ accepts a 1-D operand instead of raising ValueError", "raises"),
    StudentBug(
        "sum_no_expand_dims.py", "sum's backward broadcasts out.grad without putting the summed axis back", "axis"
    ),
    StudentBug(
        "mean_divides_by_size.py",
        "mean divides by the total number of entries, whatever the axis",
        "factor",
    ),
    StudentBug("axes_int_not_handled.py", "_axes forgets the case of a single int axis", "axis"),
    StudentBug("transpose_dot_T.py", "transpose() uses .T, which reverses every axis", "transpose"),
    StudentBug(
        "log_divides_by_output.py",
        "log's backward divides by the output instead of the input",
        "derivative",
    ),
    StudentBug(
        "tensor_relu_mask_from_output.py",
        "relu's mask is out.data >= 0, which is true everywhere",
        "derivative",
        named=False,
    ),
    StudentBug("tensor_init_keeps_ints.py", "Tensor.__init__ calls np.array(data) without dtype=float64", "type"),
    StudentBug(
        "backward_seeds_any_shape.py", "backward() without grad seeds ones on any shape, never raising", "raises"
    ),
    StudentBug("tensor_backward_recursive.py", "Tensor.backward sorts recursively, like Value's", "recursion"),
    StudentBug("tensor_backward_resets_leaves.py", "Tensor.backward zeroes the leaves' grads too", "reset"),
    # Task 4: the exercises
    StudentBug("sigmoid_forgets_out_grad.py", "sigmoid's backward adds s * (1 - s) without out.grad", "chain_rule"),
]

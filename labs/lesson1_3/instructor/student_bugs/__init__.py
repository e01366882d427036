"""Lab lesson1_3's held-out student bugs: each one bug as a student makes it,
written apart from the kit (from the handout, the lesson and the starter; not from the reference, the lab's
tests, the mutant catalogue or the kit's diagnoses). ``correct.py`` is the solution they were made from,
written the same way; each bug is one edit of it (``within``, ``old``, ``new``, as a
mutant is of the reference). tests/test_student_bugs.py grades them behind
the wall and checks whether the first failure a student reads names the bug (``named``, as measured). Not
part of the student edition: correct.py is a full solution.
"""

from tests.instructor import StudentBug

STUDENT_BUGS = [
    # Task 1: the Value engine
    StudentBug(
        "mul_assigns_grad",
        "I wrote self.grad = ... in __mul__'s backward instead of +=",
        "overwrite",
        within="Value.__mul__",
        old=("            self.grad += other.data * out.grad\n            other.grad += self.data * out.grad\n"),
        new=("            self.grad = other.data * out.grad\n            other.grad = self.data * out.grad\n"),
    ),
    StudentBug(
        "add_assigns_grad",
        "__add__'s backward assigns out.grad instead of adding it",
        "overwrite",
        within="Value.__add__",
        old=("            self.grad += out.grad\n            other.grad += out.grad\n"),
        new=("            self.grad = out.grad\n            other.grad = out.grad\n"),
    ),
    StudentBug(
        "pow_derivative_keeps_exponent",
        "the power rule as k * x**k, not k * x**(k-1)",
        "derivative",
        within="Value.__pow__",
        old="            self.grad += k * self.data ** (k - 1) * out.grad\n",
        new="            self.grad += k * self.data**k * out.grad\n",
    ),
    StudentBug(
        "tanh_derivative_of_input",
        "tanh's derivative as 1 - x*x with x the input, not the output",
        "derivative",
        within="Value.tanh",
        old="            self.grad += (1 - t * t) * out.grad\n",
        new="            self.grad += (1 - self.data * self.data) * out.grad\n",
        named=False,
    ),
    StudentBug(
        "log_forgets_out_grad",
        "log's backward adds 1/x and forgets to multiply by out.grad",
        "chain_rule",
        within="Value.log",
        old="            self.grad += out.grad / self.data\n",
        new="            self.grad += 1 / self.data\n",
    ),
    StudentBug(
        "rsub_backwards",
        "__rsub__ returns self - other, so 2 - x computes x - 2",
        "reflected",
        within="Value.__rsub__",
        old="        return Value(other) - self\n",
        new="        return self - other\n",
    ),
    StudentBug(
        "backward_resets_every_node",
        "backward() zeroes every node's grad before starting, the leaves too",
        "reset",
        within="Value.backward",
        old=("        build(self)\n        self.grad = 1.0\n"),
        new=("        build(self)\n        for v in topo:\n            v.grad = 0.0\n        self.grad = 1.0\n"),
    ),
    StudentBug(
        "backward_not_reversed",
        "backward() runs the steps in topological order, not reversed",
        "order",
        within="Value.backward",
        old="        for v in reversed(topo):\n",
        new="        for v in topo:\n",
    ),
    # Task 2: the numerical check
    StudentBug(
        "forward_difference",
        "a forward difference (f(x + h) - f(x)) / h",
        "numeric",
        within="numerical_derivative",
        old="    return float((f(*up) - f(*down)) / (2 * h))\n",
        new="    return float((f(*up) - f(*args)) / h)\n",
    ),
    StudentBug(
        "divides_by_h",
        "the central difference divided by h instead of 2h",
        "numeric",
        within="numerical_derivative",
        old="    return float((f(*up) - f(*down)) / (2 * h))\n",
        new="    return float((f(*up) - f(*down)) / h)\n",
    ),
    StudentBug(
        "nudges_callers_list",
        "I nudge args[i] in the caller's list and put it back afterwards",
        "in_place",
        within="numerical_derivative",
        old=(
            "    up = list(args)\n"
            "    down = list(args)\n"
            "    up[i] = up[i] + h\n"
            "    down[i] = down[i] - h\n"
            "    return float((f(*up) - f(*down)) / (2 * h))\n"
        ),
        new=(
            "    args[i] += h\n"
            "    up = f(*args)\n"
            "    args[i] -= 2 * h\n"
            "    down = f(*args)\n"
            "    return float((up - down) / (2 * h))\n"
        ),
    ),
    # Task 3: softmax and cross-entropy
    StudentBug(
        "softmax_no_shift",
        "no max subtraction before exp",
        "stability",
        within="softmax_cross_entropy",
        old=("    m = max(z.data for z in logits)\n    exps = [(z - m).exp() for z in logits]\n"),
        new="    exps = [z.exp() for z in logits]\n",
    ),
    StudentBug(
        "softmax_loss_of_first_logit",
        "the loss is -log probs[0], as in the lesson's example",
        "target",
        within="softmax_cross_entropy",
        old="    loss = -probs[target].log()\n",
        new="    loss = -probs[0].log()\n",
    ),
    # Task 4: matrix-product gradients
    StudentBug(
        "matmul_grads_no_transpose",
        "dX = dY @ W, without transposing W",
        "transpose",
        within="matmul_grads",
        old="    dX = dY @ W.T\n",
        new="    dX = dY @ W\n",
    ),
    StudentBug(
        "matmul_grads_dw_wrong_order",
        "dW = dY.T @ X, the product in the wrong order",
        "transpose",
        within="matmul_grads",
        old="    dW = X.T @ dY\n",
        new="    dW = dY.T @ X\n",
    ),
    # Task 5: gradient descent
    StudentBug(
        "fit_line_sum_not_mean",
        "the loss sums the squared errors, never divides by n",
        "factor",
        within="fit_line",
        old="        loss = loss * (1 / len(xs))\n",
        new="",
    ),
    StudentBug(
        "fit_line_records_after_update",
        "I append the row after updating w and b",
        "loop",
        within="fit_line",
        old=(
            "        rows.append((step, loss.data, w.data, b.data))\n"
            "        w.data -= lr * w.grad\n"
            "        b.data -= lr * b.grad\n"
        ),
        new=(
            "        w.data -= lr * w.grad\n"
            "        b.data -= lr * b.grad\n"
            "        rows.append((step, loss.data, w.data, b.data))\n"
        ),
    ),
    StudentBug(
        "fit_line_one_step_short",
        "for step in range(steps), one row short",
        "loop",
        within="fit_line",
        old="    for step in range(steps + 1):\n",
        new="    for step in range(steps):\n",
    ),
    StudentBug(
        "fit_line_ignores_zero_grad",
        "w.grad and b.grad are cleared even when zero_grad=False",
        "reset",
        within="fit_line",
        old=("        if zero_grad:\n            w.grad = 0.0\n            b.grad = 0.0\n"),
        new=("        w.grad = 0.0\n        b.grad = 0.0\n"),
    ),
    StudentBug(
        "fit_line_zeroes_after_backward",
        "I clear w.grad and b.grad after backward(), before the update",
        "reset",
        within="fit_line",
        old=("        if zero_grad:\n            w.grad = 0.0\n            b.grad = 0.0\n        loss.backward()\n"),
        new=("        loss.backward()\n        if zero_grad:\n            w.grad = 0.0\n            b.grad = 0.0\n"),
    ),
    StudentBug(
        "fit_line_climbs",
        "the update adds lr * grad instead of subtracting it",
        "sign",
        within="fit_line",
        old=("        w.data -= lr * w.grad\n        b.data -= lr * b.grad\n"),
        new=("        w.data += lr * w.grad\n        b.data += lr * b.grad\n"),
    ),
    # Task 6: the learning-rate ceiling
    StudentBug(
        "max_lr_uses_trace",
        "2 divided by the trace of the Hessian",
        "eigenvalue",
        within="max_stable_lr",
        old="    return float(2 / np.linalg.eigvalsh(H).max())\n",
        new="    return float(2 / np.trace(H))\n",
    ),
    StudentBug(
        "max_lr_smallest_eigenvalue",
        "2 divided by the first eigenvalue eigvalsh returns (the smallest)",
        "eigenvalue",
        within="max_stable_lr",
        old="    return float(2 / np.linalg.eigvalsh(H).max())\n",
        new="    return float(2 / np.linalg.eigvalsh(H)[0])\n",
    ),
    StudentBug(
        "max_lr_forgets_two_over_n",
        "the Hessian without its 2/n in front",
        "factor",
        within="max_stable_lr",
        old="    H = (2 / n) * np.array([[np.sum(xs**2), np.sum(xs)], [np.sum(xs), n]])\n",
        new="    H = np.array([[np.sum(xs**2), np.sum(xs)], [np.sum(xs), n]])\n",
    ),
]

"""Realistic student bugs in lab lesson1_3, each with the lab tests that catch it."""

from tests.mutation import Mutant

MUTANTS = [
    # -----------------------------------------------------------------------
    # Value: construction
    # -----------------------------------------------------------------------
    Mutant(
        name="value_data_not_float",
        bug="Value.__init__ stores data as given, so Value(3).data is the int 3",
        kind="type",
        within="Value.__init__",
        old="self.data = float(data)",
        new="self.data = data",
        caught_by={
            "test_engine_value_holds_a_float_and_a_zero_gradient",
        },
    ),
    Mutant(
        name="value_grad_starts_as_int",
        bug="Value.__init__ starts grad at the int 0 instead of the float 0.0",
        kind="type",
        within="Value.__init__",
        old="self.grad = 0.0",
        new="self.grad = 0",
        caught_by={
            "test_engine_random_graphs",
            "test_engine_value_holds_a_float_and_a_zero_gradient",
        },
    ),
    # -----------------------------------------------------------------------
    # Value: local derivatives
    # -----------------------------------------------------------------------
    Mutant(
        name="value_add_assigns_gradient",
        bug="Value.__add__ assigns the gradient (=) instead of accumulating it (+=)",
        kind="overwrite",
        within="Value.__add__",
        old="self.grad += out.grad  # d(out)/d(self) = 1",
        new="self.grad = out.grad  # d(out)/d(self) = 1",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_add_does_not_wrap_numbers",
        bug="Value.__add__ uses other.data without wrapping a plain number in a Value",
        kind="numbers",
        within="Value.__add__",
        old="""        other = other if isinstance(other, Value) else Value(other)
""",
        new="",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_random_graphs",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_mul_assigns_gradient",
        bug="Value.__mul__ assigns the right operand's gradient instead of accumulating it",
        kind="overwrite",
        within="Value.__mul__",
        old="other.grad += self.data * out.grad",
        new="other.grad = self.data * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_mul_uses_own_factor",
        bug="Value.__mul__ multiplies each operand's gradient by its own value instead of the other factor",
        kind="other_operand",
        within="Value.__mul__",
        old="""            self.grad += other.data * out.grad  # d(out)/d(self) = other
            other.grad += self.data * out.grad""",
        new="""            self.grad += self.data * out.grad
            other.grad += other.data * out.grad""",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[div]",
            "test_engine_operations[exp]",
            "test_engine_operations[log]",
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_reproduces_the_lessons_graph",
            "test_engine_two_layer_tanh",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_numerical_derivative_agrees_with_the_engine",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_pow_exponent_not_decremented",
        bug="Value.__pow__ backward uses k * x**k instead of k * x**(k - 1)",
        kind="derivative",
        within="Value.__pow__",
        old="self.grad += k * self.data ** (k - 1) * out.grad",
        new="self.grad += k * self.data**k * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[div]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[pow]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_pow_assigns_gradient",
        bug="Value.__pow__ assigns its gradient instead of accumulating it",
        kind="overwrite",
        within="Value.__pow__",
        old="self.grad += k * self.data ** (k - 1) * out.grad",
        new="self.grad = k * self.data ** (k - 1) * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[pow]",
            "test_engine_random_graphs",
        },
    ),
    Mutant(
        name="value_pow_forgets_k",
        bug="Value.__pow__ backward uses x**(k - 1) without the factor k",
        kind="factor",
        within="Value.__pow__",
        old="self.grad += k * self.data ** (k - 1) * out.grad",
        new="self.grad += self.data ** (k - 1) * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[div]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[pow]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_exp_forgets_upstream",
        bug="Value.exp backward adds exp(x) without multiplying by out.grad (chain rule forgotten)",
        kind="chain_rule",
        within="Value.exp",
        old="self.grad += out.data * out.grad",
        new="self.grad += out.data",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[exp]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_exp_derivative_is_x",
        bug="Value.exp backward multiplies by x instead of exp(x)",
        kind="derivative",
        within="Value.exp",
        old="self.grad += out.data * out.grad",
        new="self.grad += self.data * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[exp]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_exp_assigns_gradient",
        bug="Value.exp assigns its gradient instead of accumulating it",
        kind="overwrite",
        within="Value.exp",
        old="self.grad += out.data * out.grad",
        new="self.grad = out.data * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_random_graphs",
        },
    ),
    Mutant(
        name="value_log_divides_by_output",
        bug="Value.log backward divides by log(x) (the output) instead of x",
        kind="derivative",
        within="Value.log",
        old="self.grad += (1.0 / self.data) * out.grad",
        new="self.grad += (1.0 / out.data) * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[log]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_log_forgets_upstream",
        bug="Value.log backward adds 1/x without multiplying by out.grad",
        kind="chain_rule",
        within="Value.log",
        old="self.grad += (1.0 / self.data) * out.grad",
        new="self.grad += 1.0 / self.data",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[log]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_tanh_forward_sign",
        kind="sign",
        bug="Value.tanh computes (e**x - e**-x) / (e**x - e**-x), a minus for the denominator's plus: always 1",
        within="Value.tanh",
        old="t = math.tanh(self.data)",
        new="t = (math.exp(self.data) - math.exp(-self.data)) / (math.exp(self.data) - math.exp(-self.data))",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_two_layer_tanh",
            "test_numerical_derivative_agrees_with_the_engine",
        },
        named=False,  # every failure says the forward value is wrong, not which sign
    ),
    Mutant(
        name="value_tanh_derivative_is_t",
        bug="Value.tanh backward uses t instead of 1 - t*t",
        kind="derivative",
        within="Value.tanh",
        old="self.grad += (1.0 - t * t) * out.grad",
        new="self.grad += t * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_two_layer_tanh",
            "test_numerical_derivative_agrees_with_the_engine",
        },
    ),
    Mutant(
        name="value_tanh_derivative_one_minus_t",
        bug="Value.tanh backward uses 1 - t instead of 1 - t*t",
        kind="derivative",
        within="Value.tanh",
        old="self.grad += (1.0 - t * t) * out.grad",
        new="self.grad += (1.0 - t) * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_two_layer_tanh",
            "test_numerical_derivative_agrees_with_the_engine",
        },
    ),
    Mutant(
        name="value_relu_passes_at_zero",
        bug="Value.relu passes the gradient where x >= 0, so relu'(0) is 1",
        kind="derivative",
        within="Value.relu",
        old="self.grad += (1.0 if self.data > 0 else 0.0) * out.grad",
        new="self.grad += (1.0 if self.data >= 0 else 0.0) * out.grad",
        caught_by={
            "test_engine_relu[x=0]",
        },
    ),
    Mutant(
        name="value_relu_multiplies_by_output",
        bug="Value.relu backward multiplies by the output (as for exp) instead of passing the gradient",
        kind="derivative",
        within="Value.relu",
        old="self.grad += (1.0 if self.data > 0 else 0.0) * out.grad",
        new="self.grad += out.data * out.grad",
        caught_by={
            "test_engine_random_graphs",
            "test_engine_relu[x=0.5]",
        },
    ),
    Mutant(
        name="value_neg_detached",
        bug="Value.__neg__ returns a fresh Value(-x), outside the graph",
        kind="detached",
        named=False,  # zeros for -a - b: several bugs give them (the generic diagnosis cannot tell)
        within="Value.__neg__",
        old="return self * -1.0",
        new="return Value(-self.data)",
        caught_by={
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_sub_swapped",
        bug="Value.__sub__ computes other - self",
        kind="sign",
        within="Value.__sub__",
        old="return self + (-other)",
        new="return -self + other",
        caught_by={
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_div_wrong_sign",
        bug="Value.__truediv__ with its own backward rule: d(a/b)/db = +a/b**2 (sign lost)",
        kind="sign",
        within="Value.__truediv__",
        old="return self * other**-1",
        new="""out = Value(self.data / other.data, (self, other), "/")

        def backward():
            self.grad += out.grad / other.data
            other.grad += self.data / other.data**2 * out.grad

        out._backward = backward
        return out""",
        caught_by={
            "test_engine_operations[div]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_rsub_swapped",
        bug="Value.__rsub__ computes self - other, so 2 - x is x - 2",
        kind="reflected",
        within="Value.__rsub__",
        old="return Value(other) - self",
        new="return self - other",
        caught_by={
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
        },
    ),
    Mutant(
        name="value_rtruediv_swapped",
        bug="Value.__rtruediv__ computes self / other, so 2 / x is x / 2",
        kind="reflected",
        within="Value.__rtruediv__",
        old="return Value(other) / self",
        new="return self / other",
        caught_by={
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
        },
    ),
    # -----------------------------------------------------------------------
    # Value: backward()
    # -----------------------------------------------------------------------
    Mutant(
        name="value_backward_runs_in_discovery_order",
        bug="Value.backward appends a node before its parents (pre-order), so a node can run before all its "
        "consumers have contributed",
        kind="order",
        within="Value.backward",
        old="""                for p in v._parents:
                    build(p)
                order.append(v)""",
        new="""                order.append(v)
                for p in v._parents:
                    build(p)""",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[div]",
            "test_engine_operations[exp]",
            "test_engine_operations[log]",
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_operations[pow]",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_relu[x=0.5]",
            "test_engine_reproduces_the_lessons_graph",
            "test_engine_two_layer_tanh",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_numerical_derivative_agrees_with_the_engine",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_backward_no_topological_order",
        bug="Value.backward recurses from the output, running each node's rule as soon as it is reached, "
        "before every consumer has added its contribution",
        kind="order",
        within="Value.backward",
        old="""        for v in reversed(order):  # walk backwards from the output
            v._backward()""",
        new="""
        def propagate(v):
            v._backward()
            for p in v._parents:
                propagate(p)

        propagate(self)""",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_random_graphs",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_backward_breadth_first",
        bug="Value.backward runs the rules in breadth-first order from the output instead of a topological order",
        kind="order",
        within="Value.backward",
        old="""        def build(v):  # a topological order: every node after the nodes it was built from
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    build(p)
                order.append(v)

        build(self)""",
        new="""        queue = [self]
        seen.add(id(self))
        while queue:
            v = queue.pop(0)
            order.insert(0, v)  # reversed below: the output runs first
            for p in v._parents:
                if id(p) not in seen:
                    seen.add(id(p))
                    queue.append(p)""",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_backward_no_visited_set",
        bug="Value.backward's depth-first search has no visited set, so a shared node runs once per path",
        kind="visited",
        within="Value.backward",
        old="""            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    build(p)
                order.append(v)""",
        new="""            for p in v._parents:
                build(p)
            order.append(v)""",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_random_graphs",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_backward_not_reversed",
        bug="Value.backward runs the rules in topological order (inputs first) instead of reversed",
        kind="order",
        within="Value.backward",
        old="for v in reversed(order):",
        new="for v in order:",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[div]",
            "test_engine_operations[exp]",
            "test_engine_operations[log]",
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_operations[pow]",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_relu[x=0.5]",
            "test_engine_reproduces_the_lessons_graph",
            "test_engine_two_layer_tanh",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_numerical_derivative_agrees_with_the_engine",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_backward_no_seed",
        bug="Value.backward forgets to seed the output's gradient with 1",
        kind="seed",
        within="Value.backward",
        old="self.grad += 1.0  # d(output)/d(output) = 1",
        new="pass",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[div]",
            "test_engine_operations[exp]",
            "test_engine_operations[log]",
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_operations[pow]",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_relu[x=-2]",
            "test_engine_relu[x=0.5]",
            "test_engine_relu[x=0]",
            "test_engine_reproduces_the_lessons_graph",
            "test_engine_two_layer_tanh",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_numerical_derivative_agrees_with_the_engine",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_backward_resets_leaves",
        bug="Value.backward zeroes every node's gradient, leaves included, so leaves do not accumulate",
        kind="reset",
        within="Value.backward",
        old="""            if v._parents:  # intermediate nodes start from zero on every pass
                v.grad = 0.0""",
        new="""            v.grad = 0.0""",
        caught_by={
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_fit_line_without_zeroing_keeps_overshooting",
        },
    ),
    Mutant(
        name="value_backward_seeds_before_reset",
        bug="Value.backward seeds the output and then zeroes the intermediates, the output included",
        kind="reset",
        within="Value.backward",
        old="""        for v in order:
            if v._parents:  # intermediate nodes start from zero on every pass
                v.grad = 0.0
        self.grad += 1.0  # d(output)/d(output) = 1""",
        new="""        self.grad += 1.0  # d(output)/d(output) = 1
        for v in order:
            if v._parents:  # intermediate nodes start from zero on every pass
                v.grad = 0.0""",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[div]",
            "test_engine_operations[exp]",
            "test_engine_operations[log]",
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_operations[pow]",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_relu[x=-2]",
            "test_engine_relu[x=0.5]",
            "test_engine_relu[x=0]",
            "test_engine_reproduces_the_lessons_graph",
            "test_engine_two_layer_tanh",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_numerical_derivative_agrees_with_the_engine",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    # -----------------------------------------------------------------------
    # numerical_derivative
    # -----------------------------------------------------------------------
    Mutant(
        name="numeric_forward_difference",
        bug="numerical_derivative uses the forward difference (f(x + h) - f(x)) / h",
        kind="numeric",
        within="numerical_derivative",
        old="return float((f(*up) - f(*down)) / (2 * h))",
        new="return float((f(*up) - f(*args)) / h)",
        caught_by={
            "test_numerical_derivative_agrees_with_the_engine",
            "test_numerical_derivative_is_central",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numeric_divides_by_h",
        bug="numerical_derivative divides the central difference by h instead of 2h",
        kind="numeric",
        within="numerical_derivative",
        old="/ (2 * h)",
        new="/ h",
        caught_by={
            "test_numerical_derivative_agrees_with_the_engine",
            "test_numerical_derivative_is_central",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numeric_sign_flipped",
        bug="numerical_derivative computes (f(x - h) - f(x + h)) / (2h)",
        kind="sign",
        within="numerical_derivative",
        old="(f(*up) - f(*down))",
        new="(f(*down) - f(*up))",
        caught_by={
            "test_numerical_derivative_agrees_with_the_engine",
            "test_numerical_derivative_is_central",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numeric_nudges_every_argument",
        bug="numerical_derivative adds h to every argument, not only argument i",
        kind="nudge",
        within="numerical_derivative",
        old="""    up, down = list(args), list(args)
    up[i] += h
    down[i] -= h""",
        new="""    up = [a + h for a in args]
    down = [a - h for a in args]""",
        caught_by={
            "test_numerical_derivative_agrees_with_the_engine",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numeric_modifies_args_in_place",
        bug="numerical_derivative nudges args[i] in the caller's list and never puts it back",
        kind="in_place",
        within="numerical_derivative",
        old="""    up, down = list(args), list(args)
    up[i] += h
    down[i] -= h
    return float((f(*up) - f(*down)) / (2 * h))""",
        new="""    x = args[i]
    args[i] = x + h
    up = f(*args)
    args[i] = x - h
    down = f(*args)
    return float((up - down) / (2 * h))""",
        caught_by={
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numeric_aliases_args",
        bug="numerical_derivative writes up = args (no copy), so the caller's list is changed",
        kind="in_place",
        within="numerical_derivative",
        old="up, down = list(args), list(args)",
        new="up, down = args, list(args)",
        caught_by={
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    # -----------------------------------------------------------------------
    # softmax_cross_entropy
    # -----------------------------------------------------------------------
    Mutant(
        name="softmax_no_max_shift",
        bug="softmax_cross_entropy exponentiates the raw logits, without subtracting the largest",
        kind="stability",
        within="softmax_cross_entropy",
        old="exps = [(v - m).exp() for v in logits]",
        new="exps = [v.exp() for v in logits]",
        caught_by={
            "test_softmax_is_stable_for_large_logits",
        },
    ),
    Mutant(
        name="softmax_shifts_by_min",
        bug="softmax_cross_entropy subtracts the smallest logit instead of the largest",
        kind="stability",
        within="softmax_cross_entropy",
        old="m = max(v.data for v in logits)",
        new="m = min(v.data for v in logits)",
        caught_by={
            "test_softmax_is_stable_for_large_logits",
        },
    ),
    Mutant(
        name="softmax_shifts_by_mean",
        bug="softmax_cross_entropy subtracts the mean logit instead of the largest",
        kind="stability",
        within="softmax_cross_entropy",
        old="m = max(v.data for v in logits)",
        new="m = sum(v.data for v in logits) / len(logits)",
        caught_by={
            "test_softmax_is_stable_for_large_logits",
        },
    ),
    Mutant(
        name="softmax_loss_of_first_probability",
        bug="softmax_cross_entropy takes -log of probs[0] whatever the target",
        kind="target",
        within="softmax_cross_entropy",
        old="loss = -(probs[target].log())",
        new="loss = -(probs[0].log())",
        caught_by={
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
        },
    ),
    Mutant(
        name="softmax_loss_of_largest_probability",
        bug="softmax_cross_entropy takes -log of the largest probability instead of the target's",
        kind="target",
        within="softmax_cross_entropy",
        old="loss = -(probs[target].log())",
        new="loss = -(max(probs, key=lambda p: p.data).log())",
        caught_by={
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
        },
    ),
    Mutant(
        name="softmax_loss_missing_minus",
        bug="softmax_cross_entropy returns log p[target] without the minus sign",
        kind="sign",
        within="softmax_cross_entropy",
        old="loss = -(probs[target].log())",
        new="loss = probs[target].log()",
        caught_by={
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="softmax_total_counts_first_twice",
        bug="softmax_cross_entropy starts the total at exps[0] and then adds every exp, exps[0] included",
        kind="normalisation",
        within="softmax_cross_entropy",
        old="for e in exps[1:]:",
        new="for e in exps:",
        caught_by={
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="softmax_total_detached",
        bug="softmax_cross_entropy divides by total.data, a plain number, so no gradient flows through the sum",
        kind="detached",
        within="softmax_cross_entropy",
        old="probs = [e / total for e in exps]",
        new="probs = [e / total.data for e in exps]",
        caught_by={
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    # -----------------------------------------------------------------------
    # matmul_grads
    # -----------------------------------------------------------------------
    Mutant(
        name="matmul_dx_missing_transpose",
        bug="matmul_grads computes dX = dY @ W, without transposing W",
        kind="transpose",
        within="matmul_grads",
        old="return dY @ W.T, X.T @ dY",
        new="return dY @ W, X.T @ dY",
        caught_by={
            "test_matmul_grads_match_the_numerical_check[1x5x3]",
            "test_matmul_grads_match_the_numerical_check[2x4x4]",
            "test_matmul_grads_match_the_numerical_check[5x3x6]",
            "test_matmul_grads_match_the_numerical_check[lesson_4x3x2]",
        },
    ),
    Mutant(
        name="matmul_dw_missing_transpose",
        bug="matmul_grads computes dW = X @ dY, without transposing X",
        kind="transpose",
        within="matmul_grads",
        old="return dY @ W.T, X.T @ dY",
        new="return dY @ W.T, X @ dY",
        caught_by={
            "test_matmul_grads_match_the_numerical_check[1x5x3]",
            "test_matmul_grads_match_the_numerical_check[2x4x4]",
            "test_matmul_grads_match_the_numerical_check[5x3x6]",
            "test_matmul_grads_match_the_numerical_check[lesson_4x3x2]",
        },
    ),
    Mutant(
        name="matmul_dw_factors_swapped",
        bug="matmul_grads computes dW = dY^T @ X, the factors in the wrong order (the transpose of dW)",
        kind="transpose",
        within="matmul_grads",
        old="return dY @ W.T, X.T @ dY",
        new="return dY @ W.T, dY.T @ X",
        caught_by={
            "test_matmul_grads_match_the_numerical_check[1x5x3]",
            "test_matmul_grads_match_the_numerical_check[2x4x4]",
            "test_matmul_grads_match_the_numerical_check[5x3x6]",
            "test_matmul_grads_match_the_numerical_check[lesson_4x3x2]",
        },
    ),
    Mutant(
        name="matmul_dx_factors_swapped",
        bug="matmul_grads computes dX = W @ dY^T, the factors in the wrong order (the transpose of dX)",
        kind="transpose",
        within="matmul_grads",
        old="return dY @ W.T, X.T @ dY",
        new="return W @ dY.T, X.T @ dY",
        caught_by={
            "test_matmul_grads_match_the_numerical_check[1x5x3]",
            "test_matmul_grads_match_the_numerical_check[2x4x4]",
            "test_matmul_grads_match_the_numerical_check[5x3x6]",
            "test_matmul_grads_match_the_numerical_check[lesson_4x3x2]",
        },
    ),
    Mutant(
        name="matmul_returns_dw_first",
        bug="matmul_grads returns (dW, dX) instead of (dX, dW)",
        kind="results_order",
        within="matmul_grads",
        old="return dY @ W.T, X.T @ dY",
        new="return X.T @ dY, dY @ W.T",
        caught_by={
            "test_matmul_grads_match_the_numerical_check[1x5x3]",
            "test_matmul_grads_match_the_numerical_check[2x4x4]",
            "test_matmul_grads_match_the_numerical_check[5x3x6]",
            "test_matmul_grads_match_the_numerical_check[lesson_4x3x2]",
        },
    ),
    Mutant(
        name="matmul_dw_averaged_over_rows",
        bug="matmul_grads divides dW by the number of rows n, as if the loss were a mean",
        kind="factor",
        within="matmul_grads",
        old="return dY @ W.T, X.T @ dY",
        new="return dY @ W.T, X.T @ dY / len(X)",
        caught_by={
            "test_matmul_grads_match_the_numerical_check[2x4x4]",
            "test_matmul_grads_match_the_numerical_check[5x3x6]",
            "test_matmul_grads_match_the_numerical_check[lesson_4x3x2]",
        },
    ),
    # -----------------------------------------------------------------------
    # fit_line
    # -----------------------------------------------------------------------
    Mutant(
        name="fit_line_loss_is_a_sum",
        bug="fit_line's loss is the sum of squared errors, not their mean",
        kind="factor",
        within="fit_line",
        old="""        loss = loss * (1.0 / len(xs))
""",
        new="",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_records_after_update",
        bug="fit_line appends the row after updating w and b, so each row pairs a loss with the next step's w, b",
        kind="loop",
        within="fit_line",
        old="""        history.append((step, loss.data, w.data, b.data))
        w.data -= lr * w.grad
        b.data -= lr * b.grad""",
        new="""        w.data -= lr * w.grad
        b.data -= lr * b.grad
        history.append((step, loss.data, w.data, b.data))""",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
        },
    ),
    Mutant(
        name="fit_line_one_step_short",
        bug="fit_line loops over range(steps), so the last evaluation (step steps) is missing",
        kind="loop",
        within="fit_line",
        old="for step in range(steps + 1):",
        new="for step in range(steps):",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_steps_numbered_from_one",
        bug="fit_line numbers the rows 1 to steps instead of 0 to steps",
        kind="loop",
        within="fit_line",
        old="for step in range(steps + 1):",
        new="for step in range(1, steps + 1):",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_always_zeroes",
        bug="fit_line clears the gradients whatever zero_grad says",
        kind="reset",
        within="fit_line",
        old="if zero_grad:",
        new="if True:",
        caught_by={
            "test_fit_line_without_zeroing_keeps_overshooting",
        },
    ),
    Mutant(
        name="fit_line_never_zeroes",
        bug="fit_line never clears the gradients, whatever zero_grad says",
        kind="reset",
        within="fit_line",
        old="""        if zero_grad:
            w.grad = 0.0  # clear old gradients before each backward pass
            b.grad = 0.0
""",
        new="",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_zeroes_after_backward",
        bug="fit_line clears the gradients after backward() instead of before, so every update is zero",
        kind="reset",
        within="fit_line",
        old="""        if zero_grad:
            w.grad = 0.0  # clear old gradients before each backward pass
            b.grad = 0.0
        loss.backward()""",
        new="""        loss.backward()
        if zero_grad:
            w.grad = 0.0
            b.grad = 0.0""",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_zero_grad_default_false",
        bug="fit_line's zero_grad defaults to False",
        kind="reset",
        within="fit_line",
        old="zero_grad=True",
        new="zero_grad=False",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_b_uses_w_gradient",
        bug="fit_line updates b with w's gradient",
        kind="loop",
        within="fit_line",
        old="b.data -= lr * b.grad",
        new="b.data -= lr * w.grad",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_gradient_ascent",
        bug="fit_line moves w and b along the gradient (+=) instead of against it",
        kind="sign",
        within="fit_line",
        old="""        w.data -= lr * w.grad
        b.data -= lr * b.grad""",
        new="""        w.data += lr * w.grad
        b.data += lr * b.grad""",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_restarts_from_zero_each_step",
        bug="fit_line creates w and b inside the loop, so every step starts again from w = b = 0",
        kind="loop",
        within="fit_line",
        old="""    w, b = Value(0.0), Value(0.0)
    history = []
    for step in range(steps + 1):""",
        new="""    history = []
    for step in range(steps + 1):
        w, b = Value(0.0), Value(0.0)""",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_loss_accumulates_across_steps",
        bug="fit_line starts the loss at Value(0.0) once, before the loop, so each step's loss adds onto the last",
        kind="loop",
        within="fit_line",
        old="""    for step in range(steps + 1):
        loss = Value(0.0)""",
        new="""    loss = Value(0.0)
    for step in range(steps + 1):""",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_rows_hold_values",
        bug="fit_line stores the Value objects in its rows instead of their float data",
        kind="type",
        within="fit_line",
        old="history.append((step, loss.data, w.data, b.data))",
        new="history.append((step, loss, w, b))",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    # -----------------------------------------------------------------------
    # max_stable_lr
    # -----------------------------------------------------------------------
    Mutant(
        name="ceiling_uses_the_trace",
        bug="max_stable_lr divides 2 by the Hessian's trace instead of its largest eigenvalue",
        kind="eigenvalue",
        within="max_stable_lr",
        old="np.linalg.eigvalsh(hessian).max()",
        new="np.trace(hessian)",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="ceiling_smallest_eigenvalue",
        bug="max_stable_lr takes eigvalsh(...)[0], the smallest eigenvalue (eigvalsh sorts ascending)",
        kind="eigenvalue",
        within="max_stable_lr",
        old="np.linalg.eigvalsh(hessian).max()",
        new="np.linalg.eigvalsh(hessian)[0]",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="ceiling_largest_diagonal_entry",
        bug="max_stable_lr takes the Hessian's largest diagonal entry as the curvature, ignoring how w and b couple",
        kind="eigenvalue",
        within="max_stable_lr",
        old="np.linalg.eigvalsh(hessian).max()",
        new="np.diag(hessian).max()",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="ceiling_forgets_2_over_n",
        bug="max_stable_lr leaves out the factor 2/n of the mean squared error's Hessian",
        kind="factor",
        within="max_stable_lr",
        old="hessian = (2.0 / n) * np.array(",
        new="hessian = np.array(",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="ceiling_1_over_n",
        bug="max_stable_lr scales the Hessian by 1/n, forgetting the 2 from differentiating the square",
        kind="factor",
        within="max_stable_lr",
        old="hessian = (2.0 / n) * np.array(",
        new="hessian = (1.0 / n) * np.array(",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="ceiling_one_over_lambda",
        bug="max_stable_lr returns 1 / lambda_max instead of 2 / lambda_max",
        kind="factor",
        within="max_stable_lr",
        old="return float(2.0 / np.linalg",
        new="return float(1.0 / np.linalg",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="ceiling_bb_entry_one",
        bug="max_stable_lr puts 1 instead of n in the Hessian's b-b entry",
        kind="eigenvalue",
        within="max_stable_lr",
        old="[np.sum(x), n]]",
        new="[np.sum(x), 1]]",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_backward_kahn_counts_users_once",
        kind="order",
        bug="Value.backward sorts with Kahn's algorithm, counting each node's users once but counting down once "
        "per use, so u in u*u is released before its other users have run",
        within="Value.backward",
        old="""        order, seen = [], set()

        def build(v):  # a topological order: every node after the nodes it was built from
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    build(p)
                order.append(v)

        build(self)
        for v in order:
            if v._parents:  # intermediate nodes start from zero on every pass
                v.grad = 0.0
        self.grad += 1.0  # d(output)/d(output) = 1
        for v in reversed(order):  # walk backwards from the output
            v._backward()
""",
        new="""        order, seen, stack, users = [], set(), [self], {}
        while stack:  # every node once, and how many nodes use it (each user counted once)
            v = stack.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            order.append(v)
            for p in {id(p): p for p in v._parents}.values():
                users[id(p)] = users.get(id(p), 0) + 1
                stack.append(p)
        for v in order:
            if v._parents:
                v.grad = 0.0
        self.grad += 1.0
        ready = [self]
        while ready:  # Kahn's algorithm: a node runs once every node using it has run
            v = ready.pop()
            v._backward()
            for p in v._parents:  # once per use: u*u counts u twice, where it was counted once
                users[id(p)] -= 1
                if users[id(p)] == 0:
                    ready.append(p)
""",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
        },
    ),
    Mutant(
        name="value_pow_rule_divides_by_x",
        kind="derivative",
        bug="Value.__pow__'s rule is written with the output, k * out.data / x, which divides by zero at x = 0",
        within="Value.__pow__",
        old="self.grad += k * self.data ** (k - 1) * out.grad",
        new="self.grad += k * out.data / self.data * out.grad",
        caught_by={
            "test_engine_operations[pow]",
        },
    ),
    Mutant(
        name="value_tanh_from_exp_overflows",
        kind="stability",
        bug="Value.tanh computes (e**2x - 1) / (e**2x + 1), whose e**2x overflows far from 0",
        within="Value.tanh",
        old="t = math.tanh(self.data)",
        new="e = math.exp(2.0 * self.data)\n        t = (e - 1.0) / (e + 1.0)",
        caught_by={
            "test_engine_operations[tanh]",
        },
    ),
    Mutant(
        name="value_neg_through_rsub",
        kind="recursion",
        bug="Value.__neg__ returns 0.0 - self, whose __rsub__ subtracts through -self again: a recursion without end",
        within="Value.__neg__",
        old="return self * -1.0",
        new="return 0.0 - self",
        caught_by={
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="fit_line_zeroes_w_only",
        kind="reset",
        bug="fit_line's zero_grad resets w.grad and forgets b.grad",
        within="fit_line",
        old="            b.grad = 0.0\n",
        new="",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_zeroes_b_only",
        kind="reset",
        bug="fit_line's zero_grad resets b.grad and forgets w.grad",
        within="fit_line",
        old="            w.grad = 0.0  # clear old gradients before each backward pass\n",
        new="",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="matmul_grads_keeps_integer_dtype",
        kind="type",
        bug="matmul_grads does not convert its inputs to float64: integer matrices give integer gradients",
        within="matmul_grads",
        old="X, W, dY = (np.asarray(a, dtype=np.float64) for a in (X, W, dY))",
        new="X, W, dY = (np.asarray(a) for a in (X, W, dY))",
        caught_by={
            "test_matmul_grads_match_the_numerical_check[1x5x3]",
            "test_matmul_grads_match_the_numerical_check[2x4x4]",
            "test_matmul_grads_match_the_numerical_check[5x3x6]",
            "test_matmul_grads_match_the_numerical_check[lesson_4x3x2]",
        },
    ),
    # -----------------------------------------------------------------------
    # Added later (at the end, so that the chunks keep their members)
    # -----------------------------------------------------------------------
    Mutant(
        name="value_pow_rule_loses_parentheses",
        kind="derivative",
        bug="Value.__pow__'s rule is written k * x ** k - 1 * out.grad: the parentheses of k - 1 left out",
        within="Value.__pow__",
        old="k * self.data ** (k - 1) * out.grad",
        new="k * self.data ** k - 1 * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[div]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[pow]",
            "test_engine_random_graphs",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_radd_recurses",
        kind="recursion",
        bug="Value.__radd__ returns other + self, which calls __radd__ again: a recursion without end",
        within="Value.__radd__",
        old="return self + other",
        new="return other + self",
        caught_by={
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
        },
    ),
    Mutant(
        name="value_rmul_recurses",
        kind="recursion",
        bug="Value.__rmul__ returns other * self, which calls __rmul__ again: a recursion without end",
        within="Value.__rmul__",
        old="return self * other",
        new="return other * self",
        caught_by={
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_random_graphs",
        },
    ),
    Mutant(
        name="value_tanh_rule_loses_parentheses",
        kind="derivative",
        bug="Value.tanh backward writes 1.0 - t * t * out.grad for (1.0 - t * t) * out.grad",
        within="Value.tanh",
        old="self.grad += (1.0 - t * t) * out.grad",
        new="self.grad += 1.0 - t * t * out.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_two_layer_tanh",
        },
    ),
    Mutant(
        name="value_relu_rule_loses_parentheses",
        kind="chain_rule",
        bug="Value.relu backward writes 1.0 if self.data > 0 else 0.0 * out.grad: where x > 0, out.grad is left out",
        within="Value.relu",
        old="self.grad += (1.0 if self.data > 0 else 0.0) * out.grad",
        new="self.grad += 1.0 if self.data > 0 else 0.0 * out.grad",
        caught_by={
            "test_engine_random_graphs",
        },
    ),
    Mutant(
        name="value_tanh_from_exp_minus_2x_overflows",
        kind="stability",
        bug="Value.tanh computes (1 - e**-2x) / (1 + e**-2x), whose e**-2x overflows far below 0",
        within="Value.tanh",
        old="t = math.tanh(self.data)",
        new="e = math.exp(-2.0 * self.data)\n        t = (1.0 - e) / (1.0 + e)",
        caught_by={
            "test_engine_operations[tanh]",
        },
    ),
    Mutant(
        name="value_tanh_from_sinh_and_cosh_overflows",
        kind="stability",
        bug="Value.tanh computes (e**x - e**-x) / (e**x + e**-x), the definition, which overflows beyond |x| = 710",
        within="Value.tanh",
        old="t = math.tanh(self.data)",
        new="ep, em = math.exp(self.data), math.exp(-self.data)\n        t = (ep - em) / (ep + em)",
        caught_by={
            "test_engine_operations[tanh]",
        },
    ),
    Mutant(
        name="value_tanh_rule_sech_squared_overflows",
        kind="stability",
        bug="Value.tanh backward uses the textbook 1 / cosh(x)**2, whose cosh(x) overflows beyond |x| = 710",
        within="Value.tanh",
        old="self.grad += (1.0 - t * t) * out.grad",
        new="self.grad += (1.0 / math.cosh(self.data) ** 2) * out.grad",
        caught_by={
            "test_engine_operations[tanh]",
        },
    ),
    Mutant(
        name="numerical_derivative_copies_into_an_array",
        kind="type",
        bug="numerical_derivative copies args into numpy arrays: from ints, an int array, which stores x + h as x",
        within="numerical_derivative",
        old="up, down = list(args), list(args)",
        new="up, down = np.array(args), np.array(args)",
        caught_by={
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="softmax_shifts_logits_in_place",
        kind="in_place",
        bug="softmax_cross_entropy subtracts the largest logit from each logit's .data in place (v.data -= m)",
        within="softmax_cross_entropy",
        old="exps = [(v - m).exp() for v in logits]",
        new="for v in logits:\n        v.data -= m  # a constant shift\n    exps = [v.exp() for v in logits]",
        caught_by={
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="fit_line_update_rebinds_parameters",
        kind="loop",
        bug="fit_line updates w = w - lr * w.grad: w is then a node computed from others, whose grad backward resets",
        within="fit_line",
        old="w.data -= lr * w.grad\n        b.data -= lr * b.grad",
        new="w = w - lr * w.grad\n        b = b - lr * b.grad",
        caught_by={
            "test_fit_line_without_zeroing_keeps_overshooting",
        },
    ),
    Mutant(
        name="numerical_derivative_default_h_1e5",
        kind="numeric",
        bug="numerical_derivative's default h is 1e-5 (CS231n's) instead of the handout's 1e-6",
        within="numerical_derivative",
        old="def numerical_derivative(f, args, i, h=1e-6):",
        new="def numerical_derivative(f, args, i, h=1e-5):",
        caught_by={
            "test_numerical_derivative_is_central",
        },
    ),
    Mutant(
        name="numerical_derivative_default_h_1e4",
        kind="numeric",
        bug="numerical_derivative's default h is 1e-4 instead of the handout's 1e-6",
        within="numerical_derivative",
        old="def numerical_derivative(f, args, i, h=1e-6):",
        new="def numerical_derivative(f, args, i, h=1e-4):",
        caught_by={
            "test_numerical_derivative_is_central",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numerical_derivative_one_list_for_both_nudges",
        kind="alias",
        bug="numerical_derivative writes up = down = list(args): one list, nudged up and back, so the estimate is 0",
        within="numerical_derivative",
        old="up, down = list(args), list(args)",
        new="up = down = list(args)",
        caught_by={
            "test_numerical_derivative_agrees_with_the_engine",
            "test_numerical_derivative_is_central",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numerical_derivative_steps_back_to_x",
        kind="numeric",
        bug="numerical_derivative nudges one list by +h, then by -h, which is x again: (f(x + h) - f(x)) / (2h)",
        within="numerical_derivative",
        old=(
            "    up, down = list(args), list(args)\n"
            "    up[i] += h\n"
            "    down[i] -= h\n"
            "    return float((f(*up) - f(*down)) / (2 * h))"
        ),
        new=(
            "    nudged = list(args)\n"
            "    nudged[i] += h\n"
            "    plus = f(*nudged)\n"
            "    nudged[i] -= h\n"
            "    minus = f(*nudged)\n"
            "    return float((plus - minus) / (2 * h))"
        ),
        caught_by={
            "test_numerical_derivative_agrees_with_the_engine",
            "test_numerical_derivative_is_central",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="numerical_derivative_scales_h_by_x",
        kind="numeric",
        bug="numerical_derivative scales h by max(1, |x|), a relative step the handout does not ask for",
        within="numerical_derivative",
        old="    up, down = list(args), list(args)\n    up[i] += h",
        new="    up, down = list(args), list(args)\n    h = h * max(1.0, abs(args[i]))\n    up[i] += h",
        caught_by={
            "test_numerical_derivative_is_central",
        },
    ),
    Mutant(
        name="numerical_derivative_passes_the_list",
        kind="call_form",
        bug="numerical_derivative calls f(up) instead of f(*up): f gets one list, not the numbers",
        within="numerical_derivative",
        old="return float((f(*up) - f(*down)) / (2 * h))",
        new="return float((f(up) - f(down)) / (2 * h))",
        caught_by={
            "test_numerical_derivative_agrees_with_the_engine",
            "test_numerical_derivative_is_central",
            "test_numerical_derivative_picks_argument_i_and_leaves_args_alone",
        },
    ),
    Mutant(
        name="value_mul_rule_divides_the_output",
        kind="derivative",
        bug="Value.__mul__'s rule is written as out.data / x, which divides by zero where an operand is 0",
        within="Value.__mul__",
        old=(
            "            self.grad += other.data * out.grad  # d(out)/d(self) = other\n"
            "            other.grad += self.data * out.grad"
        ),
        new=(
            "            self.grad += out.data / self.data * out.grad  # d(out)/d(self) = other\n"
            "            other.grad += out.data / other.data * out.grad"
        ),
        caught_by={
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_random_graphs",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_numerical_derivative_agrees_with_the_engine",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="value_add_passes_self_grad_to_other",
        kind="chain_rule",
        bug="Value.__add__ gives other self.grad (other.grad += self.grad), all that self has gathered, not out.grad",
        within="Value.__add__",
        old="            other.grad += out.grad",
        new="            other.grad += self.grad",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="value_backward_skips_the_output_s_rule",
        kind="order",
        bug="Value.backward walks reversed(order[:-1]): the output's own rule never runs",
        within="Value.backward",
        old="for v in reversed(order):",
        new="for v in reversed(order[:-1]):",
        caught_by={
            "test_engine_adds_the_contributions_of_a_repeated_number",
            "test_engine_leaf_gradients_add_up_across_backward_passes",
            "test_engine_neuron_matches_finite_differences_to_six_places",
            "test_engine_operations[div]",
            "test_engine_operations[exp]",
            "test_engine_operations[log]",
            "test_engine_operations[neg_sub]",
            "test_engine_operations[numbers_on_the_left]",
            "test_engine_operations[numbers_on_the_right]",
            "test_engine_operations[pow]",
            "test_engine_operations[tanh]",
            "test_engine_random_graphs",
            "test_engine_relu[x=-2]",
            "test_engine_relu[x=0.5]",
            "test_engine_relu[x=0]",
            "test_engine_reproduces_the_lessons_graph",
            "test_engine_two_layer_tanh",
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_numerical_derivative_agrees_with_the_engine",
            "test_rates_0238_and_024_both_diverge",
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="softmax_log_sum_exp_without_the_shift",
        kind="stability",
        bug="softmax_cross_entropy computes the loss as log(sum(exp(z - m))) - z[target], the m left out",
        within="softmax_cross_entropy",
        old="loss = -(probs[target].log())",
        new="loss = total.log() - logits[target]",
        caught_by={
            "test_softmax_gradient_is_probabilities_minus_one_hot[0]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[3]",
            "test_softmax_gradient_is_probabilities_minus_one_hot[4]",
            "test_softmax_is_stable_for_large_logits",
            "test_softmax_reproduces_the_lesson",
        },
    ),
    Mutant(
        name="max_stable_lr_squares_the_sum",
        kind="eigenvalue",
        bug="max_stable_lr puts (\u03a3x)\u00b2 where the Hessian's w-w entry holds \u03a3x\u00b2",
        within="max_stable_lr",
        old="[[np.sum(x * x), np.sum(x)]",
        new="[[np.sum(x) ** 2, np.sum(x)]",
        caught_by={
            "test_max_stable_lr",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="max_stable_lr_takes_n_as_4",
        kind="eigenvalue",
        bug="max_stable_lr takes n = 4, the lesson's four points, whatever the data",
        within="max_stable_lr",
        old="n = len(x)",
        new="n = 4",
        caught_by={
            "test_max_stable_lr",
        },
    ),
    Mutant(
        name="fit_line_update_divided_by_n_again",
        kind="factor",
        bug="fit_line's update divides lr * grad by n again, although the gradient of the mean holds its 1/n",
        within="fit_line",
        old="        w.data -= lr * w.grad\n        b.data -= lr * b.grad",
        new="        w.data -= lr * w.grad / len(xs)\n        b.data -= lr * b.grad / len(xs)",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
            "test_learning_rate_table[0.001]",
            "test_learning_rate_table[0.01]",
            "test_learning_rate_table[0.05]",
            "test_learning_rate_table[0.1]",
            "test_learning_rate_table[0.2]",
            "test_learning_rate_table[0.3]",
            "test_rates_0238_and_024_both_diverge",
            "test_the_ceiling_separates_convergence_from_divergence",
        },
    ),
    Mutant(
        name="fit_line_error_without_parentheses",
        kind="sign",
        bug="fit_line's error is written y - w * x + b, the parentheses of y - (w * x + b) lost: b's sign flips",
        within="fit_line",
        old="err = w * x + b - y",
        new="err = y - w * x + b",
        caught_by={
            "test_fit_line_on_noisy_points_reaches_the_least_squares_line",
            "test_fit_line_reproduces_the_lessons_table",
            "test_fit_line_without_zeroing_keeps_overshooting",
        },
    ),
    Mutant(
        name="value_backward_resets_each_gradient_after_its_rule",
        kind="reset",
        bug=(
            "Value.backward zeroes each intermediate's gradient right after its rule runs (to clean up for the next "
            "pass): the output's and the intermediates' gradients read 0"
        ),
        within="Value.backward",
        old=(
            "        for v in order:\n"
            "            if v._parents:  # intermediate nodes start from zero on every pass\n"
            "                v.grad = 0.0\n"
            "        self.grad += 1.0  # d(output)/d(output) = 1\n"
            "        for v in reversed(order):  # walk backwards from the output\n"
            "            v._backward()"
        ),
        new=(
            "        self.grad = 1.0  # d(output)/d(output) = 1\n"
            "        for v in reversed(order):  # walk backwards from the output\n"
            "            v._backward()\n"
            "            if v._parents:  # clean up for the next pass\n"
            "                v.grad = 0.0"
        ),
        caught_by={
            "test_engine_reproduces_the_lessons_graph",
        },
    ),
]

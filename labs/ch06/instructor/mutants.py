"""Realistic student bugs in lab ch06, each with the lab tests that catch it."""

from tests.mutation import Mutant

MUTANTS = [
    # -----------------------------------------------------------------------
    # Value: construction
    # -----------------------------------------------------------------------
    Mutant(
        name="value_data_not_float",
        kind="type",
        bug="Value.__init__ stores data as given, so Value(3).data is the int 3",
        within="Value.__init__",
        old="self.data = float(data)",
        new="self.data = data",
        caught_by={
            "test_value_stores_float_data_and_zero_grad",
        },
    ),
    Mutant(
        name="value_grad_starts_as_int",
        kind="type",
        bug="Value.__init__ starts grad at the int 0 instead of the float 0.0",
        within="Value.__init__",
        old="self.grad = 0.0",
        new="self.grad = 0",
        caught_by={
            "test_value_random_graphs",
            "test_value_relu_gradient_is_zero_at_zero",
            "test_value_stores_float_data_and_zero_grad",
            "test_value_unary_functions[relu_negative]",
        },
    ),
    # -----------------------------------------------------------------------
    # Value: local derivatives
    # -----------------------------------------------------------------------
    Mutant(
        name="value_add_assigns_gradient",
        kind="overwrite",
        bug="Value.__add__ assigns the gradient (=) instead of accumulating it (+=)",
        within="Value.__add__",
        old="self.grad += out.grad",
        new="self.grad = out.grad",
        caught_by={
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_mul_assigns_gradient",
        kind="overwrite",
        bug="Value.__mul__ assigns the right operand's gradient instead of accumulating it",
        within="Value.__mul__",
        old="other.grad += self.data * out.grad",
        new="other.grad = self.data * out.grad",
        caught_by={
            "test_value_diamond_needs_topological_order",
            "test_value_random_graphs",
            "test_value_second_backward_accumulates_leaves_only",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_mul_uses_own_factor",
        kind="other_operand",
        bug="Value.__mul__ multiplies each operand's gradient by its own value instead of the other factor",
        within="Value.__mul__",
        old="self.grad += other.data * out.grad",
        new="self.grad += self.data * out.grad",
        caught_by={
            "test_exercise_a_tanh_neuron",
            "test_value_arithmetic_and_reflected_operators[div]",
            "test_value_arithmetic_and_reflected_operators[minus_number]",
            "test_value_arithmetic_and_reflected_operators[mul]",
            "test_value_arithmetic_and_reflected_operators[number_minus]",
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_arithmetic_and_reflected_operators[number_plus]",
            "test_value_arithmetic_and_reflected_operators[number_times]",
            "test_value_arithmetic_and_reflected_operators[over_number]",
            "test_value_arithmetic_and_reflected_operators[sub]",
            "test_value_diamond_needs_topological_order",
            "test_value_hand_derived_gradients",
            "test_value_random_graphs",
            "test_value_unary_functions[chain]",
            "test_value_unary_functions[neg]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_pow_exponent_not_decremented",
        kind="derivative",
        bug="Value.__pow__ backward uses k * x**k instead of k * x**(k - 1)",
        within="Value.__pow__",
        old="self.grad += k * self.data ** (k - 1) * out.grad",
        new="self.grad += k * self.data**k * out.grad",
        caught_by={
            "test_value_arithmetic_and_reflected_operators[div]",
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_hand_derived_gradients",
            "test_value_random_graphs",
            "test_value_unary_functions[pow_3]",
            "test_value_unary_functions[pow_half]",
            "test_value_unary_functions[pow_negative]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_exp_forgets_upstream",
        kind="chain_rule",
        bug="Value.exp backward adds exp(x) without multiplying by out.grad (chain rule forgotten)",
        within="Value.exp",
        old="self.grad += out.data * out.grad",
        new="self.grad += out.data",
        caught_by={
            "test_value_random_graphs",
            "test_value_unary_functions[chain]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_exp_assigns_gradient",
        kind="overwrite",
        bug="Value.exp assigns its gradient instead of accumulating it",
        within="Value.exp",
        old="self.grad += out.data * out.grad",
        new="self.grad = out.data * out.grad",
        caught_by={
            "test_value_random_graphs",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_log_divides_by_output",
        kind="derivative",
        bug="Value.log backward divides by log(x) (the output) instead of x",
        within="Value.log",
        old="self.grad += out.grad / self.data",
        new="self.grad += out.grad / out.data",
        caught_by={
            "test_value_random_graphs",
            "test_value_unary_functions[chain]",
            "test_value_unary_functions[log]",
            "test_value_used_twice_gets_both_contributions",
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
            "test_exercise_a_tanh_neuron",
            "test_value_random_graphs",
            "test_value_unary_functions[chain]",
            "test_value_unary_functions[tanh]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_tanh_derivative_is_t",
        kind="derivative",
        bug="Value.tanh backward uses t instead of 1 - t*t",
        within="Value.tanh",
        old="self.grad += (1.0 - t * t) * out.grad",
        new="self.grad += t * out.grad",
        caught_by={
            "test_exercise_a_tanh_neuron",
            "test_value_random_graphs",
            "test_value_unary_functions[chain]",
            "test_value_unary_functions[tanh]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_relu_passes_at_zero",
        kind="derivative",
        bug="Value.relu passes the gradient where x >= 0, so relu'(0) is 1",
        within="Value.relu",
        old="if self.data > 0:",
        new="if self.data >= 0:",
        caught_by={
            "test_value_relu_gradient_is_zero_at_zero",
        },
    ),
    Mutant(
        name="value_relu_multiplies_by_output",
        kind="derivative",
        bug="Value.relu backward multiplies by the output (as for exp) instead of passing the gradient",
        within="Value.relu",
        old="self.grad += out.grad",
        new="self.grad += out.data * out.grad",
        caught_by={
            "test_value_random_graphs",
            "test_value_unary_functions[relu_positive]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_neg_detached",
        kind="detached",
        bug="Value.__neg__ returns a fresh Value(-x), outside the graph",
        within="Value.__neg__",
        old="return self * -1.0",
        new="return Value(-self.data)",
        caught_by={
            "test_value_arithmetic_and_reflected_operators[number_minus]",
            "test_value_arithmetic_and_reflected_operators[sub]",
            "test_value_random_graphs",
            "test_value_unary_functions[neg]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_div_wrong_sign",
        kind="sign",
        bug="Value.__truediv__ with its own backward rule: d(a/b)/db = +a/b**2 (sign lost)",
        within="Value.__truediv__",
        old="return self * other**-1",
        new="""out = Value(self.data / other.data, (self, other), "/")

        def backward():
            self.grad += out.grad / other.data
            other.grad += self.data / other.data**2 * out.grad

        out._backward = backward
        return out""",
        caught_by={
            "test_value_arithmetic_and_reflected_operators[div]",
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_random_graphs",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_rsub_swapped",
        kind="reflected",
        bug="Value.__rsub__ computes self - other, so 2 - x is x - 2",
        within="Value.__rsub__",
        old="return Value(other) - self",
        new="return self - other",
        caught_by={
            "test_value_arithmetic_and_reflected_operators[number_minus]",
            "test_value_random_graphs",
        },
    ),
    Mutant(
        name="value_rtruediv_swapped",
        kind="reflected",
        bug="Value.__rtruediv__ computes self / other, so 2 / x is x / 2",
        within="Value.__rtruediv__",
        old="return Value(other) / self",
        new="return self / other",
        caught_by={
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_random_graphs",
        },
    ),
    Mutant(
        name="value_pow_accepts_value_exponent",
        kind="raises",
        bug="Value.__pow__ unwraps a Value exponent instead of rejecting it (its gradient would be lost)",
        within="Value.__pow__",
        old="""if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError(f"Value ** k needs a constant int or float k, got {type(k).__name__}")""",
        new="""if isinstance(k, Value):
            k = k.data""",
        caught_by={
            "test_value_pow_rejects_a_variable_exponent",
        },
    ),
    # -----------------------------------------------------------------------
    # Value: backward()
    # -----------------------------------------------------------------------
    Mutant(
        name="value_backward_runs_in_discovery_order",
        kind="order",
        bug="Value.backward appends a node before its parents (pre-order), so a node can run before all its "
        "consumers have contributed",
        within="Value.backward",
        old="""                for p in v._parents:
                    visit(p)
                order.append(v)""",
        new="""                order.append(v)
                for p in v._parents:
                    visit(p)""",
        caught_by={
            "test_exercise_a_tanh_neuron",
            "test_value_arithmetic_and_reflected_operators[div]",
            "test_value_arithmetic_and_reflected_operators[minus_number]",
            "test_value_arithmetic_and_reflected_operators[number_minus]",
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_arithmetic_and_reflected_operators[number_plus]",
            "test_value_arithmetic_and_reflected_operators[number_times]",
            "test_value_arithmetic_and_reflected_operators[over_number]",
            "test_value_arithmetic_and_reflected_operators[sub]",
            "test_value_diamond_needs_topological_order",
            "test_value_hand_derived_gradients",
            "test_value_random_graphs",
            "test_value_second_backward_accumulates_leaves_only",
            "test_value_unary_functions[chain]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_backward_no_visited_set",
        kind="visited",
        bug="Value.backward's depth-first search has no visited set, so a shared node runs once per path",
        within="Value.backward",
        old="""            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    visit(p)
                order.append(v)""",
        new="""            for p in v._parents:
                visit(p)
            order.append(v)""",
        caught_by={
            "test_value_diamond_needs_topological_order",
            "test_value_random_graphs",
        },
    ),
    Mutant(
        name="value_backward_not_reversed",
        kind="order",
        bug="Value.backward runs the rules in topological order (inputs first) instead of reversed",
        within="Value.backward",
        old="for v in reversed(order):",
        new="for v in order:",
        caught_by={
            "test_exercise_a_tanh_neuron",
            "test_value_arithmetic_and_reflected_operators[div]",
            "test_value_arithmetic_and_reflected_operators[minus_number]",
            "test_value_arithmetic_and_reflected_operators[number_minus]",
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_arithmetic_and_reflected_operators[number_plus]",
            "test_value_arithmetic_and_reflected_operators[number_times]",
            "test_value_arithmetic_and_reflected_operators[over_number]",
            "test_value_arithmetic_and_reflected_operators[sub]",
            "test_value_diamond_needs_topological_order",
            "test_value_hand_derived_gradients",
            "test_value_random_graphs",
            "test_value_second_backward_accumulates_leaves_only",
            "test_value_unary_functions[chain]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_backward_no_reset",
        kind="reset",
        bug="Value.backward never resets intermediate gradients, so a second call counts the first again",
        within="Value.backward",
        old="""        for v in order:
            if v._parents:  # intermediate results are recomputed from scratch on each call
                v.grad = 0.0
""",
        new="",
        caught_by={
            "test_value_second_backward_accumulates_leaves_only",
        },
    ),
    Mutant(
        name="value_backward_resets_leaves",
        kind="reset",
        bug="Value.backward zeroes every node's gradient, leaves included, so leaves do not accumulate",
        within="Value.backward",
        old="""            if v._parents:  # intermediate results are recomputed from scratch on each call
                v.grad = 0.0""",
        new="""            v.grad = 0.0""",
        caught_by={
            "test_value_second_backward_accumulates_leaves_only",
        },
    ),
    Mutant(
        name="value_backward_no_seed",
        kind="seed",
        bug="Value.backward forgets to seed the output's gradient with 1",
        within="Value.backward",
        old="self.grad += 1.0",
        new="pass",
        caught_by={
            "test_exercise_a_tanh_neuron",
            "test_value_arithmetic_and_reflected_operators[add]",
            "test_value_arithmetic_and_reflected_operators[div]",
            "test_value_arithmetic_and_reflected_operators[minus_number]",
            "test_value_arithmetic_and_reflected_operators[mul]",
            "test_value_arithmetic_and_reflected_operators[number_minus]",
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_arithmetic_and_reflected_operators[number_plus]",
            "test_value_arithmetic_and_reflected_operators[number_times]",
            "test_value_arithmetic_and_reflected_operators[over_number]",
            "test_value_arithmetic_and_reflected_operators[sub]",
            "test_value_diamond_needs_topological_order",
            "test_value_hand_derived_gradients",
            "test_value_random_graphs",
            "test_value_second_backward_accumulates_leaves_only",
            "test_value_unary_functions[chain]",
            "test_value_unary_functions[exp]",
            "test_value_unary_functions[log]",
            "test_value_unary_functions[neg]",
            "test_value_unary_functions[pow_3]",
            "test_value_unary_functions[pow_half]",
            "test_value_unary_functions[pow_negative]",
            "test_value_unary_functions[relu_positive]",
            "test_value_unary_functions[tanh]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    # -----------------------------------------------------------------------
    # Tensor: construction
    # -----------------------------------------------------------------------
    Mutant(
        name="tensor_data_keeps_input_dtype",
        kind="type",
        bug="Tensor.__init__ keeps the input's dtype, so Tensor([[1, 2]]) holds ints",
        within="Tensor.__init__",
        old="else np.array(data, dtype=np.float64)",
        new="else np.array(data)",
        caught_by={
            "test_tensor_construction",
        },
    ),
    Mutant(
        name="tensor_grad_zeros_like_raw_data",
        kind="type",
        bug="Tensor.__init__ makes grad with np.zeros_like(data) on the raw input, so an int input gets an int grad",
        within="Tensor.__init__",
        old="else np.zeros(self.data.shape)",
        new="else np.zeros_like(data)",
        caught_by={
            "test_tensor_construction",
        },
    ),
    Mutant(
        name="tensor_grad_starts_as_scalar",
        kind="type",
        bug="Tensor.__init__ starts grad at the float 0.0 instead of zeros of the data's shape",
        within="Tensor.__init__",
        old="else np.zeros(self.data.shape)",
        new="else 0.0",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
            "test_deep_graph_does_not_recurse",
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_tensor_construction",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_random_graphs",
        },
    ),
    # -----------------------------------------------------------------------
    # Tensor: broadcasting and elementwise rules
    # -----------------------------------------------------------------------
    Mutant(
        # A copy, as a student's engine has it: there each result's gradient is its own array, where the
        # reference's may be its consumer's (Tensor._receive), which a leaf assigned it would then share.
        name="tensor_add_assigns_gradient",
        kind="overwrite",
        bug="Tensor.__add__ assigns the left operand's gradient instead of accumulating it",
        within="Tensor.__add__",
        old="self._receive(_unbroadcast(grad, self.shape))",
        new="self.grad = _unbroadcast(grad, self.shape).copy()",
        caught_by={
            "test_deep_graph_does_not_recurse",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
        },
    ),
    Mutant(
        name="tensor_mul_assigns_gradient",
        kind="overwrite",
        bug="Tensor.__mul__ assigns the right operand's gradient instead of accumulating it",
        within="Tensor.__mul__",
        old="other._receive(_unbroadcast(grad * self.data, other.shape))",
        new="other.grad = _unbroadcast(grad * self.data, other.shape)",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
        },
    ),
    Mutant(
        name="tensor_pow_assigns_gradient",
        kind="overwrite",
        bug="Tensor.__pow__ assigns its gradient instead of accumulating it",
        within="Tensor.__pow__",
        old="self._receive(k * self.data ** (k - 1) * grad)",
        new="self.grad = k * self.data ** (k - 1) * grad",
        caught_by={
            "test_tensor_gradcheck[pow]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_tanh_assigns_gradient",
        kind="overwrite",
        bug="Tensor.tanh assigns its gradient instead of accumulating it (it once passed every test: a reuse case "
        "now puts tanh after another use of x)",
        within="Tensor.tanh",
        old="self._receive(grad * (1.0 - t * t))",
        new="self.grad = grad * (1.0 - t * t)",
        caught_by={
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
        },
    ),
    Mutant(
        name="value_tanh_assigns_gradient",
        kind="overwrite",
        bug="Value.tanh assigns its gradient instead of accumulating it",
        within="Value.tanh",
        old="self.grad += (1.0 - t * t) * out.grad",
        new="self.grad = (1.0 - t * t) * out.grad",
        caught_by={
            "test_value_random_graphs",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="tensor_add_no_unbroadcast_other",
        kind="unbroadcast",
        bug="Tensor.__add__ adds out.grad to the right operand without unbroadcasting it",
        within="Tensor.__add__",
        old="other._receive(_unbroadcast(grad, other.shape))",
        new="other._receive(grad)",
        caught_by={
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_add_unbroadcasts_to_wrong_shape",
        kind="unbroadcast",
        bug="Tensor.__add__ unbroadcasts the right operand's gradient to the left operand's shape (copy-paste)",
        within="Tensor.__add__",
        old="other._receive(_unbroadcast(grad, other.shape))",
        new="other._receive(_unbroadcast(grad, self.shape))",
        caught_by={
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_sub_forgets_minus",
        kind="sign",
        bug="Tensor.__sub__ adds the gradient into the right operand instead of subtracting it (d(a - b)/db = -1)",
        within="Tensor.__sub__",
        old="other._receive(-_unbroadcast(grad, other.shape))",
        new="other._receive(_unbroadcast(grad, other.shape))",
        caught_by={
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
        },
    ),
    Mutant(
        name="tensor_sub_negates_left_operand",
        kind="sign",
        bug="Tensor.__sub__ subtracts the gradient from the left operand too (d(a - b)/da is +1)",
        within="Tensor.__sub__",
        old="self._receive(_unbroadcast(grad, self.shape))",
        new="self._receive(-_unbroadcast(grad, self.shape))",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_sub_no_unbroadcast_other",
        kind="unbroadcast",
        bug="Tensor.__sub__ subtracts out.grad from the right operand's gradient without unbroadcasting it",
        within="Tensor.__sub__",
        old="other._receive(-_unbroadcast(grad, other.shape))",
        new="other._receive(-grad)",
        caught_by={
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="tensor_mul_guard_checks_other_operand",
        kind="guard",
        # x * 2.0 passes x nothing: so does a `*` outside the graph, and so does seeding the output only
        # after the steps; the first failure (the explicit-seed test) has no intermediate to tell them apart.
        bug="Tensor.__mul__ asks whether the other operand needs a gradient before computing self's (copy-paste), "
        "so x * 2.0 passes x nothing",
        within="Tensor.__mul__",
        old="if self.requires_grad:",
        new="if isinstance(other, Tensor) and other.requires_grad:",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_backward_with_explicit_seed",
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_b_division",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_mul_no_unbroadcast_self",
        kind="unbroadcast",
        bug="Tensor.__mul__ adds the left operand's gradient without unbroadcasting it",
        within="Tensor.__mul__",
        old="self._receive(_unbroadcast(grad * other_data, self.shape))",
        new="self._receive(grad * other_data)",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="tensor_pow_forgets_factor_k",
        kind="factor",
        bug="Tensor.__pow__ backward uses x**(k - 1) without the factor k",
        within="Tensor.__pow__",
        old="self._receive(k * self.data ** (k - 1) * grad)",
        new="self._receive(self.data ** (k - 1) * grad)",
        caught_by={
            "test_exercise_b_division",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_div_forgets_square",
        kind="derivative",
        bug="Tensor.__truediv__ with its own backward rule: d(a/b)/db = -a/b instead of -a/b**2",
        within="Tensor.__truediv__",
        old="""if not isinstance(other, Tensor):
            return self * (1.0 / np.array(other, dtype=np.float64))  # a constant: one node, not two
        return self * other**-1""",
        new="""other = Tensor._lift(other)
        out = Tensor(self.data / other.data, (self, other), "/")

        def backward(grad):
            self._receive(_unbroadcast(grad / other.data, self.shape))
            other._receive(_unbroadcast(-grad * self.data / other.data, other.shape))

        out._backward = backward
        return out""",
        caught_by={
            "test_exercise_b_division",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
        },
    ),
    Mutant(
        name="tensor_neg_detached",
        kind="detached",
        # Its first failure, neg_and_numbers, is composite: `-a` detached, `2.0 - ...` detached or
        # guarded by the wrong operand, `*` assigning with `=` all give these numbers. The hint says
        # it cannot tell.
        named=False,
        bug="Tensor.__neg__ returns a fresh Tensor(-x), outside the graph",
        within="Tensor.__neg__",
        old="return self * -1.0",
        new="return Tensor(-self.data)",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="tensor_rtruediv_swapped",
        kind="reflected",
        bug="Tensor.__rtruediv__ computes self / other, so 1 / t is t / 1",
        within="Tensor.__rtruediv__",
        old="return Tensor._lift(other) / self",
        new="return self / other",
        caught_by={
            "test_tensor_gradcheck[neg_and_numbers]",
        },
    ),
    Mutant(
        name="tensor_rsub_swapped",
        kind="reflected",
        bug="Tensor.__rsub__ computes self - other, so 2.0 - t is t - 2.0",
        within="Tensor.__rsub__",
        old="return Tensor._lift(other) - self",
        new="return self - other",
        caught_by={
            "test_tensor_gradcheck[neg_and_numbers]",
        },
    ),
    Mutant(
        name="tensor_exp_uses_input",
        kind="derivative",
        bug="Tensor.exp backward multiplies by x instead of exp(x)",
        within="Tensor.exp",
        old="self._receive(grad * e)",
        new="self._receive(grad * self.data)",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[exp]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
        },
    ),
    Mutant(
        name="tensor_log_multiplies_by_input",
        kind="derivative",
        bug="Tensor.log backward multiplies by x instead of dividing",
        within="Tensor.log",
        old="self._receive(grad / self.data)",
        new="self._receive(grad * self.data)",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[log]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
        },
    ),
    Mutant(
        name="tensor_tanh_uses_input",
        kind="derivative",
        bug="Tensor.tanh backward uses 1 - x**2 (the input) instead of 1 - tanh(x)**2",
        within="Tensor.tanh",
        old="self._receive(grad * (1.0 - t * t))",
        new="self._receive(grad * (1.0 - self.data * self.data))",
        caught_by={
            "test_gradcheck_accepts_correct_gradients",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_relu_passes_at_zero",
        kind="derivative",
        bug="Tensor.relu passes the gradient where x >= 0, so relu'(0) is 1",
        within="Tensor.relu",
        old="positive = self.data > 0",
        new="positive = self.data >= 0",
        caught_by={
            "test_tensor_relu_gradient_is_zero_at_zero",
        },
    ),
    Mutant(
        name="tensor_relu_gradient_from_output",
        kind="derivative",
        bug="Tensor.relu backward multiplies by the output relu(x) instead of the step 1[x > 0]",
        within="Tensor.relu",
        old="self._receive(grad * positive)",
        new="self._receive(grad * out.data)",
        caught_by={
            "test_tensor_gradcheck[relu]",
            "test_tensor_random_graphs",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_sigmoid_forgets_upstream",
        kind="chain_rule",
        bug="Tensor.sigmoid backward adds s * (1 - s) without multiplying by out.grad",
        within="Tensor.sigmoid",
        old="self._receive(grad * s * (1.0 - s))",
        new="self._receive(s * (1.0 - s))",
        caught_by={
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
        },
    ),
    Mutant(
        name="tensor_sigmoid_derivative_of_input",
        kind="derivative",
        bug="Tensor.sigmoid backward uses x * (1 - x) (the input) instead of s * (1 - s)",
        within="Tensor.sigmoid",
        old="self._receive(grad * s * (1.0 - s))",
        new="self._receive(grad * self.data * (1.0 - self.data))",
        caught_by={
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
        },
    ),
    # -----------------------------------------------------------------------
    # Tensor: _unbroadcast
    # -----------------------------------------------------------------------
    Mutant(
        name="unbroadcast_leading_axes_only",
        kind="unbroadcast",
        bug="_unbroadcast sums away the extra leading axes but not the stretched size-1 axes",
        within="_unbroadcast",
        old="""    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
""",
        new="",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="unbroadcast_size_one_axes_only",
        kind="unbroadcast",
        bug="_unbroadcast sums the stretched size-1 axes but not the extra leading axes",
        within="_unbroadcast",
        old="""    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
""",
        new="",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="unbroadcast_drops_size_one_axes",
        kind="unbroadcast",
        bug="_unbroadcast sums a stretched axis without keepdims, so the size-1 axis disappears",
        within="_unbroadcast",
        old="grad = grad.sum(axis=axis, keepdims=True)",
        new="grad = grad.sum(axis=axis)",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="unbroadcast_pads_on_the_right",
        kind="unbroadcast",
        bug="_unbroadcast sums the extra axes at the end, as if broadcasting padded shapes on the right",
        within="_unbroadcast",
        old="grad = grad.sum(axis=0)",
        new="grad = grad.sum(axis=-1)",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    # -----------------------------------------------------------------------
    # Tensor: matmul
    # -----------------------------------------------------------------------
    Mutant(
        name="matmul_missing_transpose",
        kind="transpose",
        bug="Tensor.__matmul__ backward computes dA = dC @ B instead of dC @ B^T",
        within="Tensor.__matmul__",
        old="np.matmul(grad, other.data.swapaxes(-1, -2))",
        new="np.matmul(grad, other.data)",
        caught_by={
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="matmul_dot_T_reverses_all_axes",
        kind="transpose",
        bug="Tensor.__matmul__ backward transposes A with .T, which reverses every axis of a batch",
        within="Tensor.__matmul__",
        old="self.data.swapaxes(-1, -2)",
        new="self.data.T",
        caught_by={
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
        },
    ),
    Mutant(
        name="matmul_dot_T_on_the_right_operand",
        kind="transpose",
        bug="Tensor.__matmul__ backward computes dA = dC @ B.T, which reverses every axis of a batch of B",
        within="Tensor.__matmul__",
        old="np.matmul(grad, other.data.swapaxes(-1, -2))",
        new="np.matmul(grad, other.data.T)",
        caught_by={
            "test_matmul_broadcasts_leading_axes",
        },
    ),
    Mutant(
        name="matmul_no_unbroadcast_other",
        kind="unbroadcast",
        bug="Tensor.__matmul__ does not sum a shared weight's gradient over the batch axes",
        within="Tensor.__matmul__",
        old="other._receive(_unbroadcast(np.matmul(self.data.swapaxes(-1, -2), grad), other.shape))",
        new="other._receive(np.matmul(self.data.swapaxes(-1, -2), grad))",
        caught_by={
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
        },
    ),
    Mutant(
        name="matmul_accepts_vectors",
        kind="raises",
        bug="Tensor.__matmul__ does not check that both operands have at least 2 axes",
        within="Tensor.__matmul__",
        old="""        if self.ndim < 2 or other.ndim < 2:
            raise ValueError(f"@ needs operands with at least 2 axes, got {self.shape} and {other.shape}")
""",
        new="",
        caught_by={
            "test_matmul_rejects_operands_with_fewer_than_two_axes",
        },
    ),
    Mutant(
        name="matmul_checks_left_operand_only",
        kind="raises",
        bug="Tensor.__matmul__ checks only the left operand's number of axes",
        within="Tensor.__matmul__",
        old="if self.ndim < 2 or other.ndim < 2:",
        new="if self.ndim < 2:",
        caught_by={
            "test_matmul_rejects_operands_with_fewer_than_two_axes",
        },
    ),
    # -----------------------------------------------------------------------
    # Tensor: reductions and shapes
    # -----------------------------------------------------------------------
    Mutant(
        name="sum_backward_no_expand_dims",
        kind="axis",
        bug="Tensor.sum backward broadcasts out.grad without putting the summed axes back (exercise d)",
        within="Tensor.sum",
        old="g = grad if keepdims else np.expand_dims(grad, axes)",
        new="g = grad",
        caught_by={
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="sum_backward_always_expands",
        kind="axis",
        bug="Tensor.sum backward expands the summed axes even when keepdims already kept them",
        within="Tensor.sum",
        old="g = grad if keepdims else np.expand_dims(grad, axes)",
        new="g = np.expand_dims(grad, axes)",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="sum_forward_ignores_keepdims",
        kind="axis",
        bug="Tensor.sum ignores keepdims in the forward pass",
        within="Tensor.sum",
        old="self.data.sum(axis=axes, keepdims=keepdims)",
        new="self.data.sum(axis=axes)",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_shape_operations_forward",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="sum_backward_ignores_upstream",
        kind="chain_rule",
        bug="Tensor.sum backward adds ones (the local derivative) without the gradient from above",
        within="Tensor.sum",
        old="self._receive(g)",
        new="self._receive(np.ones_like(self.data))",
        caught_by={
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="sum_backward_raw_axis",
        kind="axis",
        bug="Tensor.sum backward expands with the raw axis argument, which fails for axis=None",
        within="Tensor.sum",
        old="np.expand_dims(grad, axes)",
        new="np.expand_dims(grad, axis)",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_b_division",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_gradcheck_leaves_inputs_untouched",
            "test_gradcheck_rejects_a_noop_backward_rule",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="mean_divides_by_total_size",
        kind="factor",
        bug="Tensor.mean divides by the tensor's total size instead of the number of reduced entries",
        within="Tensor.mean",
        old="scale = 1.0 / count",
        new="scale = 1.0 / self.data.size",
        caught_by={
            "test_shape_operations_forward",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="mean_counts_last_axis_only",
        kind="factor",
        bug="Tensor.mean overwrites the count for each axis (=) instead of multiplying the sizes",
        within="Tensor.mean",
        old="count *= self.shape[a]",
        new="count = self.shape[a]",
        caught_by={
            "test_shape_operations_forward",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="mean_ignores_keepdims",
        kind="axis",
        bug="Tensor.mean ignores keepdims in the forward pass",
        within="Tensor.mean",
        old="self.data.sum(axis=axes, keepdims=keepdims) * scale",
        new="self.data.sum(axis=axes) * scale",
        caught_by={
            "test_shape_operations_forward",
        },
    ),
    Mutant(
        name="mean_backward_forgets_scale",
        kind="factor",
        bug="Tensor.mean's backward passes the gradient on without the factor 1/N",
        within="Tensor.mean",
        old="self._receive(grad.reshape(kept) * scale)",
        new="self._receive(grad.reshape(kept))",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="mean_backward_no_kept_axes",
        kind="axis",
        bug="Tensor.mean's backward broadcasts the gradient without putting the averaged axes back",
        within="Tensor.mean",
        old="self._receive(grad.reshape(kept) * scale)",
        new="self._receive(grad * scale)",
        caught_by={
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="reshape_rejects_a_tuple",
        kind="call_form",
        bug="Tensor.reshape passes its arguments on as they are, so reshape((2, 3)) fails",
        within="Tensor.reshape",
        old="""        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
""",
        new="",
        caught_by={
            "test_shape_operations_forward",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="reshape_backward_keeps_output_shape",
        kind="reshape_back",
        bug="Tensor.reshape's backward adds the output's gradient as it is, without reshaping it to the input's shape",
        within="Tensor.reshape",
        old="self._receive(grad.reshape(self.shape))",
        new="self._receive(grad)",
        caught_by={
            "test_tensor_gradcheck[reshape]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="transpose_uses_dot_T",
        kind="transpose",
        bug="Tensor.transpose uses .T, which reverses every axis instead of swapping two",
        within="Tensor.transpose",
        old="""        out = Tensor(np.swapaxes(self.data, axis1, axis2), (self,), "transpose")

        def backward(grad):
            self._receive(np.swapaxes(grad, axis1, axis2))""",
        new="""        out = Tensor(self.data.T, (self,), "transpose")

        def backward(grad):
            self._receive(grad.T)""",
        caught_by={
            "test_shape_operations_forward",
            "test_tensor_gradcheck[transpose]",
        },
    ),
    Mutant(
        name="transpose_ignores_its_arguments",
        kind="transpose",
        bug="Tensor.transpose always swaps the last two axes, whatever axes it is given",
        within="Tensor.transpose",
        old="""        out = Tensor(np.swapaxes(self.data, axis1, axis2), (self,), "transpose")

        def backward(grad):
            self._receive(np.swapaxes(grad, axis1, axis2))""",
        new="""        out = Tensor(np.swapaxes(self.data, -2, -1), (self,), "transpose")

        def backward(grad):
            self._receive(np.swapaxes(grad, -2, -1))""",
        caught_by={
            "test_shape_operations_forward",
            "test_tensor_gradcheck[transpose]",
        },
    ),
    Mutant(
        name="transpose_backward_uses_dot_T",
        kind="transpose",
        bug="Tensor.transpose backward transposes the gradient with .T instead of swapping the same two axes",
        within="Tensor.transpose",
        old="self._receive(np.swapaxes(grad, axis1, axis2))",
        new="self._receive(grad.T)",
        caught_by={
            "test_tensor_gradcheck[transpose]",
        },
    ),
    # -----------------------------------------------------------------------
    # Tensor: backward()
    # -----------------------------------------------------------------------
    Mutant(
        name="tensor_backward_ignores_seed",
        kind="seed",
        bug="Tensor.backward always seeds with ones, ignoring the grad argument",
        within="Tensor.backward",
        old="self._receive(grad.copy())",
        new="self._receive(np.ones_like(self.data))",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_with_explicit_seed",
            "test_deep_graph_does_not_recurse",
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        # The rule at the edge of accumulation that tests written apart from the kit found: the output
        # itself is a leaf, and its gradient is the caller's array, stored by reference.
        name="tensor_backward_stores_the_seed",
        kind="overwrite",
        bug="Tensor.backward sets the output's .grad to the grad it is given (the caller's array) instead of adding it",
        within="Tensor.backward",
        old="self._receive(grad.copy())",
        new="self.grad = grad",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
        },
    ),
    Mutant(
        name="tensor_backward_no_single_element_check",
        kind="raises",
        bug="Tensor.backward without a seed silently uses ones for a multi-element output",
        within="Tensor.backward",
        old="if self.data.size != 1:",
        new="if False:",
        caught_by={
            "test_backward_without_seed_needs_a_single_element",
        },
    ),
    Mutant(
        name="tensor_backward_recursive_sort",
        kind="recursion",
        bug="Tensor.backward sorts the graph with a recursive depth-first search",
        within="Tensor.backward",
        old="""        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if node in seen:
                continue
            seen.add(node)
            stack.append((node, True))
            for p in node._parents:  # a plain loop: a generator per node would cost more than the search
                if p not in seen:
                    stack.append((p, False))""",
        new="""        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for p in node._parents:
                    visit(p)
                order.append(node)

        visit(self)""",
        caught_by={
            "test_deep_graph_does_not_recurse",
        },
    ),
    Mutant(
        name="tensor_backward_breadth_first",
        kind="order",
        bug="Tensor.backward runs the rules in breadth-first order from the output instead of a topological order",
        within="Tensor.backward",
        old="""        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if node in seen:
                continue
            seen.add(node)
            stack.append((node, True))
            for p in node._parents:  # a plain loop: a generator per node would cost more than the search
                if p not in seen:
                    stack.append((p, False))""",
        new="""        order, seen, queue = [], {id(self)}, [self]
        while queue:
            node = queue.pop(0)
            order.insert(0, node)  # reversed below: the output runs first
            for p in node._parents:
                if id(p) not in seen:
                    seen.add(id(p))
                    queue.append(p)""",
        caught_by={
            "test_backward_diamond_needs_topological_order",
            "test_exercise_f_composed_softmax_and_cross_entropy",
        },
    ),
    Mutant(
        name="tensor_backward_no_visited_set",
        kind="visited",
        bug="Tensor.backward's stack-based search has no visited set, so a shared node runs once per path",
        within="Tensor.backward",
        old="""            if node in seen:
                continue
            seen.add(node)
            stack.append((node, True))
            for p in node._parents:  # a plain loop: a generator per node would cost more than the search
                if p not in seen:
                    stack.append((p, False))""",
        new="""            stack.append((node, True))
            for p in node._parents:
                stack.append((p, False))""",
        caught_by={
            "test_backward_diamond_needs_topological_order",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="tensor_backward_not_reversed",
        kind="order",
        # Every Tensor check ends with `* weights`: steps run inputs-first, a result built outside the
        # graph and a `requires_grad` test of the wrong operand all leave every gradient 0 there.
        named=False,
        bug="Tensor.backward runs the rules in topological order (inputs first) instead of reversed",
        within="Tensor.backward",
        old="for node in reversed(order):",
        new="for node in order:",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_broadcast_gradients_have_operand_shapes",
            "test_deep_graph_does_not_recurse",
            "test_exercise_b_division",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_backward_no_reset",
        kind="reset",
        bug="Tensor.backward never resets intermediate gradients, so a second call counts the first again",
        within="Tensor.backward",
        old="if node._parents:  # intermediate results are recomputed from scratch on each call",
        new="if node._parents and node.grad is None:  # a gradient is made once, then kept",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_deep_graph_does_not_recurse",
        },
    ),
    Mutant(
        name="tensor_backward_resets_leaves",
        kind="reset",
        bug="Tensor.backward zeroes every node's gradient, leaves included, so leaves do not accumulate",
        within="Tensor.backward",
        old="""            if node._parents:  # intermediate results are recomputed from scratch on each call (_receive)
                node.grad = None""",
        new="""            node.grad = np.zeros(node.data.shape)""",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_deep_graph_does_not_recurse",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_backward_resets_after_seeding",
        kind="seed",
        bug="Tensor.backward seeds the output's gradient and then zeroes the intermediates, the output included",
        within="Tensor.backward",
        old="""        for node in order:
            if node._parents:  # intermediate results are recomputed from scratch on each call (_receive)
                node.grad = None
        self._receive(grad.copy())""",
        new="""        self._receive(grad.copy())
        for node in order:
            if node._parents:  # intermediate results are recomputed from scratch on each call
                node.grad = np.zeros(node.data.shape)""",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_backward_with_explicit_seed",
            "test_broadcast_gradients_have_operand_shapes",
            "test_deep_graph_does_not_recurse",
            "test_exercise_b_division",
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="value_backward_breadth_first",
        kind="order",
        bug="Value.backward runs the rules in breadth-first order from the output instead of a topological order",
        within="Value.backward",
        old="""        def visit(v):  # depth-first: a node is appended after all of its parents
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    visit(p)
                order.append(v)

        visit(self)""",
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
            "test_value_diamond_needs_topological_order",
        },
    ),
    Mutant(
        name="unbroadcast_size_one_before_padding",
        kind="unbroadcast",
        bug="_unbroadcast sums the size-1 axes before dropping the extra leading axes, so they are misaligned",
        within="_unbroadcast",
        old="""    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)""",
        new="""    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)""",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
        },
    ),
    Mutant(
        name="sum_backward_expands_last_axis",
        kind="axis",
        bug="Tensor.sum backward always puts the summed axis back at the end (np.expand_dims(g, -1))",
        within="Tensor.sum",
        old="np.expand_dims(grad, axes)",
        new="np.expand_dims(grad, -1)",
        caught_by={
            "test_tensor_gradcheck[sum_axis]",
        },
    ),
    Mutant(
        name="transpose_default_axes_0_1",
        kind="transpose",
        bug="Tensor.transpose defaults to swapping axes 0 and 1 instead of the last two",
        within="Tensor.transpose",
        old="def transpose(self, axis1=-2, axis2=-1):",
        new="def transpose(self, axis1=0, axis2=1):",
        caught_by={
            "test_shape_operations_forward",
            "test_tensor_gradcheck[transpose]",
        },
    ),
    Mutant(
        name="tensor_sigmoid_forward_sign",
        kind="sign",
        bug="Tensor.sigmoid computes 1 / (1 + e**x), dropping the minus sign",
        within="Tensor.sigmoid",
        old="s = 1.0 / (1.0 + np.exp(-self.data))",
        new="s = 1.0 / (1.0 + np.exp(self.data))",
        caught_by={
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
        },
    ),
    # -----------------------------------------------------------------------
    # Operator precedence: a rule written without its parentheses
    # -----------------------------------------------------------------------
    Mutant(
        name="tensor_relu_rule_compares_the_product",
        kind="derivative",
        bug="Tensor.relu backward writes grad * self.data > 0, which compares the product with 0",
        within="Tensor.relu",
        old="self._receive(grad * positive)",
        new="self._receive(grad * self.data > 0)",
        caught_by={
            "test_tensor_gradcheck[relu]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_sigmoid_rule_loses_parentheses",
        kind="derivative",
        bug="Tensor.sigmoid backward writes grad * s * 1.0 - s for grad * s * (1 - s)",
        within="Tensor.sigmoid",
        old="self._receive(grad * s * (1.0 - s))",
        new="self._receive(grad * s * 1.0 - s)",
        caught_by={
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
        },
    ),
    Mutant(
        name="value_tanh_rule_loses_parentheses",
        kind="derivative",
        bug="Value.tanh backward writes 1 - t * t * out.grad for (1 - t * t) * out.grad",
        within="Value.tanh",
        old="self.grad += (1.0 - t * t) * out.grad",
        new="self.grad += 1.0 - t * t * out.grad",
        caught_by={
            "test_value_random_graphs",
            "test_value_used_twice_gets_both_contributions",
        },
        # Right whenever out.grad is 1, as in tanh's own test: a composition is the first to fail.
    ),
    Mutant(
        name="tensor_tanh_rule_loses_parentheses",
        kind="derivative",
        bug="Tensor.tanh backward writes grad * 1.0 - t * t for grad * (1 - t * t)",
        within="Tensor.tanh",
        old="self._receive(grad * (1.0 - t * t))",
        new="self._receive(grad * 1.0 - t * t)",
        caught_by={
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    # -----------------------------------------------------------------------
    # Honest but broken in ways that once gave different verdicts in-process and behind the
    # wall (an error surfacing late, a change made in place): the same outcome, test by test
    # -----------------------------------------------------------------------
    Mutant(
        name="tensor_mul_refuses_numbers",
        diverged_once=True,
        kind="numbers",
        bug="Tensor.__mul__ accepts only Tensors: x * 2.0 raises ValueError",
        within="Tensor.__mul__",
        old="other_data = other.data if",
        new="if not isinstance(other, Tensor):\n"
        "            raise ValueError('Tensor * number: wrap the number in a Tensor')\n"
        "        other_data = other.data if",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_backward_with_explicit_seed",
            "test_backward_without_seed_needs_a_single_element",
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_b_division",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_rejects_a_multi_element_output",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="gradcheck_perturbs_inputs_in_place",
        diverged_once=True,
        kind="in_place",
        bug="gradcheck works on the caller's own arrays (np.asarray) and nudges them in place, "
        "+eps then -2 eps then +eps, which rounding does not undo",
        within="gradcheck",
        old="arrays = [np.array(x, dtype=np.float64) for x in inputs]",
        new="arrays = [np.asarray(x, dtype=np.float64) for x in inputs]\n"
        "    for a in arrays:  # the student's own central differences, in place\n"
        "        flat = a.reshape(-1)\n"
        "        for j in range(flat.size):\n"
        "            flat[j] += 1e-6\n"
        "            flat[j] -= 2e-6\n"
        "            flat[j] += 1e-6",
        caught_by={
            "test_gradcheck_leaves_inputs_untouched",
        },
    ),
    Mutant(
        name="tensor_relu_in_place",
        diverged_once=True,
        kind="in_place",
        bug="Tensor.relu zeroes the negative entries of its input in place and returns a Tensor of them",
        within="Tensor.relu",
        old='out = Tensor(np.where(positive, self.data, 0.0), (self,), "relu")',
        new='self.data[~positive] = 0.0\n        out = Tensor(self.data, (self,), "relu")',
        caught_by={
            "test_tensor_random_graphs",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_sum_grad_aliases_data",
        diverged_once=True,
        kind="data_for_grad",
        bug="Tensor.sum's backward hands its input a view of the output's data instead of its gradient",
        within="Tensor.sum",
        old="g = grad if keepdims else np.expand_dims(grad, axes)",
        new="g = out.data if keepdims else np.expand_dims(out.data, axes)",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_b_division",
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_random_graphs",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_matmul_backward_raises",
        diverged_once=True,
        kind="transpose",
        bug="Tensor.__matmul__'s backward forgets a transpose: matmul raises inside backward() for non-square operands",
        within="Tensor.__matmul__",
        old="np.matmul(grad, other.data.swapaxes(-1, -2))",
        new="np.matmul(grad, other.data)",
        caught_by={
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="value_pow_raises_value_error",
        diverged_once=True,
        kind="raises",
        bug="Value ** Value raises ValueError where the handout asks for TypeError",
        within="Value.__pow__",
        old='raise TypeError(f"Value ** k needs a constant int or float k, got {type(k).__name__}")',
        new='raise ValueError(f"Value ** k needs a constant int or float k, got {type(k).__name__}")',
        caught_by={
            "test_value_pow_rejects_a_variable_exponent",
        },
    ),
    Mutant(
        name="tensor_sum_forgets_return",
        diverged_once=True,
        kind="missing_return",
        bug="Tensor.sum builds its result but does not return it",
        within="Tensor.sum",
        old="""        out._backward = backward
        return out""",
        new="        out._backward = backward",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_b_division",
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_gradcheck_leaves_inputs_untouched",
            "test_gradcheck_rejects_a_noop_backward_rule",
            "test_matmul_broadcasts_leading_axes",
            "test_numerical_grad_agrees_with_your_engine",
            "test_shape_operations_forward",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_random_graphs",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="value_backward_kahn_counts_users_once",
        kind="order",
        bug="Value.backward sorts with Kahn's algorithm, counting each node's users once but counting down once "
        "per use, so u in u*u is released before its other users have run",
        within="Value.backward",
        old="""        order, seen = [], set()

        def visit(v):  # depth-first: a node is appended after all of its parents
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._parents:
                    visit(p)
                order.append(v)

        visit(self)
        for v in order:
            if v._parents:  # intermediate results are recomputed from scratch on each call
                v.grad = 0.0
        self.grad += 1.0
        for v in reversed(order):  # consumers before their inputs
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
            "test_value_diamond_needs_topological_order",
        },
    ),
    Mutant(
        name="tensor_backward_kahn_counts_users_once",
        kind="order",
        bug="Tensor.backward sorts with Kahn's algorithm, counting each node's users once but counting down once "
        "per use, so u in u*u is released before its other users have run",
        within="Tensor.backward",
        old="""        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if node in seen:
                continue
            seen.add(node)
            stack.append((node, True))
            for p in node._parents:  # a plain loop: a generator per node would cost more than the search
                if p not in seen:
                    stack.append((p, False))
        for node in order:
            if node._parents:  # intermediate results are recomputed from scratch on each call (_receive)
                node.grad = None
        self._receive(grad.copy())  # a copy: a gradient never shares the caller's array
        for node in reversed(order):  # consumers before their inputs
            if node._parents:
                if node.grad is None:  # no consumer ran yet: only when the order is wrong, as zeros would
                    node.grad = np.zeros(node.data.shape)
                node._backward(node.grad)  # out.grad, handed to the rule (see __add__)
""",
        new="""        order, seen, stack, users = [], set(), [self], {}
        while stack:  # every node once, and how many nodes use it (each user counted once)
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            order.append(node)
            for p in set(node._parents):
                users[p] = users.get(p, 0) + 1
                stack.append(p)
        for node in order:
            if node._parents:
                node.grad = None
        self._receive(grad.copy())
        ready = [self]
        while ready:  # Kahn's algorithm: a node runs once every node using it has run
            node = ready.pop()
            if node._parents:
                if node.grad is None:
                    node.grad = np.zeros(node.data.shape)
                node._backward(node.grad)
            for p in node._parents:  # once per use: u*u counts u twice, where it was counted once
                users[p] -= 1
                if users[p] == 0:
                    ready.append(p)
""",
        caught_by={
            "test_backward_diamond_needs_topological_order",
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
            "test_value_unary_functions[pow_3]",
        },
    ),
    Mutant(
        name="tensor_pow_rule_divides_by_x",
        kind="derivative",
        bug="Tensor.__pow__'s rule is written with the output, k * out.data / x, which divides by zero at x = 0",
        within="Tensor.__pow__",
        old="self._receive(k * self.data ** (k - 1) * grad)",
        new="self._receive(k * out.data / self.data * grad)",
        caught_by={
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
        named=False,  # the hint says where the rule divides by zero, not which derivative is wrong
    ),
    Mutant(
        name="value_tanh_from_exp_overflows",
        kind="stability",
        bug="Value.tanh computes (e**2x - 1) / (e**2x + 1), whose e**2x overflows far from 0",
        within="Value.tanh",
        old="t = math.tanh(self.data)",
        new="e = math.exp(2.0 * self.data)\n        t = (e - 1.0) / (e + 1.0)",
        caught_by={
            "test_value_unary_functions[tanh]",
        },
    ),
    Mutant(
        name="tensor_tanh_from_exp_overflows",
        kind="stability",
        bug="Tensor.tanh computes (e**2x - 1) / (e**2x + 1): nan far from 0",
        within="Tensor.tanh",
        old="t = np.tanh(self.data)",
        new="e = np.exp(2.0 * self.data)\n        t = (e - 1.0) / (e + 1.0)",
        caught_by={
            "test_tensor_gradcheck[tanh]",
        },
    ),
    Mutant(
        name="tensor_sigmoid_exp_over_one_plus_exp",
        kind="stability",
        bug="Tensor.sigmoid computes e**x / (1 + e**x): nan far above 0",
        within="Tensor.sigmoid",
        old="s = 1.0 / (1.0 + np.exp(-self.data))",
        new="e = np.exp(self.data)\n        s = e / (1.0 + e)",
        caught_by={
            "test_exercise_e_sigmoid[scaled_by_4]",
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
            "test_value_arithmetic_and_reflected_operators[number_minus]",
            "test_value_arithmetic_and_reflected_operators[sub]",
            "test_value_random_graphs",
            "test_value_unary_functions[neg]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="tensor_backward_seed_flat",
        kind="seed",
        bug="Tensor.backward seeds a single-element output with np.ones(size), shape (1,), not the output's shape",
        within="Tensor.backward",
        old="grad = np.ones(self.shape)",
        new="grad = np.ones(self.data.size)",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_broadcast_gradients_have_operand_shapes",
            "test_deep_graph_does_not_recurse",
            "test_exercise_b_division",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_gradcheck_leaves_inputs_untouched",
            "test_gradcheck_rejects_a_noop_backward_rule",
            "test_matmul_broadcasts_leading_axes",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_tensor_relu_gradient_is_zero_at_zero",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    # -----------------------------------------------------------------------
    # Added later (at the end, so that the chunks and the bench's class keep their members)
    # -----------------------------------------------------------------------
    Mutant(
        name="value_pow_rule_loses_parentheses",
        kind="derivative",
        bug="Value.__pow__'s rule is written k * x ** k - 1 * out.grad: the parentheses of k - 1 left out",
        within="Value.__pow__",
        old="k * self.data ** (k - 1) * out.grad",
        new="k * self.data ** k - 1 * out.grad",
        caught_by={
            "test_value_arithmetic_and_reflected_operators[div]",
            "test_value_arithmetic_and_reflected_operators[number_over]",
            "test_value_hand_derived_gradients",
            "test_value_random_graphs",
            "test_value_unary_functions[pow_3]",
            "test_value_unary_functions[pow_half]",
            "test_value_unary_functions[pow_negative]",
            "test_value_used_twice_gets_both_contributions",
        },
    ),
    Mutant(
        name="value_add_does_not_wrap_numbers",
        kind="numbers",
        bug="Value.__add__ does not wrap a plain number, so x + 1 raises AttributeError",
        within="Value.__add__",
        old="other = other if isinstance(other, Value) else Value(other)\n        out = Value(self.data + other.data",
        new="out = Value(self.data + other.data",
        caught_by={
            "test_value_arithmetic_and_reflected_operators[minus_number]",
            "test_value_arithmetic_and_reflected_operators[number_plus]",
            "test_value_random_graphs",
            "test_value_used_twice_gets_both_contributions",
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
            "test_value_arithmetic_and_reflected_operators[number_plus]",
            "test_value_random_graphs",
        },
    ),
    Mutant(
        name="tensor_exp_forgets_chain_rule",
        kind="chain_rule",
        bug="Tensor.exp backward adds exp(x) without multiplying by the gradient from above",
        within="Tensor.exp",
        old="self._receive(grad * e)",
        new="self._receive(e)",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[exp]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
        },
    ),
    Mutant(
        name="tensor_log_divides_by_output",
        kind="derivative",
        bug="Tensor.log backward divides by log(x) (the output) instead of x",
        within="Tensor.log",
        old="self._receive(grad / self.data)",
        new="self._receive(grad / out.data)",
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[log]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
        },
    ),
    Mutant(
        name="tensor_sum_ignores_axis",
        kind="axis",
        bug="Tensor.sum sums every entry, ignoring its axis argument",
        within="Tensor.sum",
        old="self.data.sum(axis=axes, keepdims=keepdims)",
        new="self.data.sum(keepdims=keepdims)",
        caught_by={
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_shape_operations_forward",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_random_graphs",
        },
    ),
    Mutant(
        name="tensor_pow_rule_loses_parentheses",
        kind="derivative",
        bug="Tensor.__pow__'s rule is written k * x ** k - 1 * grad: the parentheses of k - 1 left out",
        within="Tensor.__pow__",
        old="k * self.data ** (k - 1) * grad",
        new="k * self.data ** k - 1 * grad",
        caught_by={
            "test_exercise_b_division",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_radd_recurses",
        kind="recursion",
        bug="Tensor.__radd__ returns other + self, which calls __radd__ again: a recursion without end",
        within="Tensor.__radd__",
        old="return self + other",
        new="return other + self",
        caught_by={
            "test_tensor_gradcheck[neg_and_numbers]",
        },
    ),
    Mutant(
        name="tensor_leaf_keeps_the_callers_array",
        kind="alias",
        bug="Tensor.__init__ keeps a leaf's data with np.asarray: the tensor is an alias of the caller's array",
        within="Tensor.__init__",
        old="np.asarray(data, dtype=np.float64) if _parents else np.array(data, dtype=np.float64)",
        new="np.asarray(data, dtype=np.float64)",
        caught_by={
            "test_tensor_construction",
        },
    ),
    Mutant(
        name="tensor_div_powers_an_int_array",
        kind="numbers",
        bug="Tensor.__truediv__ divides by any other as self * other**-1: numpy refuses ints to a negative power",
        within="Tensor.__truediv__",
        old="return self * (1.0 / np.array(other, dtype=np.float64))",
        new="return self * other**-1",
        caught_by={
            "test_exercise_b_division",
        },
    ),
    Mutant(
        name="tensor_sum_drops_keepdims_without_axis",
        kind="axis",
        bug="Tensor.sum special-cases axis=None as data.sum(), dropping keepdims=True",
        within="Tensor.sum",
        old='out = Tensor(self.data.sum(axis=axes, keepdims=keepdims), (self,), "sum")',
        new=(
            "out = Tensor(self.data.sum() if axis is None else self.data.sum(axis=axes, keepdims=keepdims), "
            '(self,), "sum")'
        ),
        caught_by={
            "test_shape_operations_forward",
        },
    ),
    Mutant(
        name="tensor_mean_drops_keepdims_without_axis",
        kind="axis",
        bug="Tensor.mean special-cases axis=None as data.sum(), dropping keepdims=True",
        within="Tensor.mean",
        old='out = Tensor(self.data.sum(axis=axes, keepdims=keepdims) * scale, (self,), "mean")',
        new=(
            "out = Tensor((self.data.sum() if axis is None else self.data.sum(axis=axes, keepdims=keepdims)) * scale, "
            '(self,), "mean")'
        ),
        caught_by={
            "test_shape_operations_forward",
        },
    ),
    Mutant(
        name="tensor_log_rule_adds_an_epsilon",
        kind="derivative",
        bug="Tensor.log's rule divides by x + 1e-8 'for stability': a tenth off at x = 1e-7",
        within="Tensor.log",
        old="self._receive(grad / self.data)",
        new="self._receive(grad / (self.data + 1e-8))",
        caught_by={
            "test_tensor_gradcheck[log]",
        },
    ),
    Mutant(
        name="value_log_rule_adds_an_epsilon",
        kind="derivative",
        bug="Value.log's rule divides by x + 1e-8 'for stability': a tenth off at x = 1e-7",
        within="Value.log",
        old="self.grad += out.grad / self.data",
        new="self.grad += out.grad / (self.data + 1e-8)",
        caught_by={
            "test_value_unary_functions[log]",
        },
    ),
    Mutant(
        name="tensor_backward_ignores_the_seed_of_one_element",
        kind="seed",
        bug="Tensor.backward seeds a single-element output with 1 even when given a grad",
        within="Tensor.backward",
        old="if grad is None:\n            if self.data.size != 1:",
        new="if grad is None or self.data.size == 1:\n            if self.data.size != 1:",
        caught_by={
            "test_backward_with_explicit_seed",
            "test_deep_graph_does_not_recurse",
        },
    ),
    Mutant(
        name="tensor_pow_rule_takes_abs",
        kind="sign",
        bug="Tensor.__pow__'s rule uses abs(x) ** (k - 1) (to avoid nan): a negative base's gradient loses its sign",
        within="Tensor.__pow__",
        old="self._receive(k * self.data ** (k - 1) * grad)",
        new="self._receive(k * np.abs(self.data) ** (k - 1) * grad)",
        caught_by={
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
            "test_tensor_random_graphs",
            "test_xor_training_reproduces_the_chapter",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_pow_forward_takes_abs",
        kind="sign",
        bug="Tensor.__pow__ computes abs(x) ** k: an odd power of a negative base loses its sign",
        within="Tensor.__pow__",
        old='out = Tensor(self.data**k, (self,), f"**{k}")',
        new='out = Tensor(np.abs(self.data) ** k, (self,), f"**{k}")',
        caught_by={
            "test_tensor_gradcheck[pow]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
        },
    ),
    Mutant(
        name="tensor_mean_counts_the_first_axis",
        kind="factor",
        bug="Tensor.mean over every axis divides by len(data), the first axis's length, not the count of entries",
        within="Tensor.mean",
        old="count = 1\n        for a in axes:\n            count *= self.shape[a]",
        new=(
            "if axis is None:\n            count = len(self.data)\n        else:\n"
            "            count = 1\n            for a in axes:\n                count *= self.shape[a]"
        ),
        caught_by={
            "test_shape_operations_forward",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[two_layer_tanh_network]",
        },
    ),
    Mutant(
        name="tensor_pow_unwraps_a_tensor_exponent",
        kind="raises",
        bug="Tensor.__pow__ takes a Tensor exponent apart (k = k.data) instead of refusing it: k gets no gradient",
        within="Tensor.__pow__",
        old=(
            "if isinstance(k, bool) or not isinstance(k, (int, float)):\n"
            '            raise TypeError(f"Tensor ** k needs a constant int or float k, got {type(k).__name__}")'
        ),
        new="if isinstance(k, Tensor):\n            k = k.data",
        caught_by={
            "test_tensor_gradcheck[pow]",
        },
    ),
    Mutant(
        name="tensor_sub_assigns_right_operand_gradient",
        kind="overwrite",
        bug="Tensor.__sub__ assigns the right operand's gradient (=) instead of accumulating it",
        within="Tensor.__sub__",
        old="other._receive(-_unbroadcast(grad, other.shape))",
        new="other.grad = -_unbroadcast(grad, other.shape)",
        caught_by={
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
        },
    ),
    Mutant(
        name="tensor_matmul_assigns_right_operand_gradient",
        kind="overwrite",
        bug="Tensor.__matmul__ assigns the right operand's gradient (=) instead of accumulating it",
        within="Tensor.__matmul__",
        old="other._receive(_unbroadcast(np.matmul(self.data.swapaxes(-1, -2), grad), other.shape))",
        new="other.grad = _unbroadcast(np.matmul(self.data.swapaxes(-1, -2), grad), other.shape)",
        caught_by={
            "test_tensor_gradcheck[matmul]",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_exp_clips_its_input",
        kind="stability",
        bug="Tensor.exp clips x to [-50, 50] to avoid an overflow that a float64 never reaches there: e**60 is wrong",
        within="Tensor.exp",
        old="e = np.exp(self.data)",
        new="e = np.exp(np.clip(self.data, -50.0, 50.0))  # avoid overflow",
        caught_by={
            "test_tensor_gradcheck[exp]",
        },
    ),
    Mutant(
        name="value_exp_clamps_its_input",
        kind="stability",
        bug="Value.exp computes math.exp(min(x, 50)) to avoid an OverflowError: e**60 and its gradient are wrong",
        within="Value.exp",
        old='out = Value(math.exp(self.data), (self,), "exp")',
        new='out = Value(math.exp(min(self.data, 50.0)), (self,), "exp")  # no OverflowError',
        caught_by={
            "test_value_unary_functions[exp]",
        },
    ),
    Mutant(
        name="tensor_backward_reset_condition_inverted",
        kind="reset",
        bug="Tensor.backward's reset tests `not node._parents`: it zeroes the leaves and never the intermediates",
        within="Tensor.backward",
        old=(
            "            if node._parents:  # intermediate results are recomputed from scratch on each call "
            "(_receive)\n"
            "                node.grad = None"
        ),
        new=(
            "            if not node._parents:  # intermediate results are recomputed from scratch on each call "
            "(_receive)\n"
            "                node.grad = np.zeros(node.data.shape)"
        ),
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_deep_graph_does_not_recurse",
            "test_xor_without_zeroing_overshoots",
        },
    ),
    Mutant(
        name="tensor_sum_keepdims_defaults_to_true",
        kind="axis",
        bug="Tensor.sum is declared with keepdims=True: sum() of a matrix keeps shape (1, 1)",
        within="Tensor.sum",
        old="def sum(self, axis=None, keepdims=False):",
        new="def sum(self, axis=None, keepdims=True):",
        caught_by={
            "test_backward_diamond_needs_topological_order",
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_d_sum_backward_restores_the_axis[3x4]",
            "test_exercise_d_sum_backward_restores_the_axis[4x4_square]",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_matmul_broadcasts_leading_axes",
            "test_numerical_grad_agrees_with_your_engine",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mean_over_two_axes]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_sum_axis_defaults_to_0",
        kind="axis",
        bug="Tensor.sum is declared with axis=0 (numpy's habit elsewhere): sum() adds up the first axis alone",
        within="Tensor.sum",
        old="def sum(self, axis=None, keepdims=False):",
        new="def sum(self, axis=0, keepdims=False):",
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_backward_diamond_needs_topological_order",
            "test_broadcast_gradients_have_operand_shapes",
            "test_exercise_b_division",
            "test_exercise_e_sigmoid[scaled_by_4]",
            "test_exercise_e_sigmoid[unit]",
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_gradcheck_accepts_correct_gradients",
            "test_gradcheck_leaves_inputs_untouched",
            "test_gradcheck_rejects_a_noop_backward_rule",
            "test_matmul_broadcasts_leading_axes",
            "test_numerical_grad_agrees_with_your_engine",
            "test_shape_operations_forward",
            "test_tensor_gradcheck[add_bias_broadcast]",
            "test_tensor_gradcheck[batched_matmul_shared_weight]",
            "test_tensor_gradcheck[div_broadcast]",
            "test_tensor_gradcheck[exp]",
            "test_tensor_gradcheck[log]",
            "test_tensor_gradcheck[matmul]",
            "test_tensor_gradcheck[mul_column_row]",
            "test_tensor_gradcheck[neg_and_numbers]",
            "test_tensor_gradcheck[pow]",
            "test_tensor_gradcheck[relu]",
            "test_tensor_gradcheck[reshape]",
            "test_tensor_gradcheck[sub_column_row]",
            "test_tensor_gradcheck[sum_axis]",
            "test_tensor_gradcheck[sum_tuple_and_negative_axes]",
            "test_tensor_gradcheck[tanh]",
            "test_tensor_gradcheck[transpose]",
            "test_tensor_used_twice_gets_all_contributions[(x + 1) * x]",
            "test_tensor_used_twice_gets_all_contributions[(x / 2) * x / x]",
            "test_tensor_used_twice_gets_all_contributions[x * (x - 1)]",
            "test_tensor_used_twice_gets_all_contributions[x + x*x]",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
            "test_tensor_used_twice_gets_all_contributions[x.relu() * x ** 2]",
        },
    ),
    Mutant(
        name="tensor_axes_normalises_only_an_int",
        kind="axis",
        bug=(
            "_axes turns a negative int into a non-negative axis but returns a tuple as given: mean(axis=(0, -1)) "
            "keeps the -1"
        ),
        within="_axes",
        old="    if isinstance(axis, int):\n        axis = (axis,)\n",
        new="    if isinstance(axis, int):\n        return (axis % ndim,)\n    return tuple(axis)\n",
        caught_by={
            "test_tensor_gradcheck[mean_over_two_axes]",
        },
    ),
    Mutant(
        name="tensor_unbroadcast_skips_0d_operands",
        kind="unbroadcast",
        bug=(
            '_unbroadcast returns the gradient as it is for a 0-d operand ("a scalar broadcasts by itself"): its '
            "gradient keeps the other's shape"
        ),
        within="_unbroadcast",
        old="    if grad.shape == shape:\n",
        new="    if grad.shape == shape or shape == ():  # a scalar broadcasts by itself\n",
        caught_by={
            "test_broadcast_gradients_have_operand_shapes",
        },
    ),
    Mutant(
        name="value_pow_refuses_only_a_value_exponent",
        kind="raises",
        bug="Value.__pow__ raises TypeError only for a Value exponent: an array exponent is taken",
        within="Value.__pow__",
        old='if isinstance(k, bool) or not isinstance(k, (int, float)):\n            raise TypeError(f"Value',
        new='if isinstance(k, Value):\n            raise TypeError(f"Value',
        caught_by={
            "test_value_pow_rejects_a_variable_exponent",
        },
    ),
    Mutant(
        name="tensor_log_forward_adds_an_epsilon",
        kind="stability",
        bug="Tensor.log computes np.log(x + 1e-8) to avoid log(0): every value is a hair off",
        within="Tensor.log",
        old='out = Tensor(np.log(self.data), (self,), "log")',
        new='out = Tensor(np.log(self.data + 1e-8), (self,), "log")',
        caught_by={
            "test_exercise_f_composed_softmax_and_cross_entropy",
            "test_tensor_gradcheck[log]",
            "test_tensor_random_graphs",
            "test_tensor_used_twice_gets_all_contributions[x.exp() * x.tanh() + x.log()]",
        },
        named=False,
    ),
    Mutant(
        name="tensor_backward_keeps_the_output_s_gradient",
        kind="reset",
        bug=(
            "Tensor.backward resets every intermediate gradient but the output's (node is not self), whose seed then "
            "adds up across calls"
        ),
        within="Tensor.backward",
        old="            if node._parents:  # intermediate results are recomputed from scratch on each call (_receive)",
        new=(
            "            if node._parents and node is not self:  # intermediate results are recomputed from scratch "
            "on each call (_receive)"
        ),
        caught_by={
            "test_backward_accumulates_on_leaves_only",
            "test_deep_graph_does_not_recurse",
        },
    ),
]

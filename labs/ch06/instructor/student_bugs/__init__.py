"""Lab ch06's held-out student bugs: each one bug as a student makes it, written
apart from the kit (from the handout, the chapter and the starter; not from the reference, the lab's tests,
the mutant catalogue or the kit's diagnoses). ``correct.py`` is the solution they were made from, written
the same way; each bug is one edit of it (``within``, ``old``, ``new``, as a
mutant is of the reference). tests/test_student_bugs.py grades them behind the wall
and checks whether the first failure a student reads names the bug (``named``, as measured). Not part of
the student edition: correct.py is a full solution.
"""

from tests.instructor import StudentBug

STUDENT_BUGS = [
    # Task 1: Value
    StudentBug(
        "value_mul_assigns_grad",
        "I wrote self.grad = ... in __mul__'s backward instead of +=",
        "overwrite",
        within="Value.__mul__",
        old=("            self.grad += other.data * out.grad\n            other.grad += self.data * out.grad\n"),
        new=("            self.grad = other.data * out.grad\n            other.grad = self.data * out.grad\n"),
    ),
    StudentBug(
        "value_mul_uses_own_data",
        "in __mul__ I multiplied each grad by its own data, not the other's",
        "other_operand",
        within="Value.__mul__",
        old=("            self.grad += other.data * out.grad\n            other.grad += self.data * out.grad\n"),
        new=("            self.grad += self.data * out.grad\n            other.grad += other.data * out.grad\n"),
        named=False,
    ),
    StudentBug(
        "value_pow_forgets_exponent",
        "the power rule without the k in front: x**(k-1) * out.grad",
        "factor",
        within="Value.__pow__",
        old="            self.grad += k * self.data ** (k - 1) * out.grad\n",
        new="            self.grad += self.data ** (k - 1) * out.grad\n",
    ),
    StudentBug(
        "value_exp_forgets_out_grad",
        "exp's backward adds out.data and forgets to multiply by out.grad",
        "chain_rule",
        within="Value.exp",
        old="            self.grad += out.data * out.grad\n",
        new="            self.grad += out.data\n",
    ),
    StudentBug(
        "value_tanh_derivative_of_input",
        "tanh's derivative as 1 - x**2 with x the input, not the output",
        "derivative",
        within="Value.tanh",
        old="            self.grad += (1 - t**2) * out.grad\n",
        new="            self.grad += (1 - self.data**2) * out.grad\n",
    ),
    StudentBug(
        "value_relu_passes_at_zero",
        "relu lets the gradient through at exactly 0 (>= instead of >)",
        "derivative",
        within="Value.relu",
        old="            self.grad += (1.0 if self.data > 0 else 0.0) * out.grad\n",
        new="            self.grad += (1.0 if self.data >= 0 else 0.0) * out.grad\n",
    ),
    StudentBug(
        "value_rsub_backwards",
        "__rsub__ returns self - other, so 2 - x computes x - 2",
        "reflected",
        within="Value.__rsub__",
        old="        return other + (-self)\n",
        new="        return self - other\n",
    ),
    StudentBug(
        "value_pow_valueerror",
        "Value ** Value raises ValueError, not TypeError",
        "raises",
        within="Value.__pow__",
        old='            raise TypeError("only int or float powers are supported")\n',
        new='            raise ValueError("only int or float powers are supported")\n',
    ),
    StudentBug(
        "value_add_no_wrap",
        "__add__ does not wrap a plain number in a Value, so x + 1 crashes",
        "numbers",
        within="Value.__add__",
        old="        other = other if isinstance(other, Value) else Value(other)\n",
        new="",
    ),
    StudentBug(
        "value_topo_preorder",
        "my topological sort appends a node before its parents",
        "order",
        within="Value.backward",
        old=("                for p in v._parents:\n                    build(p)\n                topo.append(v)\n"),
        new=("                topo.append(v)\n                for p in v._parents:\n                    build(p)\n"),
    ),
    StudentBug(
        "value_topo_no_visited",
        "no visited set in the sort: a node reached twice is listed twice",
        "visited",
        within="Value.backward",
        old=(
            "        visited = set()\n"
            "\n"
            "        def build(v):\n"
            "            if v not in visited:\n"
            "                visited.add(v)\n"
            "                for p in v._parents:\n"
            "                    build(p)\n"
            "                topo.append(v)\n"
        ),
        new=(
            "\n"
            "        def build(v):\n"
            "            for p in v._parents:\n"
            "                build(p)\n"
            "            topo.append(v)\n"
        ),
    ),
    StudentBug(
        "value_backward_resets_leaves",
        "backward() zeroes every node's grad, the leaves too",
        "reset",
        within="Value.backward",
        old=("            if v._parents:\n                v.grad = 0.0\n"),
        new="            v.grad = 0.0\n",
    ),
    StudentBug(
        "value_backward_no_reset",
        "backward() never zeroes the intermediate nodes",
        "reset",
        within="Value.backward",
        old=("        for v in topo:\n            if v._parents:\n                v.grad = 0.0\n"),
        new="",
    ),
    StudentBug(
        "value_backward_no_seed",
        "I forgot to set the output's grad to 1 before the backward steps",
        "seed",
        within="Value.backward",
        old="        self.grad += 1.0\n",
        new="",
    ),
    # Task 2: Tensor
    StudentBug(
        "tensor_add_no_unbroadcast",
        "Tensor.__add__ passes out.grad back without _unbroadcast",
        "unbroadcast",
        within="Tensor.__add__",
        old=(
            "            self.grad += _unbroadcast(out.grad, self.shape)\n"
            "            other.grad += _unbroadcast(out.grad, other.shape)\n"
        ),
        new=("            self.grad += out.grad\n            other.grad += out.grad\n"),
    ),
    StudentBug(
        "unbroadcast_drops_kept_axes",
        "_unbroadcast sums the stretched size-1 axes without keepdims",
        "unbroadcast",
        within="_unbroadcast",
        old="            grad = grad.sum(axis=i, keepdims=True)\n",
        new="            grad = grad.sum(axis=i)\n",
    ),
    StudentBug(
        "tensor_mul_uses_own_data",
        "Tensor.__mul__ multiplies each grad by its own data",
        "other_operand",
        within="Tensor.__mul__",
        old=(
            "            self.grad += _unbroadcast(other.data * out.grad, self.shape)\n"
            "            other.grad += _unbroadcast(self.data * out.grad, other.shape)\n"
        ),
        new=(
            "            self.grad += _unbroadcast(self.data * out.grad, self.shape)\n"
            "            other.grad += _unbroadcast(other.data * out.grad, other.shape)\n"
        ),
    ),
    StudentBug(
        "tensor_sub_own_rule_no_minus",
        "I gave __sub__ its own backward and forgot the minus for other",
        "sign",
        within="Tensor.__sub__",
        old="        return self + (-Tensor._lift(other))\n",
        new=(
            "        other = Tensor._lift(other)\n"
            '        out = Tensor(self.data - other.data, (self, other), "-")\n'
            "\n"
            "        def _backward():\n"
            "            self.grad += _unbroadcast(out.grad, self.shape)\n"
            "            other.grad += _unbroadcast(out.grad, other.shape)\n"
            "\n"
            "        out._backward = _backward\n"
            "        return out\n"
        ),
    ),
    StudentBug(
        "matmul_no_transpose",
        "dA = dC @ B, without transposing B",
        "transpose",
        within="Tensor.__matmul__",
        old="            da = np.matmul(out.grad, np.swapaxes(other.data, -1, -2))\n",
        new="            da = np.matmul(out.grad, other.data)\n",
    ),
    StudentBug(
        "matmul_dot_T",
        "the matmul backward transposes with .T instead of swapping the last two axes",
        "transpose",
        within="Tensor.__matmul__",
        old=(
            "            da = np.matmul(out.grad, np.swapaxes(other.data, -1, -2))\n"
            "            db = np.matmul(np.swapaxes(self.data, -1, -2), out.grad)\n"
        ),
        new=("            da = np.matmul(out.grad, other.data.T)\n            db = np.matmul(self.data.T, out.grad)\n"),
    ),
    StudentBug(
        "matmul_allows_vectors",
        "@ accepts a 1-D operand instead of raising ValueError",
        "raises",
        within="Tensor.__matmul__",
        old=(
            "        if self.ndim < 2 or other.ndim < 2:\n"
            '            raise ValueError(f"@ needs at least 2 axes on both sides, got {self.shape} and {other.shape}")\n'  # noqa: E501 - the line as the student wrote it
        ),
        new="",
    ),
    StudentBug(
        "sum_no_expand_dims",
        "sum's backward broadcasts out.grad without putting the summed axis back",
        "axis",
        within="Tensor.sum",
        old=(
            "            g = out.grad if keepdims else np.expand_dims(out.grad, axes)\n"
            "            self.grad += np.broadcast_to(g, self.shape)\n"
        ),
        new="            self.grad += np.broadcast_to(out.grad, self.shape)\n",
    ),
    StudentBug(
        "mean_divides_by_size",
        "mean divides by the total number of entries, whatever the axis",
        "factor",
        within="Tensor.mean",
        old=(
            "        axes = _axes(axis, self.ndim)\n"
            "        n = 1\n"
            "        for a in axes:\n"
            "            n *= self.shape[a]\n"
        ),
        new="        n = self.data.size\n",
    ),
    StudentBug(
        "axes_int_not_handled",
        "_axes forgets the case of a single int axis",
        "axis",
        within="_axes",
        old=("    if isinstance(axis, int):\n        axis = (axis,)\n"),
        new="",
    ),
    StudentBug(
        "transpose_dot_T",
        "transpose() uses .T, which reverses every axis",
        "transpose",
        within="Tensor.transpose",
        old=(
            '        out = Tensor(np.swapaxes(self.data, axis1, axis2), (self,), "transpose")\n'
            "\n"
            "        def _backward():\n"
            "            self.grad += np.swapaxes(out.grad, axis1, axis2)\n"
        ),
        new=(
            '        out = Tensor(self.data.T, (self,), "transpose")\n'
            "\n"
            "        def _backward():\n"
            "            self.grad += out.grad.T\n"
        ),
    ),
    StudentBug(
        "log_divides_by_output",
        "log's backward divides by the output instead of the input",
        "derivative",
        within="Tensor.log",
        old="            self.grad += out.grad / self.data\n",
        new="            self.grad += out.grad / out.data\n",
    ),
    StudentBug(
        "tensor_relu_mask_from_output",
        "relu's mask is out.data >= 0, which is true everywhere",
        "derivative",
        within="Tensor.relu",
        old="            self.grad += (self.data > 0) * out.grad\n",
        new="            self.grad += (out.data >= 0) * out.grad\n",
        named=False,
    ),
    StudentBug(
        "tensor_init_keeps_ints",
        "Tensor.__init__ calls np.array(data) without dtype=float64",
        "type",
        within="Tensor.__init__",
        old="        self.data = np.array(data, dtype=np.float64)\n",
        new="        self.data = np.array(data)\n",
    ),
    StudentBug(
        "backward_seeds_any_shape",
        "backward() without grad seeds ones on any shape, never raising",
        "raises",
        within="Tensor.backward",
        old=(
            "            if self.data.size != 1:\n"
            '                raise ValueError("backward() needs a gradient for a tensor with more than one element")\n'
        ),
        new="",
    ),
    StudentBug(
        "tensor_backward_recursive",
        "Tensor.backward sorts recursively, like Value's",
        "recursion",
        within="Tensor.backward",
        old=(
            "        stack = [(self, False)]\n"
            "        while stack:\n"
            "            node, done = stack.pop()\n"
            "            if done:\n"
            "                topo.append(node)\n"
            "                continue\n"
            "            if id(node) in visited:\n"
            "                continue\n"
            "            visited.add(id(node))\n"
            "            stack.append((node, True))\n"
            "            for p in node._parents:\n"
            "                if id(p) not in visited:\n"
            "                    stack.append((p, False))\n"
        ),
        new=(
            "\n"
            "        def build(node):\n"
            "            if id(node) not in visited:\n"
            "                visited.add(id(node))\n"
            "                for p in node._parents:\n"
            "                    build(p)\n"
            "                topo.append(node)\n"
            "\n"
            "        build(self)\n"
        ),
    ),
    StudentBug(
        "tensor_backward_resets_leaves",
        "Tensor.backward zeroes the leaves' grads too",
        "reset",
        within="Tensor.backward",
        old=("            if node._parents:\n                node.grad = np.zeros_like(node.data)\n"),
        new="            node.grad = np.zeros_like(node.data)\n",
    ),
    # Task 4: the exercises
    StudentBug(
        "sigmoid_forgets_out_grad",
        "sigmoid's backward adds s * (1 - s) without out.grad",
        "chain_rule",
        within="Tensor.sigmoid",
        old="            self.grad += s * (1 - s) * out.grad\n",
        new="            self.grad += s * (1 - s)\n",
    ),
]

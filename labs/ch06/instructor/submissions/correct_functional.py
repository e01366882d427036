"""Lab ch06, a second correct submission in a "tape + op classes" style.

Design:
  - every node (Value or Tensor) gets a creation stamp from a global tape counter.
    An input always exists before the node that consumes it, so the stamps are a
    topological order for free: backward collects the reachable nodes with an
    explicit stack and processes them in decreasing stamp order (no recursion).
  - Value dispatches its backward through a table of local-derivative rules keyed
    by the operation's name.
  - Tensor operations are classes (one per op) with ``forward`` and ``vjp``; the
    node remembers its op instance and its inputs.
  - subtraction and division are composed (a + (-b), a * b ** -1); mean is its own
    op with its own backward rule.
"""

import math

import numpy as np

_stamp = [0]


def _next_stamp():
    _stamp[0] += 1
    return _stamp[0]


def _constant_exponent(k):
    if isinstance(k, (bool, np.bool_)):
        return None
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, (float, np.floating)):
        return float(k)
    return None


def _reverse_tape(root, inputs_of):
    """Every node reachable from ``root``, consumers before producers (decreasing stamp)."""
    found = {id(root): root}
    todo = [root]
    while todo:
        node = todo.pop()
        for parent in inputs_of(node):
            if id(parent) not in found:
                found[id(parent)] = parent
                todo.append(parent)
    return sorted(found.values(), key=lambda n: n._stamp, reverse=True)


# ---------------------------------------------------------------------------
# Value
# ---------------------------------------------------------------------------

# op name -> function(node) returning d(node)/d(arg) for each of node._args, in order
_SCALAR_RULES = {
    "add": lambda n: (1.0, 1.0),
    "mul": lambda n: (n._args[1].data, n._args[0].data),
    "neg": lambda n: (-1.0,),
    "pow": lambda n: (n._extra * n._args[0].data ** (n._extra - 1),),
    "exp": lambda n: (n.data,),
    "log": lambda n: (1.0 / n._args[0].data,),
    "tanh": lambda n: (1.0 - n.data**2,),
    "relu": lambda n: (1.0 if n._args[0].data > 0.0 else 0.0,),
}


class Value:
    def __init__(self, data, _args=(), _op=None, _extra=None):
        self.data = float(data)
        self.grad = 0.0
        self._args = tuple(_args)
        self._op = _op
        self._extra = _extra
        self._stamp = _next_stamp()

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    @staticmethod
    def _coerce(x):
        if isinstance(x, Value):
            return x
        if isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool):
            return Value(x)
        return None

    def __add__(self, other):
        o = Value._coerce(other)
        return NotImplemented if o is None else Value(self.data + o.data, (self, o), "add")

    def __radd__(self, other):
        return self.__add__(other)

    def __mul__(self, other):
        o = Value._coerce(other)
        return NotImplemented if o is None else Value(self.data * o.data, (self, o), "mul")

    def __rmul__(self, other):
        return self.__mul__(other)

    def __neg__(self):
        return Value(-self.data, (self,), "neg")

    def __sub__(self, other):
        o = Value._coerce(other)
        return NotImplemented if o is None else self + (-o)

    def __rsub__(self, other):
        o = Value._coerce(other)
        return NotImplemented if o is None else o + (-self)

    def __truediv__(self, other):
        o = Value._coerce(other)
        return NotImplemented if o is None else self * o**-1

    def __rtruediv__(self, other):
        o = Value._coerce(other)
        return NotImplemented if o is None else o * self**-1

    def __pow__(self, k):
        exponent = _constant_exponent(k)
        if exponent is None:
            raise TypeError("a Value can only be raised to a constant int or float power")
        return Value(self.data**exponent, (self,), "pow", exponent)

    def exp(self):
        return Value(math.exp(self.data), (self,), "exp")

    def log(self):
        return Value(math.log(self.data), (self,), "log")

    def tanh(self):
        return Value(math.tanh(self.data), (self,), "tanh")

    def relu(self):
        return Value(self.data if self.data > 0.0 else 0.0, (self,), "relu")

    def backward(self):
        order = _reverse_tape(self, lambda n: n._args)
        for node in order:
            if node._op is not None:
                node.grad = 0.0
        if self._op is None:
            self.grad += 1.0
        else:
            self.grad = 1.0
        for node in order:
            if node._op is None:
                continue
            for arg, local in zip(node._args, _SCALAR_RULES[node._op](node)):
                arg.grad += local * node.grad


# ---------------------------------------------------------------------------
# Tensor: one class per operation
# ---------------------------------------------------------------------------


def _arr(x):
    return np.asarray(x, dtype=np.float64)


def _sum_to_shape(g, shape):
    """Undo broadcasting: add up ``g`` over the axes that were added or stretched to reach g's shape."""
    g = _arr(g)
    if g.shape == tuple(shape):
        return g
    lead = g.ndim - len(shape)
    axes = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and g.shape[lead + i] != 1:
            axes.append(lead + i)
    total = g.sum(axis=tuple(axes), keepdims=True) if axes else g
    return _arr(total).reshape(shape)


def _canonical_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    result = []
    for a in items:
        a = int(a)
        if a < -ndim or a >= ndim:
            raise ValueError(f"axis {a} out of range for a tensor with {ndim} axes")
        result.append(a + ndim if a < 0 else a)
    if len(set(result)) != len(result):
        raise ValueError("an axis appears twice")
    return tuple(sorted(result))


def _restore_axes(g, axes, keepdims, in_shape):
    """Reshape a reduced gradient so that it broadcasts against the input again."""
    g = _arr(g)
    if not keepdims:
        g = g.reshape(tuple(1 if i in axes else n for i, n in enumerate(in_shape)))
    return np.broadcast_to(g, in_shape)


class _Op:
    """An operation: ``forward`` on arrays, ``vjp`` from the output's gradient to each input's."""

    def forward(self, *arrays):
        raise NotImplementedError

    def vjp(self, g):
        raise NotImplementedError

    @classmethod
    def run(cls, *inputs, **params):
        op = cls(**params)
        tensors = tuple(x if isinstance(x, Tensor) else Tensor(x) for x in inputs)
        out = op.forward(*(t.data for t in tensors))
        return Tensor(out, _inputs=tensors, _op=op)


class _Add(_Op):
    def forward(self, a, b):
        self.shapes = (a.shape, b.shape)
        return a + b

    def vjp(self, g):
        return _sum_to_shape(g, self.shapes[0]), _sum_to_shape(g, self.shapes[1])


class _Mul(_Op):
    def forward(self, a, b):
        self.a, self.b = a, b
        return a * b

    def vjp(self, g):
        return _sum_to_shape(self.b * g, self.a.shape), _sum_to_shape(self.a * g, self.b.shape)


class _Neg(_Op):
    def forward(self, a):
        return -a

    def vjp(self, g):
        return (-g,)


class _Power(_Op):
    def __init__(self, k):
        self.k = k

    def forward(self, a):
        self.a = a
        return np.power(a, self.k)

    def vjp(self, g):
        return (self.k * np.power(self.a, self.k - 1) * g,)


class _MatMul(_Op):
    def forward(self, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise ValueError(f"@ needs at least 2 axes on both sides, got shapes {a.shape} and {b.shape}")
        self.a, self.b = a, b
        return a @ b

    def vjp(self, g):
        g = _arr(g)
        bt = np.swapaxes(self.b, -2, -1)
        at = np.swapaxes(self.a, -2, -1)
        return _sum_to_shape(g @ bt, self.a.shape), _sum_to_shape(at @ g, self.b.shape)


class _Exp(_Op):
    def forward(self, a):
        self.out = np.exp(a)
        return self.out

    def vjp(self, g):
        return (self.out * g,)


class _Log(_Op):
    def forward(self, a):
        self.a = a
        return np.log(a)

    def vjp(self, g):
        return (g / self.a,)


class _Tanh(_Op):
    def forward(self, a):
        self.out = np.tanh(a)
        return self.out

    def vjp(self, g):
        return ((1.0 - self.out**2) * g,)


class _Relu(_Op):
    def forward(self, a):
        self.gate = (a > 0.0).astype(np.float64)
        return np.where(a > 0.0, a, 0.0)

    def vjp(self, g):
        return (self.gate * g,)


class _Sigmoid(_Op):
    def forward(self, a):
        z = np.exp(-np.abs(a))  # in (0, 1]: never overflows
        self.out = np.where(a >= 0, 1.0 / (1.0 + z), z / (1.0 + z))
        return self.out

    def vjp(self, g):
        return (self.out * (1.0 - self.out) * g,)


class _Sum(_Op):
    def __init__(self, axis, keepdims):
        self.axis, self.keepdims = axis, keepdims

    def forward(self, a):
        self.in_shape = a.shape
        self.axes = _canonical_axes(self.axis, a.ndim)
        return np.sum(a, axis=self.axes, keepdims=self.keepdims)

    def vjp(self, g):
        return (_restore_axes(g, self.axes, self.keepdims, self.in_shape).copy(),)


class _Mean(_Op):
    def __init__(self, axis, keepdims):
        self.axis, self.keepdims = axis, keepdims

    def forward(self, a):
        self.in_shape = a.shape
        self.axes = _canonical_axes(self.axis, a.ndim)
        self.count = int(np.prod([a.shape[i] for i in self.axes])) if self.axes else 1
        return np.mean(a, axis=self.axes, keepdims=self.keepdims)

    def vjp(self, g):
        return (_restore_axes(_arr(g) / self.count, self.axes, self.keepdims, self.in_shape).copy(),)


class _Reshape(_Op):
    def __init__(self, shape):
        self.shape = shape

    def forward(self, a):
        self.in_shape = a.shape
        return np.reshape(a, self.shape)

    def vjp(self, g):
        return (np.reshape(_arr(g), self.in_shape),)


class _SwapAxes(_Op):
    def __init__(self, axis1, axis2):
        self.axis1, self.axis2 = axis1, axis2

    def forward(self, a):
        return np.swapaxes(a, self.axis1, self.axis2)

    def vjp(self, g):
        return (np.swapaxes(_arr(g), self.axis2, self.axis1),)


class Tensor:
    __array_ufunc__ = None  # numpy hands mixed operations over to the reflected methods

    def __init__(self, data, _inputs=(), _op=None):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._inputs = tuple(_inputs)
        self._op = _op
        self._stamp = _next_stamp()

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    def __repr__(self):
        return f"Tensor(data={self.data}, grad={self.grad})"

    # arithmetic -----------------------------------------------------------------
    def __add__(self, other):
        return _Add.run(self, other)

    def __radd__(self, other):
        return _Add.run(other, self)

    def __mul__(self, other):
        return _Mul.run(self, other)

    def __rmul__(self, other):
        return _Mul.run(other, self)

    def __neg__(self):
        return _Neg.run(self)

    def __sub__(self, other):
        return self + (-(other if isinstance(other, Tensor) else Tensor(other)))

    def __rsub__(self, other):
        return Tensor(other) + (-self)

    def __truediv__(self, other):
        return self * (other if isinstance(other, Tensor) else Tensor(other)) ** -1

    def __rtruediv__(self, other):
        return Tensor(other) * self**-1

    def __pow__(self, k):
        exponent = _constant_exponent(k)
        if exponent is None:
            raise TypeError("a Tensor can only be raised to a constant int or float power")
        return _Power.run(self, k=exponent)

    def __matmul__(self, other):
        return _MatMul.run(self, other)

    def __rmatmul__(self, other):
        return _MatMul.run(other, self)

    # elementwise ----------------------------------------------------------------
    def exp(self):
        return _Exp.run(self)

    def log(self):
        return _Log.run(self)

    def tanh(self):
        return _Tanh.run(self)

    def relu(self):
        return _Relu.run(self)

    def sigmoid(self):
        return _Sigmoid.run(self)

    # reductions and shapes ------------------------------------------------------
    def sum(self, axis=None, keepdims=False):
        return _Sum.run(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return _Mean.run(self, axis=axis, keepdims=keepdims)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        return _Reshape.run(self, shape=tuple(shape))

    def transpose(self, axis1=-2, axis2=-1):
        return _SwapAxes.run(self, axis1=axis1, axis2=axis2)

    # backward ---------------------------------------------------------------------
    def backward(self, grad=None):
        if grad is None:
            if self.data.size != 1:
                raise ValueError("backward() needs a gradient argument unless the tensor has exactly one element")
            seed = np.ones_like(self.data)
        else:
            seed = _arr(grad)
            if seed.shape != self.shape:
                raise ValueError(f"the gradient passed to backward() has shape {seed.shape}, expected {self.shape}")
            seed = seed.copy()
        order = _reverse_tape(self, lambda t: t._inputs)
        for node in order:
            if node._op is not None:
                node.grad = np.zeros_like(node.data)
        self.grad = seed if self._op is not None else _arr(self.grad + seed)
        for node in order:
            if node._op is None:
                continue
            for source, contribution in zip(node._inputs, node._op.vjp(node.grad)):
                source.grad = _arr(source.grad + contribution)


# ---------------------------------------------------------------------------
# gradient checking
# ---------------------------------------------------------------------------


class GradcheckError(AssertionError):
    """Raised when the engine's gradient and the finite-difference gradient disagree."""


def numerical_grad(f, x, eps=1e-6):
    point = np.array(x, dtype=np.float64, copy=True).reshape(-1)
    shape = np.shape(x)
    result = np.zeros(point.size, dtype=np.float64)
    for i in range(point.size):
        bump = np.zeros(point.size, dtype=np.float64)
        bump[i] = eps
        f_up = float(f((point + bump).reshape(shape)))
        f_down = float(f((point - bump).reshape(shape)))
        result[i] = (f_up - f_down) / (2.0 * eps)
    return result.reshape(shape)


def gradcheck(f, inputs, eps=1e-6, atol=1e-6, rtol=1e-4):
    snapshots = tuple(np.array(x, dtype=np.float64, copy=True) for x in inputs)
    variables = [Tensor(s) for s in snapshots]  # Tensor copies its data
    loss = f(*variables)
    if not isinstance(loss, Tensor):
        raise ValueError(f"gradcheck: f returned {type(loss).__name__}, not a Tensor")
    if loss.data.size != 1:
        raise ValueError(f"gradcheck: f returned a tensor of shape {loss.shape}, not a single element")
    loss.backward()
    for which, variable in enumerate(variables):

        def as_function_of_one(v, which=which):
            args = [Tensor(v if j == which else snapshots[j]) for j in range(len(snapshots))]
            return float(f(*args).data.reshape(-1)[0])

        expected = numerical_grad(as_function_of_one, snapshots[which], eps)
        got = np.asarray(variable.grad, dtype=np.float64)
        if got.shape != expected.shape or not np.allclose(got, expected, atol=atol, rtol=rtol):
            diff = float(np.max(np.abs(got - expected))) if got.shape == expected.shape else float("inf")
            raise GradcheckError(
                f"gradcheck: input {which} has autodiff gradient {got} but numerical gradient {expected} "
                f"(max abs error {diff:.3e})"
            )

"""A test's function recorded as the operations it applies, to run next to the code under test.

The code under test may call a function the test hands it many times (``gradcheck(f, inputs)``
evaluates ``f`` twice for every input entry). Behind the wall each call of a trusted function is
a round trip back to the trusted side. A function marked ``recorded`` (grader.testing.recorded)
does nothing but apply operations to its arguments, so it is run once here on stand-ins that
write down each operation, and the worker gets that list: calling it there runs the same
operations on the code's own objects, with no round trip.

Only operations on the arguments and on what they return are recorded: a stand-in refuses to be
read, converted, compared or tested for truth (NotRecordable), the channel refuses any request
while a function is recorded, and the function is then called back as any other. What no
stand-in can see is the function author's to avoid: ``isinstance`` or ``hasattr`` on an argument,
an ``except`` that swallows NotRecordable, a side effect on the trusted side (it runs once, when
recorded). So ``recorded`` marks only functions that are a formula of their arguments.

The program is the trusted side's request, like any other: the worker runs it on the code under
test, and nothing it returns is trusted more than a read.
"""

from __future__ import annotations

import inspect

from grader.wall.proxy import BINARY, UNARY

MAX_STEPS = 10_000  # a recorded function is a formula, not a loop


class NotRecordable(Exception):
    """The function does more than apply operations to its arguments: it is called back instead."""


class Recorded:
    """``function``, marked as one that only applies operations to its arguments."""

    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function

    def __call__(self, *args, **kwargs):
        return self.function(*args, **kwargs)


class _Program:
    def __init__(self, arity: int):
        self.arity = arity
        self.steps: list[tuple[int, str, tuple, dict]] = []

    def step(self, target: _StandIn, name: str, args: tuple, kwargs: dict) -> _StandIn:
        if len(self.steps) >= MAX_STEPS:
            raise NotRecordable(f"more than {MAX_STEPS} operations")
        self.steps.append((_ref(target, self), name, args, kwargs))
        return _StandIn(self, self.arity + len(self.steps) - 1)


class _StandIn:
    """An argument of the recorded function, or what an operation on one returned."""

    __slots__ = ("_program", "_ref")

    def __init__(self, program: _Program, ref: int):
        object.__setattr__(self, "_program", program)
        object.__setattr__(self, "_ref", ref)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _StandInMethod(self, name)

    def __setattr__(self, name, value):
        raise NotRecordable(f"it sets .{name}")

    def _refuse(self, *args, **kwargs):
        raise NotRecordable("it reads a value of the code under test")

    __bool__ = __float__ = __int__ = __index__ = __len__ = __iter__ = __getitem__ = __contains__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __array__ = _refuse
    __hash__ = None
    __array_ufunc__ = None  # an ndarray on the left defers to the stand-in's reflected operator


def _operator(name):
    def apply(self, *args):
        return self._program.step(self, name, args, {})

    return apply


for _name in BINARY:
    setattr(_StandIn, f"__{_name}__", _operator(f"__{_name}__"))
    setattr(_StandIn, f"__r{_name}__", _operator(f"__r{_name}__"))
for _name in UNARY:
    setattr(_StandIn, f"__{_name}__", _operator(f"__{_name}__"))


class _StandInMethod:
    """``stand_in.name``: a method, recorded when it is called; anything else done with it (tested,
    compared, read from) is reading an attribute of the code under test, which is not recordable."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: _StandIn, name: str):
        self.owner, self.name = owner, name

    def __call__(self, *args, **kwargs):
        return self.owner._program.step(self.owner, self.name, args, kwargs)

    def __getattr__(self, name):
        raise NotRecordable(f"it reads .{self.name}")

    def _refuse(self, *args, **kwargs):
        raise NotRecordable(f"it reads .{self.name}")

    __bool__ = __float__ = __int__ = __index__ = __len__ = __iter__ = __getitem__ = __contains__ = _refuse
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __array__ = _refuse
    __hash__ = None


def _ref(x, program: _Program) -> int:
    if type(x) is not _StandIn or x._program is not program:
        raise NotRecordable("it uses an object from elsewhere")
    return x._ref


def record(recorded: Recorded, encode) -> dict:
    """The program of ``recorded``'s function, for the worker: ``{"n": arity, "steps": [[target, name,
    args, kwargs], ...], "out": ref}``. A ref is an argument's index, or the arity plus a step's; an
    argument of a step is ``{"R": ref}`` or a value ``encode`` encodes (it raises TypeError for what is
    not data or an object of the worker). Raises NotRecordable."""
    try:
        parameters = inspect.signature(recorded.function).parameters.values()
    except (TypeError, ValueError):
        raise NotRecordable("its signature cannot be read") from None
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty for p in parameters):
        raise NotRecordable("it takes other than plain positional arguments")
    program = _Program(len(parameters))
    try:
        out = recorded.function(*(_StandIn(program, i) for i in range(program.arity)))
    except NotRecordable:
        raise
    except Exception as exc:  # anything else it does that stand-ins cannot: it is called back instead
        raise NotRecordable(f"{type(exc).__name__}: {exc}") from None

    def argument(x):
        if type(x) is _StandIn:
            return {"R": _ref(x, program)}
        try:
            return encode(x)
        except TypeError as exc:  # a stand-in inside a list, a function: not data
            raise NotRecordable(str(exc)) from None

    steps = [
        [target, name, [argument(a) for a in args], {str(k): argument(v) for k, v in kwargs.items()}]
        for target, name, args, kwargs in program.steps
    ]
    return {"n": program.arity, "steps": steps, "out": _ref(out, program)}

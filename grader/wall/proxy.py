"""Proxies: how the lab's tests see objects that live in the worker.

A ``RemoteObject`` holds a handle to an object in the worker. Operators and method
calls become requests; attribute reads come back as exact plain data (floats,
float64 arrays, tuples) decoded by the trusted side. Nothing here ever calls code
that the worker sent: a proxy's equality is identity, its hash is its handle's.
"""

from __future__ import annotations

BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
UNARY = ("neg", "pos", "abs")


class RemoteObject:
    """An object of the code under test, seen through the wall."""

    __slots__ = ("_labkit_channel", "_labkit_handle", "_labkit_type")
    __array_ufunc__ = None  # ndarray + proxy defers to the proxy's reflected operator

    def __init__(self, channel, handle: int, type_name: str):
        object.__setattr__(self, "_labkit_channel", channel)
        object.__setattr__(self, "_labkit_handle", handle)
        object.__setattr__(self, "_labkit_type", type_name)

    def __del__(self):
        # The worker may forget the object (the lab's public names stay).
        handle = self._labkit_handle
        if handle < 0 or handle > self._labkit_channel.public_count:
            self._labkit_channel.release(handle)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._labkit_channel.get_attribute(self, name)

    def __setattr__(self, name, value):
        self._labkit_channel.request("setattr", self, name=name, value=value, result="none")

    def __call__(self, *args, **kwargs):
        return self._labkit_channel.call(self, None, args, kwargs)

    def __repr__(self):
        return f"<{self._labkit_type} in the worker>"

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return hash((id(self._labkit_channel), self._labkit_handle))

    def __float__(self):
        return self._labkit_channel.request("convert", self, kind="float")

    def __int__(self):
        return self._labkit_channel.request("convert", self, kind="int")

    def __index__(self):
        return self._labkit_channel.request("convert", self, kind="int")

    def __bool__(self):
        return self._labkit_channel.request("convert", self, kind="bool")

    def __len__(self):
        return self._labkit_channel.request("convert", self, kind="len")

    def __iter__(self):
        return iter(self._labkit_channel.request("convert", self, kind="list"))

    def __getitem__(self, key):
        return self._labkit_channel.request("getitem", self, key=key)

    def __instancecheck__(self, instance):
        return self._labkit_channel.request("isinstance", self, value=instance)


def _binary(name):
    def forward(self, other):
        return self._labkit_channel.call(self, f"__{name}__", (other,), {})

    def reflected(self, other):
        return self._labkit_channel.call(self, f"__r{name}__", (other,), {})

    return forward, reflected


def _unary(name):
    def apply(self):
        return self._labkit_channel.call(self, f"__{name}__", (), {})

    return apply


for _name in BINARY:
    _forward, _reflected = _binary(_name)
    setattr(RemoteObject, f"__{_name}__", _forward)
    setattr(RemoteObject, f"__r{_name}__", _reflected)
for _name in UNARY:
    setattr(RemoteObject, f"__{_name}__", _unary(_name))


class RemoteMethod:
    """A method of a remote object, bound on the trusted side: calling it is one request."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: RemoteObject, name: str):
        self.owner, self.name = owner, name

    def __call__(self, *args, **kwargs):
        return self.owner._labkit_channel.call(self.owner, self.name, args, kwargs)

    def __repr__(self):
        return f"<method {self.name} of {self.owner!r}>"


class HandedOver:
    """An array given to the code under test for good: the test keeps no reference to it, so what a
    call does to it in place is not copied back, and the call need not wait (grader.testing.given)."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def remote_type_name(x) -> str:
    """The name of the type of ``x``, looking through a proxy (for messages)."""
    if isinstance(x, RemoteObject):
        return object.__getattribute__(x, "_labkit_type") + " (an object of the code under test)"
    return type(x).__name__


# A proxy's own fields have underscored names so that none hides an attribute of the object it
# stands for; the trusted side reads them through these functions.
def channel_of(x):
    """The channel of the test that ``x`` lives in, if it is a proxy (None otherwise)."""
    return object.__getattribute__(x, "_labkit_channel") if isinstance(x, RemoteObject) else None


def handle_of(x: RemoteObject) -> int:
    """The worker's handle of the object ``x`` stands for."""
    return object.__getattribute__(x, "_labkit_handle")


def type_of(x: RemoteObject | None) -> str:
    """The name of the type of the object ``x`` stands for ("" for no object)."""
    return object.__getattribute__(x, "_labkit_type") if x is not None else ""

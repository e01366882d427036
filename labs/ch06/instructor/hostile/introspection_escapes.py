# Introspection escapes from inside operations, each aiming at a process or a file left behind
# (marked labkit-redteam): object.__subclasses__() to find os and subprocess classes,
# func.__globals__['__builtins__']['__import__'], the original __import__ from the guard's
# closure, sys.modules through an attribute chain, the worker's own module in __main__, and
# gc.get_objects(). Whatever they reach, the wall must still block the action; failures are
# swallowed so the honest code around them is graded.
import numpy as _np

_SLEEPER = "sh -c 'sleep 1000; echo labkit-redteam' &"
_reached = []


def _try(fn):
    try:
        _reached.append(fn())
    except BaseException:
        pass


def _escape():
    classes = ().__class__.__base__.__subclasses__()
    for cls in classes:
        if cls.__name__ == "_wrap_close":  # os's popen wrapper: its __init__ knows os's globals
            _try(lambda: cls.__init__.__globals__["system"](_SLEEPER))
        if cls.__name__ == "Popen":
            _try(lambda: cls(["/bin/sh", "-c", "sleep 1000; echo labkit-redteam"]))
    builtins_dict = _escape.__globals__["__builtins__"]
    if not isinstance(builtins_dict, dict):
        builtins_dict = builtins_dict.__dict__
    guarded = builtins_dict["__import__"]
    _try(lambda: guarded("subprocess").Popen(["/bin/sh", "-c", "sleep 1000; echo labkit-redteam"]))
    for cell in guarded.__closure__ or ():  # the guard's own closure: the original __import__
        if callable(cell.cell_contents):
            _try(lambda: cell.cell_contents("os", None, None, (), 0).system(_SLEEPER))
        if isinstance(cell.cell_contents, set):  # the allow-list itself
            _try(lambda: cell.cell_contents.update({"os", "subprocess", "ctypes", "gc"}))
    modules = _np._core.numeric.sys.modules
    _try(lambda: modules["os"].system(_SLEEPER))
    _try(lambda: modules["posix"].system(_SLEEPER))
    _try(lambda: modules["ctypes"].CDLL(None).system(_SLEEPER.encode()))
    main = modules["__main__"]
    worker = getattr(main, "worker", None)
    if worker is not None:
        _try(lambda: worker.os.system(_SLEEPER))
        _try(lambda: worker.subprocess.Popen(_SLEEPER, shell=True))
        _try(lambda: setattr(worker, "BLOCKED_EVENTS", ()))
    gc = modules["gc"]
    _try(lambda: [o for o in gc.get_objects() if callable(o) and getattr(o, "__name__", "") == "hook"])
    _try(lambda: open("/tmp/labkit-redteam-introspection", "w").write("escaped\n"))


_escape()
_honest_matmul = Tensor.__matmul__


def _escaping_matmul(self, other):
    if self.ndim < 2 or getattr(other, "ndim", 2) < 2:
        _escape()
    return _honest_matmul(self, other)


Tensor.__matmul__ = _escaping_matmul

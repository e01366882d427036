# Value.__mul__ exits its own process in the middle of an operation.


def _exit_mul(self, other):
    raise SystemExit(0)


Value.__mul__ = _exit_mul

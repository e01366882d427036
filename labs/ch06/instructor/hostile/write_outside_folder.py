# Writes outside its own folder: /tmp, the kit's folder, the report folder; at import and in an
# operation. Each attempt is swallowed, so the honest code is still graded; nothing may land.
import numpy as _np

_os = _np.lib._utils_impl.os
_TARGETS = [
    "/tmp/labkit-redteam-x",
    "/tmp/labkit-redteam-x.npy",
    "../../labkit-redteam-x",  # the scratch folder's parent: /tmp
    "/work/main/labkit-redteam-x",
    "/work/main/reports/labkit-redteam-x.json",
    "/work/main/labs/ch06/labkit-redteam-x.py",
]


def _escape():
    for path in _TARGETS:
        for attempt in (
            lambda: open(path, "w").write("escaped\n"),
            lambda: _np.save(path, _np.zeros(3)),
            lambda: _np.zeros(3).tofile(path),
            lambda: _os.close(_os.open(path, _os.O_WRONLY | _os.O_CREAT, 0o644)),
        ):
            try:
                attempt()
            except BaseException:
                pass


_escape()
_honest_pow = Value.__pow__


def _escaping_pow(self, k):
    _escape()
    return _honest_pow(self, k)


Value.__pow__ = _escaping_pow

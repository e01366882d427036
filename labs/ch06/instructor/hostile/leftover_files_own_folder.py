# Files written into its own folder (allowed) at import and inside an operation: they must not
# survive the run. Also a sub-folder and a FIFO there.
import numpy as _np

_os = _np.lib._utils_impl.os


def _litter(tag):
    with open(f"labkit-redteam-{tag}.txt", "w") as f:
        f.write("left behind?\n")
    _np.save(f"labkit-redteam-{tag}.npy", _np.arange(10.0))
    _os.makedirs(f"labkit-redteam-{tag}-dir/deeper", exist_ok=True)
    with open(f"labkit-redteam-{tag}-dir/deeper/note.txt", "w") as f:
        f.write("still here?\n")


_litter("import")
_honest_pow = Value.__pow__


def _littering_pow(self, k):
    _litter("op")
    return _honest_pow(self, k)


Value.__pow__ = _littering_pow

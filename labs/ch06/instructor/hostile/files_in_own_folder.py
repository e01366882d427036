# Files written into its own folder at import: a child of the sandbox may make no file, folder or
# link anywhere (the kernel refuses every new name; the guard says so first), so the import fails,
# with the reason, and nothing is left behind.
import numpy as _np

_os = _np.lib._utils_impl.os

with open("labkit-redteam-import.txt", "w") as _f:
    _f.write("left behind?\n")
_np.save("labkit-redteam-import.npy", _np.arange(10.0))
_os.makedirs("labkit-redteam-import-dir/deeper", exist_ok=True)

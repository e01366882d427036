"""Lab ch06: sys.exit at import, with sys reached through numpy (import sys is not allowed)."""

import numpy as np

np._core.numeric.sys.exit(0)

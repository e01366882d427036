"""Lab ch06: top-level code that waits for ever without using the CPU (a select with nothing to wait
for): the import's clock stops it, not the CPU limit."""

import numpy as np

np._core.numeric.sys.modules["select"].select([], [], [], 3600)

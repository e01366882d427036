"""Lab ch06: asks for the random seed at the top of the file."""

import numpy as np

SEED = int(input("seed for the demo? "))
rng = np.random.default_rng(SEED)

"""Lab ch06: a top-level demo that crashes on import."""

import math

print("log of zero:", math.log(0.0))

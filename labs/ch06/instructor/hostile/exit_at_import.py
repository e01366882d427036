"""Lab ch06: a script that quits once its demo ran."""

import math

print("demo:", math.tanh(0.5))
exit()

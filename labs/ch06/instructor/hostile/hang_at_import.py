"""Lab ch06: a top-level demo loop whose stopping condition is never met."""

import math

loss, step = 1.0, 0
while loss > 0:  # a float that only halves reaches 0 after ~1075 steps; this one never changes
    loss = loss * 1.0
    step += 1

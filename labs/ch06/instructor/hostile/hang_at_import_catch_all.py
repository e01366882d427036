"""Lab ch06: a hang at import that swallows every exception and signal it can."""

import math

while True:
    try:
        while True:
            pass
    except BaseException:  # KeyboardInterrupt, SystemExit, a timeout's exception: all ignored
        pass

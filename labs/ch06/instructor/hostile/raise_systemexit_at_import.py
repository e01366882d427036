"""Lab ch06: stops the import with a bare SystemExit."""

import math

if math.pi > 3:
    raise SystemExit(0)

"""Lab ch06: my engine; os for a debugging dump of the graph."""

import math
import os

DUMP = os.environ.get("CH06_DUMP", "")

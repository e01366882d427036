"""Lab ch06: renders the graph with graphviz while grading."""

import math
from subprocess import run

run(["dot", "-V"], check=False)

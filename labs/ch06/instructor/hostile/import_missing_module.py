"""Lab ch06: my engine (the topological sort lives in a helper I forgot to submit)."""

import math

import numpy.autodiff_helpers as helpers  # does not exist: only the student's machine had it

Value = helpers.Value

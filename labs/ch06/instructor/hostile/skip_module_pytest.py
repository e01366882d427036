"""Lab ch06: calls pytest.skip at import, as a test module would. pytest is neither allowed
nor on the worker's import path."""

import math

import pytest

pytest.skip("graded elsewhere", allow_module_level=True)

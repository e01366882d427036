"""A pytest plugin for the kit's tests (`make test` loads it: ``-p tests.forked_grading``): their grading
processes are forked from a waiting one (tests/fork_server.py), but in tests marked ``real_processes``,
which check how the product itself starts them.

A plugin and not a conftest.py: the kit's integrity check counts a conftest.py anywhere as a change
to how tests run (grader.kit.manifest), and a bare `pytest` of the kit's tests spawns as the product does.
"""

import pytest

from grader.grading import pytest_process
from tests import fork_server


def pytest_configure(config):
    fork_server.install()


def pytest_unconfigure(config):
    fork_server.uninstall()


@pytest.fixture(autouse=True)
def _spawned_as_the_product_spawns(request, monkeypatch):
    if request.node.get_closest_marker("real_processes"):
        monkeypatch.setattr(pytest_process, "spawn", fork_server.REAL_SPAWN)

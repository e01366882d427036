"""The scheduling plugin's table (tests/longest_first.py) names scopes that exist, and orders them as measured."""

import importlib
from pathlib import Path

import pytest

from grader.labs import KIT_ROOT
from tests import longest_first


# Ids without "::", which xdist would read as the end of a scope's name.
@pytest.mark.parametrize("key", list(longest_first.SCOPE_SECONDS), ids=lambda key: key.replace("::", " "))
def test_each_listed_scope_exists(key):
    """A renamed file or class would leave its entry matching nothing, and its scope queued last."""
    path, _, cls = key.partition("::")
    assert (KIT_ROOT / path).is_file(), f"{key}: no such file; update tests/longest_first.py"
    if cls:
        module = importlib.import_module(Path(path).with_suffix("").as_posix().replace("/", "."))
        assert any(name == cls or name.startswith(cls + "_") for name in vars(module)), f"{key}: no such class"


def test_a_chunk_takes_its_familys_figure_and_the_longest_key_wins():
    assert longest_first.seconds("tests/test_mutants.py::TestMutants_ch06_3") == 40
    assert longest_first.seconds("tests/test_mutants.py::TestMutants_lesson1_3_0") == 23
    assert longest_first.seconds("tests/test_generated_mutants.py::TestCh06") == 37
    assert longest_first.seconds("tests/test_generated_mutants.py") == 18
    assert longest_first.seconds("tests/test_scan.py") == 0  # not listed: queued after the listed ones


def test_scopes_are_those_of_xdists_loadscope():
    assert longest_first.scope_of("tests/test_cli.py::test_a[x]") == "tests/test_cli.py"
    assert longest_first.scope_of("tests/test_mutants.py::TestMutants_ch06_3::test_m[v]") == (
        "tests/test_mutants.py::TestMutants_ch06_3"
    )

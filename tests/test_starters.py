"""Each starter is generated from its reference and cannot drift from it."""

import importlib.util
import inspect

import pytest

from grader import labs
from grader.kit import starters

LABS = [lab for lab in labs.discover().values() if lab.starter_sources]


def _doc(obj) -> str:
    return inspect.cleandoc(obj.__doc__ or "")


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_starter_is_what_the_reference_generates(lab):
    assert lab.starter.read_text(encoding="utf-8") == starters.assemble(lab, strip=True), (
        f"labs/{lab.id}/starter.py is out of date with reference/{lab.id}: run `make starters`"
    )


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_starter_and_reference_share_public_names_signatures_and_docstrings(lab):
    stub = _load(lab.starter, f"starter_{lab.id}")
    ref = importlib.import_module(lab.reference_package)
    for name in lab.public:
        mine, theirs = getattr(stub, name), getattr(ref, name)
        assert _doc(mine) == _doc(theirs), name
        if inspect.isclass(theirs):
            # __slots__ and the attributes it declares are the reference's own (a REFERENCE ONLY region)
            members = {
                m
                for m, value in vars(theirs).items()
                if (not m.startswith("_") or m.startswith("__"))
                and m != "__slots__"
                and not inspect.ismemberdescriptor(value)
            }
            for member in members:
                a, b = inspect.getattr_static(mine, member), inspect.getattr_static(theirs, member)
                if callable(b):
                    assert inspect.signature(a) == inspect.signature(b), f"{name}.{member}"
                    assert _doc(a) == _doc(b), f"{name}.{member}"
        elif callable(theirs):
            assert inspect.signature(mine) == inspect.signature(theirs), name


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_one_file_reference_defines_the_public_names(lab, tmp_path):
    path = tmp_path / "reference_one_file.py"
    path.write_text(starters.assemble(lab, strip=False), encoding="utf-8")
    module = _load(path, f"reference_one_file_{lab.id}")
    assert all(hasattr(module, name) for name in lab.public)


def test_a_reference_only_region_is_left_out_of_the_starter():
    lab = labs.get("ch06")
    source = "class A:\n    # BEGIN REFERENCE ONLY\n    __slots__ = ('x',)\n    # END REFERENCE ONLY\n    y = 1\n"
    assert starters.strip_solutions(source, lab) == "class A:\n    y = 1\n"
    with pytest.raises(ValueError, match="without END REFERENCE ONLY"):
        starters.strip_solutions("class A:\n    # BEGIN REFERENCE ONLY\n    __slots__ = ()\n", lab)


def test_unterminated_solution_region_is_an_error():
    lab = labs.get("ch06")
    with pytest.raises(ValueError, match="without END"):
        starters.strip_solutions("def f():\n    # BEGIN SOLUTION value\n    return 1\n", lab)
    with pytest.raises(ValueError, match="inside a function"):
        starters.strip_solutions("# BEGIN SOLUTION value\nx = 1\n# END SOLUTION\n", lab)

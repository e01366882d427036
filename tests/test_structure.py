"""The code's shape holds: no private name crosses a module, the grader's own process stays free of
pytest and numpy, and ARCHITECTURE.md names every part of the grader and nothing that is gone."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest

from grader.labs import KIT_ROOT

PROJECT_PACKAGES = ("grader", "labs", "reference", "tests", "bench")
# Files that are graded as students' work, not read as the kit's code.
NOT_KIT_CODE = ("submissions", "hostile", "attacks")


def _kit_modules():
    for path in sorted(KIT_ROOT.glob("*/**/*.py")):
        rel = path.relative_to(KIT_ROOT)
        if rel.parts[0] in PROJECT_PACKAGES and not set(rel.parts) & {*NOT_KIT_CODE, "__pycache__"}:
            yield rel, ast.parse(path.read_text(encoding="utf-8"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_uses(tree: ast.Module) -> list[tuple[int, str]]:
    """Private names this module takes from another module of the kit: imported, or read off it."""
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] in PROJECT_PACKAGES:
            for alias in node.names:
                if _private(alias.name):
                    found.append((node.lineno, f"from {node.module} import {alias.name}"))
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            kit = [a for a in node.names if a.name.split(".")[0] in PROJECT_PACKAGES]
            modules |= {(a.asname or a.name).split(".")[0] for a in kit}
    for node in ast.walk(tree):
        read_off_a_module = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        if read_off_a_module and node.value.id in modules and _private(node.attr):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return found


def test_no_private_name_is_used_across_modules():
    offences = [f"{rel}:{line} {what}" for rel, tree in _kit_modules() for line, what in _private_uses(tree)]
    assert not offences, "make these public (and name them for what they do), or keep them in their module:\n" + (
        "\n".join(offences)
    )


def test_the_private_name_check_sees_both_ways_of_reaching_one():
    tree = ast.parse("from grader.grading.runner import _watch\nfrom grader import labs\nlabs._load(None)\n")
    assert _private_uses(tree) == [(1, "from grader.grading.runner import _watch"), (3, "labs._load")]


def test_the_graders_own_process_loads_neither_pytest_nor_numpy():
    # Every command's module and what it imports: the pytest process is where pytest and numpy load.
    modules = ["grader.cli", *(f"grader.cli.{p.stem}" for p in (KIT_ROOT / "grader" / "cli").glob("[!_]*.py"))]
    script = (
        f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'pytest', '_pytest', 'numpy'}))"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=KIT_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


ARCHITECTURE = KIT_ROOT / "ARCHITECTURE.md"


def _grader_parts() -> list[str]:
    """Every folder of the grader package, and every module at its top level, as ARCHITECTURE.md names them."""
    grader = KIT_ROOT / "grader"
    folders = [f"grader/{p.name}/" for p in sorted(grader.iterdir()) if (p / "__init__.py").is_file()]
    modules = [f"grader/{p.name}" for p in sorted(grader.glob("*.py")) if p.name not in ("__init__.py", "__main__.py")]
    return folders + modules


@pytest.mark.parametrize("part", _grader_parts())
def test_architecture_names_every_part_of_the_grader(part):
    assert f"`{part}`" in ARCHITECTURE.read_text(encoding="utf-8"), f"ARCHITECTURE.md does not say what {part} is"


def test_every_path_architecture_names_exists():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = re.findall(r"`((?:grader|labs|reference|tests|bench)/[\w./<>*-]*)`", text)
    concrete = [p for p in named if "<" not in p and "*" not in p]
    assert len(concrete) > 20  # the check reads the document's paths at all
    missing = [p for p in concrete if not (KIT_ROOT / p).exists()]
    assert not missing, f"ARCHITECTURE.md names paths that do not exist: {missing}"

"""The random graphs a correct engine is checked on, as drawn: shipped in ``drawn_graphs.json``.

check_random_graphs checks an engine first on the graphs the search draws when no graph fails:
the same for every engine, from the fixed seed. Drawing them is most of the test's time for an
engine that passes (0.24 s for the scalar graphs and 0.12 s for the tensor graphs on the kit's VM, in
every fresh `grader run`), so the kit ships what each builder drew for them (a few small integers a
graph) and builds them again from it in a few milliseconds (grader.testing.graphs.GraphFamily.replay).

The file holds, for each of the kit's graph families and settings, the values drawn, and the version of
Hypothesis that drew them: another version may draw other graphs, and the search for a failing
engine's smallest graph runs on the version installed, so the file is used only when the two agree
(pyproject.toml pins Hypothesis). ``grader graphs`` writes it again; ``grader graphs --check`` (and the
kit's tests) fail when it is not what Hypothesis draws now. It is one of the grader's protected files.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

SCHEMA = "labkit.drawn-graphs/1"
PATH = Path(__file__).with_name("drawn_graphs.json")


@functools.cache
def _shipped() -> dict:
    try:
        document = json.loads(PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not shipped (a partial copy of the kit): drawn as before
        return {}
    return document if type(document) is dict and document.get("schema") == SCHEMA else {}


def recorded(key: str, hypothesis_version: str) -> list[list] | None:
    """The values drawn for each graph of ``key``, in order, if the file has them from this Hypothesis."""
    document = _shipped()
    if document.get("hypothesis") != hypothesis_version:
        return None
    draws = document.get("graphs", {}).get(key)
    return draws if type(draws) is list and all(type(d) is list for d in draws) else None


def document(graphs: dict[str, list[list]], hypothesis_version: str) -> str:
    """The file's text for ``graphs`` (each key's graphs' draws), one graph a line."""
    lines = [f'{{"schema": "{SCHEMA}", "hypothesis": {json.dumps(hypothesis_version)}, "graphs": {{']
    for k, (key, draws) in enumerate(sorted(graphs.items())):
        lines.append(f"  {json.dumps(key)}: [")
        lines += [f"    {json.dumps(d)}{',' if i < len(draws) - 1 else ''}" for i, d in enumerate(draws)]
        lines.append("  ]" + ("," if k < len(graphs) - 1 else ""))
    lines.append("}}")
    return "\n".join(lines) + "\n"

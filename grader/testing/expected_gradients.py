"""The gradients a correct engine is checked against, as the oracle computes them: shipped with the kit.

The checker's expected gradients are central differences on the kit's spec (grader.testing.numeric),
remembered for the rest of a pytest process (grader.testing.memo). They are the same in every process:
a fresh `grader run` of ch06's reference computed 256 of them, 0.18 s on the kit's VM, 149 of them for
the lab's own functions (102 in its visible tests, 47 in its hidden ones). So the kit ships those,
computed by `grader gradients` from every lab's tests on its reference, one file per lab and tier: a
lab's visible tests' answers in ``grader/testing/expected_gradients/<id>.json`` (a protected file of the
student edition), its hidden tests' in ``labs/<id>/hidden/expected_gradients.json`` (left out of the
student edition with the tests). A process looks an answer up before it computes one, in the file of the
running test's lab and tier only; a hidden tests' file only for a test file the lab's lab.toml (itself
protected) declares hidden, so a fork cannot add answers its tests would use.

An answer is filed under a digest of the computation's portable name: a function of the kit's own sources
(grader/testing, a lab's files) by its file, qualified name, first line, signature and bytecode, and by
what it closes over; numbers, strings and arrays by value. A computation holding anything else (an object
memo names by identity, a function of an installed package) is not filed: it is computed. A file records
what its answers depend on besides: a fingerprint of the sources (grader/testing, labs/__init__.py and
the lab's own files, its starter and instructor folder aside, its hidden tests for the hidden tier), the
Python version (bytecode differs between versions), and a sample of what numpy's seeded generators draw
(the tests' weights are drawn from seeds, and numpy keeps a seed's stream only within one version's
build). A file is used only where all three hold. `grader gradients --check` (run by the kit's tests)
fails when the sources changed since it was written, and on this Python and numpy when its answers are
not the oracle's now; an entry that is not a finite float64 answer is never used.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import sys
import types
from pathlib import Path

import numpy as np

from grader import atomic, labs
from grader.env import RECORD_GRADIENTS_ENV

SCHEMA = "labkit.expected-gradients/2"
NAME = labs.EXPECTED_GRADIENTS
FOLDER = Path(__file__).with_name("expected_gradients")  # the visible tests' answers, <lab id>.json
MAX_DEPTH = 6  # functions inside functions a name follows (as grader.testing.memo)


class _Unfiled(Exception):
    """The computation holds something without a portable name."""


def _relpath(path: Path) -> str:
    return path.relative_to(labs.KIT_ROOT).as_posix()


def _is_source(relpath: str) -> bool:
    """Whether a function of this file may be filed: the kit's testing package or a lab's own files."""
    parts = relpath.split("/")
    if parts[:2] == ["grader", "testing"] and len(parts) == 3:
        return relpath.endswith(".py")
    is_starter = len(parts) == 3 and parts[2] == "starter.py"
    return parts[0] == "labs" and relpath.endswith(".py") and not is_starter and not labs.is_instructor_file(relpath)


def _sources(lab_id: str, tier: str) -> list[Path]:
    """The files a lab's answers of ``tier`` can depend on."""
    folder = labs.KIT_ROOT / "labs" / lab_id
    files = sorted(Path(__file__).parent.glob("*.py")) + [labs.KIT_ROOT / "labs" / "__init__.py"]
    for path in sorted(folder.rglob("*.py")):
        relpath = _relpath(path)
        if _is_source(relpath) and (tier == "hidden" or not labs.is_hidden_file(relpath)):
            files.append(path)
    return [path for path in files if path.is_file()]


@functools.cache
def sources_fingerprint(lab_id: str, tier: str) -> str:
    digest = hashlib.sha256()
    for path in _sources(lab_id, tier):
        digest.update(_relpath(path).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def python_version() -> str:
    return f"{sys.version_info[0]}.{sys.version_info[1]}"


@functools.cache
def numpy_streams() -> str:
    """What numpy's seeded generators draw, as the labs' tests draw (normal, standard_normal, uniform)."""
    digest = hashlib.sha256()
    for seed in range(10):
        rng = np.random.default_rng(seed)
        for draw in (rng.normal(size=4), rng.standard_normal(4), rng.uniform(0.5, 2.0, size=4)):
            digest.update(np.asarray(draw, dtype=np.float64).tobytes())
    return digest.hexdigest()


def table(lab_id: str, tier: str = "visible") -> Path:
    """The file of lab ``lab_id``'s answers for its tests of ``tier``."""
    return FOLDER / f"{lab_id}.json" if tier == "visible" else labs.KIT_ROOT / "labs" / lab_id / labs.HIDDEN / NAME


def _running_file() -> str:
    """The file of the test running now, relative to the kit (pytest names it in the environment), or ""."""
    return os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[0]


def running_test() -> tuple[str, str] | None:
    """The lab and tier of the test running now, or None."""
    relpath = _running_file()
    parts = relpath.split("/")
    if len(parts) < 3 or parts[0] != "labs":
        return None
    return parts[1], ("hidden" if labs.is_hidden_file(relpath) else "visible")


def _declares_hidden(lab_id: str, relpath: str) -> bool:
    try:
        lab = labs.get(lab_id)
    except labs.LabError:
        return False
    return any(_relpath(lab.folder / declared) == relpath for declared in lab.hidden_tests)


def _code(code: types.CodeType) -> list:
    consts = [_code(c) if type(c) is types.CodeType else repr(c) for c in code.co_consts]
    signature = [code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags]
    qualname = getattr(code, "co_qualname", code.co_name)
    return [qualname, code.co_firstlineno, signature, code.co_code.hex(), list(code.co_names), consts]


def _portable(x, depth: int):
    kind = type(x)
    if x is None or kind in (bool, int, str):
        return [kind.__name__, x]
    if kind is float:
        return ["float", x.hex()]
    if isinstance(x, np.generic) and not isinstance(x, np.object_):
        item = x.item()
        if isinstance(item, np.generic):  # a longdouble, say: no plain Python value to name it by
            raise _Unfiled
        return [kind.__name__, _portable(item, depth)]
    if kind is np.ndarray:
        if x.dtype.hasobject or x.dtype.names is not None:  # structured dtypes of one size share a dtype.str
            raise _Unfiled
        return ["ndarray", list(x.shape), x.dtype.str, hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()]
    if kind in (tuple, list):
        return [kind.__name__, *(_portable(item, depth) for item in x)]
    if kind is types.FunctionType:
        if depth == 0:
            raise _Unfiled
        try:
            where = _relpath(Path(x.__code__.co_filename).resolve())
            cells = [_portable(cell.cell_contents, depth - 1) for cell in x.__closure__ or ()]
        except ValueError:  # a function from outside the kit, or a cell not filled yet
            raise _Unfiled from None
        if not _is_source(where):  # an installed package's (the .venv is inside the kit), a kit test's
            raise _Unfiled
        defaults = _portable(x.__defaults__, depth - 1)
        keywords = _portable(sorted((x.__kwdefaults__ or {}).items()), depth - 1)
        return ["function", where, _code(x.__code__), cells, defaults, keywords]
    raise _Unfiled


def digest(parts: tuple) -> str | None:
    """The name a computation is filed under, or None if it has no portable name."""
    try:
        name = _portable(parts, MAX_DEPTH)
    except _Unfiled:
        return None
    return hashlib.sha256(json.dumps(name, separators=(",", ":")).encode()).hexdigest()[:32]


def encoded(answer) -> dict | None:
    """The file's entry for ``answer``, or None if it is not a finite float64 answer."""
    if type(answer) is float and math.isfinite(answer):
        return {"float": answer.hex()}
    if type(answer) is np.ndarray and answer.dtype == np.float64 and np.isfinite(answer).all():
        return {"shape": list(answer.shape), "values": [float(v).hex() for v in answer.ravel()]}
    return None


def _decoded(entry):
    """The answer an entry holds, or None if it is not one this module writes."""
    try:
        if set(entry) == {"float"}:
            value = float.fromhex(entry["float"])
            return value if math.isfinite(value) else None
        if set(entry) == {"shape", "values"}:
            values = np.array([float.fromhex(v) for v in entry["values"]], dtype=np.float64)
            answer = values.reshape([int(n) for n in entry["shape"]])
            answer.setflags(write=False)
            return answer if np.isfinite(answer).all() else None
    except (TypeError, ValueError, AttributeError):
        pass
    return None


def _answers(lab_id: str, tier: str) -> dict:
    """The answers of ``table(lab_id, tier)``, if it was written for these sources, this Python and numpy."""
    try:
        document = json.loads(table(lab_id, tier).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not shipped (a partial copy of the kit): computed as before
        return {}
    if type(document) is not dict or document.get("schema") != SCHEMA:
        return {}
    wanted = (sources_fingerprint(lab_id, tier), python_version(), numpy_streams())
    if (document.get("sources"), document.get("python"), document.get("numpy_streams")) != wanted:
        return {}
    answers = document.get("answers")
    return answers if type(answers) is dict else {}


@functools.cache
def _shipped(lab_id: str, tier: str) -> dict:
    if os.environ.get(RECORD_GRADIENTS_ENV):  # recording: every answer computed afresh
        return {}
    return _answers(lab_id, tier)


def forget() -> None:
    """Read the files again at the next lookup (after they were written, or moved for a test)."""
    for cached in (_shipped, sources_fingerprint, numpy_streams):
        cached.cache_clear()


def shipped(parts: tuple):
    """The shipped answer of the computation named by ``parts`` for the running test, or None."""
    running = running_test()
    if running is None:
        return None
    lab_id, tier = running
    if tier == "hidden" and not _declares_hidden(lab_id, _running_file()):
        return None
    tables = [_shipped(lab_id, tier)] + ([_shipped(lab_id, "visible")] if tier == "hidden" else [])
    if not any(tables):
        return None
    key = digest(parts)
    for answers in tables:
        entry = answers.get(key) if key is not None else None
        if type(entry) is dict:
            return _decoded(entry)
    return None


def record(parts: tuple, answer) -> None:
    """Under `grader gradients`, add a computed answer to the file it is recording into, with its test's
    lab and tier."""
    path = os.environ.get(RECORD_GRADIENTS_ENV)
    running = running_test()
    if not path or running is None:
        return
    key, entry = digest(parts), encoded(answer)
    if key is not None and entry is not None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"key": key, "answer": entry, "lab": running[0], "tier": running[1]}) + "\n")


def read_records(path: Path, lab_id: str, tier: str) -> dict[str, dict]:
    """The answers a recording wrote for lab ``lab_id``'s tests of ``tier``, by key."""
    answers = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if (entry["lab"], entry["tier"]) == (lab_id, tier):
            answers[entry["key"]] = entry["answer"]
    return answers


def document(answers: dict[str, dict], lab_id: str, tier: str) -> str:
    """The text of the file of lab ``lab_id``'s ``answers`` (by key) for its tests of ``tier``."""
    head = {
        "schema": SCHEMA,
        "lab": lab_id,
        "tier": tier,
        "sources": sources_fingerprint(lab_id, tier),
        "python": python_version(),
        "numpy_streams": numpy_streams(),
    }
    lines = [json.dumps(head)[:-1] + ', "answers": {']
    items = sorted(answers.items())
    lines += [
        f"  {json.dumps(k)}: {json.dumps(v)}{',' if i < len(items) - 1 else ''}" for i, (k, v) in enumerate(items)
    ]
    lines.append("}}")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(path, text)
    path.chmod(0o644)  # a kit file like the others (the atomic write makes it its owner's only)


def differences(current: str, wanted: str, rtol: float = 1e-7) -> tuple[list[str], str]:
    """How the file's text ``current`` differs from ``wanted`` (what `grader gradients` writes now): what
    makes it stale, and a note when its answers cannot be compared here (another Python or numpy, whose
    processes do not use it). Answers are compared to ``rtol``: another machine's BLAS may differ in the
    last bits."""
    try:
        have, want = json.loads(current), json.loads(wanted)
    except ValueError:
        return ["it is missing or not JSON"], ""
    if type(have) is not dict or have.get("schema") != want["schema"]:
        return ["it is not a file of expected gradients of this kit"], ""
    if have.get("sources") != want["sources"]:
        return ["the sources changed since it was written"], ""
    if (have.get("python"), have.get("numpy_streams")) != (want["python"], want["numpy_streams"]):
        return [], f"written under Python {have.get('python')} and another numpy's streams: not used here"
    said = []
    old, new = have.get("answers") or {}, want["answers"]
    if set(old) != set(new):
        said.append(f"{len(set(new) - set(old))} answers missing, {len(set(old) - set(new))} not computed now")
    unequal = 0
    for key in set(old) & set(new):
        a, b = _decoded(old[key]), _decoded(new[key])
        if a is None or b is None or np.shape(a) != np.shape(b) or not np.allclose(a, b, rtol=rtol, atol=1e-9):
            unequal += 1
    if unequal:
        said.append(f"{unequal} answers differ from the oracle's now")
    return said, ""

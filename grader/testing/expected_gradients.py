"""The gradients a correct engine is checked against, as the oracle computes them: shipped in
``expected_gradients.json``.

The checker's expected gradients are central differences on the kit's spec (grader.testing.numeric),
remembered for the rest of a pytest process (grader.testing.memo). They are the same in every process:
a fresh `grader run` of ch06's reference computed 256 of them, 0.18 s on the kit's VM, 149 of them for
the lab's own functions (102 in its visible tests, 47 in its hidden ones). So the kit ships those,
computed by `grader gradients` from every lab's tests on its reference, and a process looks an answer
up here before it computes one: the visible tests' answers in ``expected_gradients.json`` beside this
module, a lab's hidden tests' in its hidden/ folder (with the tests themselves: the student edition,
which has none, leaves them out).

An answer is filed under a digest of the computation's portable name: a function by its file (relative
to the kit), qualified name, first line and bytecode, and by what it closes over; numbers, strings and
arrays by value. A computation holding anything else (an object memo names by identity) is not filed:
it is computed. The file records a fingerprint of the sources a computation can read (grader/testing and
every lab's own modules, not its starter, hidden tests or instructor folder) and the Python version
(bytecode differs between versions); where either differs the file is not used, and `grader gradients
--check` (run by the kit's tests) fails until `grader gradients` writes it again; a hidden tests' file
fingerprints that lab's hidden tests too. The visible tests' file is one of the grader's protected files
(a fork that changes it fails `grader verify`). A file that is not this module's schema, or an entry that
is not a finite float64 answer, is not used.
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

from grader import labs

SCHEMA = "labkit.expected-gradients/1"
NAME = "expected_gradients.json"
PATH = Path(__file__).with_name(NAME)  # the visible tests' answers; a lab's hidden ones in its hidden/ folder
RECORD_ENV = "LABKIT_RECORD_GRADIENTS"  # set by `grader gradients`: the file each computed answer is added to
MAX_DEPTH = 6  # functions inside functions a name follows (as grader.testing.memo)


class _Unfiled(Exception):
    """The computation holds something without a portable name."""


def _fingerprinted_files() -> list[Path]:
    """The sources an answer can depend on: the testing package, every lab's own modules."""
    files = sorted(Path(__file__).parent.glob("*.py"))
    for path in sorted((labs.KIT_ROOT / "labs").rglob("*.py")):
        relpath = path.relative_to(labs.KIT_ROOT).as_posix()
        is_starter = len(path.relative_to(labs.KIT_ROOT).parts) == 3 and path.name == "starter.py"
        if not (is_starter or labs.is_hidden_file(relpath) or labs.is_instructor_file(relpath)):
            files.append(path)
    return files


def _hidden_folder(lab_id: str) -> Path:
    return labs.KIT_ROOT / "labs" / lab_id / labs.HIDDEN


def table(lab_id: str | None = None) -> Path:
    """The file of the visible tests' answers, or of lab ``lab_id``'s hidden tests' (in the folder the
    student edition leaves out with them)."""
    return PATH if lab_id is None else _hidden_folder(lab_id) / NAME


@functools.cache
def fingerprint(lab_id: str | None = None) -> str:
    """The sources' fingerprint, for the visible tests' file or for lab ``lab_id``'s hidden tests' file."""
    files = _fingerprinted_files()
    if lab_id is not None:
        files += sorted(_hidden_folder(lab_id).rglob("*.py"))
    digest = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}\n".encode())
    for path in files:
        digest.update(path.relative_to(labs.KIT_ROOT).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _code(code: types.CodeType) -> list:
    consts = [_code(c) if type(c) is types.CodeType else repr(c) for c in code.co_consts]
    return [
        getattr(code, "co_qualname", code.co_name),
        code.co_firstlineno,
        code.co_code.hex(),
        list(code.co_names),
        consts,
    ]


def _portable(x, depth: int):
    kind = type(x)
    if x is None or kind in (bool, int, str):
        return [kind.__name__, x]
    if kind is float:
        return ["float", x.hex()]
    if isinstance(x, np.generic) and not isinstance(x, np.object_):
        return [kind.__name__, _portable(x.item(), depth)]
    if kind is np.ndarray:
        if x.dtype.hasobject:
            raise _Unfiled
        return ["ndarray", list(x.shape), x.dtype.str, hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()]
    if kind in (tuple, list):
        return [kind.__name__, *(_portable(item, depth) for item in x)]
    if kind is types.FunctionType:
        if depth == 0:
            raise _Unfiled
        try:
            where = Path(x.__code__.co_filename).resolve().relative_to(labs.KIT_ROOT).as_posix()
            cells = [_portable(cell.cell_contents, depth - 1) for cell in x.__closure__ or ()]
        except ValueError:  # a function from outside the kit, or a cell not filled yet
            raise _Unfiled from None
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


def _answers(path: Path, lab_id: str | None) -> dict:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # not shipped (a partial copy of the kit): computed as before
        return {}
    if type(document) is not dict or document.get("schema") != SCHEMA:
        return {}
    if document.get("fingerprint") != fingerprint(lab_id):
        return {}
    answers = document.get("answers")
    return answers if type(answers) is dict else {}


@functools.cache
def _shipped() -> dict:
    if os.environ.get(RECORD_ENV):  # recording: every answer computed afresh
        return {}
    answers = dict(_answers(PATH, None))
    for folder in sorted((labs.KIT_ROOT / "labs").glob(f"*/{labs.HIDDEN}")):
        answers.update(_answers(folder / NAME, folder.parent.name))
    return answers


def forget() -> None:
    """Read the file again at the next lookup (after it was written, or moved for a test)."""
    _shipped.cache_clear()
    fingerprint.cache_clear()


def shipped(parts: tuple):
    """The shipped answer of the computation named by ``parts``, or None."""
    answers = _shipped()
    if not answers:
        return None
    key = digest(parts)
    entry = answers.get(key) if key is not None else None
    return _decoded(entry) if type(entry) is dict else None


def record(parts: tuple, answer) -> None:
    """Under `grader gradients`, add a computed answer to the file it is recording into."""
    path = os.environ.get(RECORD_ENV)
    if not path:
        return
    key, entry = digest(parts), encoded(answer)
    if key is not None and entry is not None:
        test = os.environ.get("PYTEST_CURRENT_TEST", "").split("::")[0]  # the file of the test computing it
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"key": key, "answer": entry, "hidden": labs.is_hidden_file(test)}) + "\n")


def read_records(path: Path, *, hidden: bool) -> dict[str, dict]:
    """The answers a recording wrote for visible tests, or for hidden ones, by key."""
    answers = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["hidden"] == hidden:
            answers[entry["key"]] = entry["answer"]
    return answers


def document(answers: dict[str, dict], lab_id: str | None = None) -> str:
    """The text of the file of ``answers`` (by key): the visible tests', or lab ``lab_id``'s hidden tests'."""
    lines = [f'{{"schema": "{SCHEMA}", "fingerprint": "{fingerprint(lab_id)}", "answers": {{']
    items = sorted(answers.items())
    lines += [
        f"  {json.dumps(k)}: {json.dumps(v)}{',' if i < len(items) - 1 else ''}" for i, (k, v) in enumerate(items)
    ]
    lines.append("}}")
    return "\n".join(lines) + "\n"


def differences(current: str, wanted: str, rtol: float = 1e-7) -> list[str]:
    """How the file's text ``current`` differs from ``wanted``: its fingerprint, answers missing or extra,
    answers not equal (to ``rtol``: another machine's BLAS may differ in the last bits)."""
    try:
        have, want = json.loads(current), json.loads(wanted)
    except ValueError:
        return ["it is not JSON"]
    if type(have) is not dict:
        return ["it is not a file of expected gradients"]
    said = []
    if have.get("schema") != want["schema"] or have.get("fingerprint") != want["fingerprint"]:
        said.append("its fingerprint is not the sources' (they changed since it was written)")
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
    return said

"""The files a student must not change, their hashes, and a check that a checkout still has them.

A student's fork is graded from the student's own checkout, so the lab tests, the grader
and the build files that run them are in the student's hands. The manifest lists the
sha256 of each of those files as shipped; ``verify`` names every one that changed, went
missing or was replaced by a symlink, and every file that was added where it would change
how the tests run or what Python imports (a conftest.py, a pytest.ini, a .pth, a module
shadowing numpy, a new file in the grader, ...). A student's own work, ``labs/<id>/starter.py``,
and their notes are never findings. A lab's ``instructor/`` folder (its mutants, figures' tests,
correct and hostile submissions) is not listed either: the student edition does not ship it, so a
manifest that listed it would find it missing from every student's checkout, and grading never
reads it.

The manifest also records, under ``starters``, each lab's ``starter.py`` as shipped: a fork has
no history to compare with, and the student edition no reference to regenerate it from, so this
is how ``grader ci --changed`` tells the labs a student worked on (``same_starter``). They are
never findings: they are the student's to change.

The check is only as trustworthy as the manifest and the verifier that read it: run from
the student's checkout, it catches accidental edits; to be proof against deliberate ones,
CI must use a manifest and a grader from the instructor's copy (``--manifest``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.labs import EXPECTED_GRADIENTS, KIT_ROOT, is_instructor_file

SCHEMA = "labkit.manifest/1"
MANIFEST_RELPATH = "grader/MANIFEST.json"  # inside grader/, so it cannot list its own hash

# Folders never scanned: version control, virtual environments, caches and the kit's own output.
SKIP_ANYWHERE = {".git", ".venv", "venv", "__pycache__", "node_modules"}
SKIP_AT_ROOT = {"reports", "bench"}

# Found anywhere, these change how pytest, make, pip or Python itself behave.
BEHAVIOUR_FILES = {
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "setup.py",  # run by `pip install -e .`
    "GNUmakefile",  # make reads these before Makefile
    "makefile",
}
# Configuration files that matter only when they hold a pytest section.
PYTEST_SECTION = {
    "tox.ini": re.compile(r"^\s*\[pytest\]", re.MULTILINE),
    "setup.cfg": re.compile(r"^\s*\[tool:pytest\]", re.MULTILINE),
    "pyproject.toml": re.compile(r"^\s*\[tool\.pytest[\].]", re.MULTILINE),
}
# Modules Python runs at start-up, and modules the grading path imports: a module file (even a
# bare .pyc) or a folder of that name on sys.path would run in their place.
HIJACKED_MODULES = {
    "sitecustomize",
    "usercustomize",
    "numpy",
    "pytest",
    "_pytest",
    "pluggy",
    "click",
    "hypothesis",  # the labs' random-graph tests
}
MODULE_SUFFIXES = {".py", ".pyc", ".so", ".pyd"}
STARTER_BYTES = 1 << 20  # a starter over this is not the pristine one, and is not read to say so
_SHA256 = re.compile(r"[0-9a-f]{64}")


class ManifestError(Exception):
    """The manifest cannot be read or written: a one-line message, exit status 2."""


@dataclass(frozen=True)
class Verification:
    """What differs between a checkout and its manifest: POSIX paths relative to the checkout, sorted."""

    changed: tuple[str, ...]
    missing: tuple[str, ...]
    added: tuple[str, ...]

    @property
    def clean(self) -> bool:
        return not (self.changed or self.missing or self.added)

    def findings(self) -> list[str]:
        """One line per finding, e.g. ``changed: labs/ch06/test_lab.py``."""
        return [f"{kind}: {path}" for kind in ("changed", "missing", "added") for path in getattr(self, kind)]

    def as_dict(self) -> dict:
        return {
            "schema": "labkit.verification/1",
            "clean": self.clean,
            "changed": list(self.changed),
            "missing": list(self.missing),
            "added": list(self.added),
        }


def is_protected(relpath: str) -> bool:
    """Whether a student must leave this file as shipped (``relpath`` is POSIX, relative to the kit)."""
    path = PurePosixPath(relpath)
    parts = path.parts
    if relpath == MANIFEST_RELPATH:
        return False
    if parts[0] == "labs":
        if is_instructor_file(relpath):  # not in the student edition: a student's copy has none of it
            return False
        # The lab's tests, metadata, package files and helpers; not the starter, handouts or notes.
        is_lab_code = path.suffix == ".py" and not (len(parts) == 3 and path.name == "starter.py")
        return is_lab_code or (len(parts) == 3 and path.name == "lab.toml") or path.name == EXPECTED_GRADIENTS
    if parts[0] in ("grader", ".ci"):
        return True
    if parts[:2] == (".github", "workflows"):
        return True
    return relpath in ("Makefile", "pyproject.toml")


def _changes_how_tests_run(root: Path, relpath: str) -> bool:
    """Whether an added file at ``relpath`` would change how the tests run or what Python imports."""
    path = PurePosixPath(relpath)
    if path.name in BEHAVIOUR_FILES or path.suffix == ".pth":
        return True
    if path.parts[0] == "labs" and path.name == EXPECTED_GRADIENTS:  # answers a lab's tests would look up
        return True
    if path.name in PYTEST_SECTION:
        file = root / relpath
        if file.is_symlink() or relpath == "setup.cfg":  # a root setup.cfg also configures `pip install -e .`
            return True
        return bool(PYTEST_SECTION[path.name].search(file.read_text(encoding="utf-8", errors="replace")))
    names = list(path.parts[:-1])  # a folder numpy/ anywhere, or a module file or link named numpy
    if path.suffix in MODULE_SUFFIXES or (root / relpath).is_symlink():
        names.append(path.name.split(".")[0])
    return any(name in HIJACKED_MODULES for name in names)


def _walk(root: Path):
    """Every file, symlink and other non-folder entry under ``root`` as a POSIX relpath, never following links."""
    pending = [root]
    while pending:
        folder = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                relpath = Path(entry.path).relative_to(root).as_posix()
                if entry.is_dir(follow_symlinks=False):
                    skipped = entry.name in SKIP_ANYWHERE or (folder == root and entry.name in SKIP_AT_ROOT)
                    if not skipped and not (Path(entry.path) / "pyvenv.cfg").exists():
                        pending.append(Path(entry.path))
                else:
                    yield relpath


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def starter_relpath(lab_id: str) -> str:
    return f"labs/{lab_id}/starter.py"


def _is_starter(relpath: str) -> bool:
    parts = PurePosixPath(relpath).parts
    return len(parts) == 3 and parts[0] == "labs" and parts[2] == "starter.py"


def same_starter(root: Path, relpath: str, pristine: dict) -> bool:
    """Whether the starter at ``relpath`` under ``root`` is, byte for byte, the pristine one ``pristine``
    (a manifest's ``starters``) records: a regular file of at most 1 MiB (a larger one differs: it
    is not read) reached without a symlink."""
    expected = pristine.get(relpath)
    path = Path(root) / relpath
    if not isinstance(expected, str) or any((Path(root) / p).is_symlink() for p in _prefixes(relpath)):
        return False
    try:
        if not path.is_file() or path.stat().st_size > STARTER_BYTES:
            return False
        return _sha256(path) == expected
    except OSError:
        return False


def build_manifest(root: Path) -> dict:
    """The manifest of the protected files under ``root``, as shipped now."""
    root = Path(root)
    files, starters = {}, {}
    for relpath in sorted(_walk(root)):
        if is_protected(relpath) and not relpath.endswith(".pyc"):
            if (root / relpath).is_symlink():
                raise ManifestError(f"{relpath} is a symlink: a protected file must be a regular file")
            files[relpath] = _sha256(root / relpath)
        elif _is_starter(relpath) and (root / relpath).is_file() and not (root / relpath).is_symlink():
            starters[relpath] = _sha256(root / relpath)  # as shipped: what `grader ci --changed` compares with
    return {"schema": SCHEMA, "files": files, "starters": starters}


def render(manifest: dict) -> str:
    """The manifest as its file holds it: stable, so a stale one shows up as a diff."""
    return json.dumps(manifest, indent=2) + "\n"


def write_manifest(root: Path, path: Path) -> dict:
    """Build the manifest of ``root`` and write it to ``path``."""
    manifest = build_manifest(root)
    Path(path).write_text(render(manifest), encoding="utf-8")
    return manifest


def load_manifest(path: Path) -> dict:
    """The manifest at ``path``, or ManifestError saying why it cannot be used."""
    try:
        manifest = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"cannot read the manifest {path}: {exc}") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or manifest.get("schema") != SCHEMA:
        raise ManifestError(f"{path} is not a {SCHEMA} manifest")
    starters = manifest.get("starters", {})  # a manifest written before it records none
    if not isinstance(starters, dict) or not all(
        _is_starter(relpath) and isinstance(sha, str) and _SHA256.fullmatch(sha) for relpath, sha in starters.items()
    ):
        raise ManifestError(f"{path}: its starters are not labs/<id>/starter.py with their sha256")
    return manifest


def fingerprint(root: Path = KIT_ROOT) -> str:
    """The sha256 of the kit's own manifest: every protected file's hash in one, so that two kits under
    one version number tell apart (a batch records it); "" for a copy of the kit without a manifest."""
    try:
        return hashlib.sha256((Path(root) / MANIFEST_RELPATH).read_bytes()).hexdigest()
    except OSError:
        return ""


def _unchanged(root: Path, relpath: str, sha256: str) -> bool:
    """The same bytes in a regular file reached without any symlink (a link's target can change at will)."""
    path = root / relpath
    through_link = any((root / prefix).is_symlink() for prefix in _prefixes(relpath))
    return not through_link and path.is_file() and _sha256(path) == sha256


def _prefixes(relpath: str) -> list[str]:
    """``a``, ``a/b`` and ``a/b/c`` for ``a/b/c``."""
    parts = PurePosixPath(relpath).parts
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def verify(root: Path, manifest: dict) -> Verification:
    """Compare the checkout at ``root`` with ``manifest``: see the module docstring for what counts."""
    root = Path(root)
    listed = manifest["files"]
    present = set(_walk(root))
    changed, missing = [], []
    for relpath, sha256 in listed.items():
        path = root / relpath
        if not path.exists() and not path.is_symlink():
            missing.append(relpath)
        elif not _unchanged(root, relpath, sha256):
            changed.append(relpath)
    added = [
        relpath for relpath in present - listed.keys() if is_protected(relpath) or _changes_how_tests_run(root, relpath)
    ]
    return Verification(tuple(sorted(changed)), tuple(sorted(missing)), tuple(sorted(added)))

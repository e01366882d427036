"""Export the student edition: the repository students fork, without the reference solution.

The edition holds what a student needs to do and grade the labs (handouts, starters, the
labs' tests and helpers, the grader, the build files and CI) and nothing that gives the
solution away: no ``reference/``, no kit tests (they grade the reference and its mutants), no
lab's ``instructor/`` folder (its mutants are the reference with one bug each), no benchmarks
(``bench/``), and a guard refuses to export a starter holding a line only the reference's solution has.
A lab's hidden tests (``labs/<id>/hidden/`` and the ``[hidden]`` table of its lab.toml that declares
them) stay out too, unless asked for: the Gradescope package is an edition that grades them.
The few files that name the reference or the kit's tests are edited with checked text
edits, which fail loudly when the text they expect is gone, rather than ship an edition
that does not install or whose README lies. The edition gets its own manifest, of its own
files.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from grader.kit.manifest import MANIFEST_RELPATH, write_manifest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib
from grader.kit.starters import BEGIN, END
from grader.labs import HIDDEN, is_hidden_file, is_instructor_file

TOP_LEVEL_FILES = ("Makefile", "README.md", "pyproject.toml", "LICENSE", ".gitignore")
FOLDERS = ("labs", "grader", ".ci", ".github")
NOT_EXPORTED = {MANIFEST_RELPATH}  # rebuilt for the edition's own files


class EditionError(Exception):
    """The edition cannot be exported as asked: a one-line message, exit status 2."""


def _checked_sub(text: str, pattern: str, replacement: str, what: str, flags: int = re.MULTILINE) -> str:
    """``re.sub`` that must match exactly once: the file changed under us otherwise, and must be looked at."""
    new, count = re.subn(pattern, replacement, text, flags=flags)
    if count != 1:
        raise EditionError(f"{what}: expected one match of {pattern!r}, found {count}; update grader/edition.py")
    return new


def student_pyproject(text: str) -> str:
    """The package set without ``reference``, which the edition does not have."""
    return _checked_sub(text, r'^(include = \[.*)"reference\*", (.*\])$', r"\1\2", "pyproject.toml")


CHECK_FILES = "check that the kit's files are as shipped"


# The Makefile's lines from one to the other, both included, are the instructor's (see its head).
INSTRUCTOR_ONLY = r"^# instructor only\n(?:.*\n)*?# end of instructor only\n"


def student_makefile(text: str) -> str:
    """The Makefile with only what a student can run there: `make lab` on their own work, `make test`
    checking the kit's files (instead of the kit's own tests, which stay with the instructor), `make grade`."""
    text, regions = re.subn(INSTRUCTOR_ONLY, "", text, flags=re.MULTILINE)
    if not regions or re.search(r"^# (end of )?instructor only$", text, flags=re.MULTILINE):
        raise EditionError("Makefile: its instructor-only lines are not marked as expected; update grader/edition.py")
    text = re.sub(r"\n{3,}", "\n\n", text)  # where a part was left out
    # `make test` runs the kit's tests and the labs' instructor folders, with the developers' extras.
    text = _checked_sub(
        text,
        r"^(?:#.*\n)*test:\n\t@\$\(MAKE\) .*dev-venv sandbox browser\n\t\$\(BIN\)/python -m pytest .*\btests\b.*$",
        "# Check that the kit's files are as shipped: grading depends on them.\ntest: venv\n\t$(BIN)/grader verify",
        "Makefile",
    )
    text = _checked_sub(text, r"run the kit's own tests", CHECK_FILES, "Makefile")  # `make help`
    # There is no reference to grade.
    text = _checked_sub(text, r"IMPL=mine\|ref\|path", "IMPL=mine|path", "Makefile")  # `make help`
    text = _checked_sub(text, r"^# IMPL is mine, ref, or the path", "# IMPL is mine or the path", "Makefile")
    text = _checked_sub(
        text,
        r"^#\s+make lab CH=06 IMPL=ref .*$",
        "#   make lab CH=06             grade your work in labs/ch06/starter.py (IMPL=path: another file)",
        "Makefile",
    )
    return _checked_sub(text, r"^(#\s+make test\s+)the kit's own tests$", rf"\1{CHECK_FILES}", "Makefile")


EDITION_NOTE = (
    "This is the student edition: the reference solutions and the kit's own tests stay with the\n"
    "instructor. Your work goes in `labs/<id>/starter.py`; `make test` checks that every file of the\n"
    "kit you must not change is as shipped (grading uses them).\n"
)
INSTRUCTOR_SECTIONS = ("For instructors", "Performance: `make bench`", "How the kit is organised")
# Within the other sections, what lies between these two comments (invisible where the README is read):
# the end of its line too when the passage starts a line, so no blank line is left behind.
PASSAGE = r"<!-- instructor only -->.*?<!-- end of instructor only -->"
INSTRUCTOR_PASSAGE = rf"^{PASSAGE}\n|{PASSAGE}"


def student_readme(text: str) -> str:
    """The README with the student's two commands, without the reference and the instructor's sections
    and passages: every command it names runs in the edition."""
    text, passages = re.subn(INSTRUCTOR_PASSAGE, "", text, flags=re.DOTALL | re.MULTILINE)
    if not passages or "instructor only -->" in text:
        raise EditionError(
            "README.md: its instructor-only passages are not marked as expected; update grader/edition.py"
        )
    text = _checked_sub(
        text,
        r"^make lab CH=06 IMPL=ref +# grade .*$",
        "make lab CH=06              # grade your work in labs/ch06/starter.py: points lost until you solve it",
        "README.md",
    )
    text = _checked_sub(
        text,
        r"^make test +# the kit's own tests$",
        "make test                   # check that the kit's files are as shipped",
        "README.md",
    )
    text = _checked_sub(text, r"^make lab CH=06 IMPL=ref +# see .*\n", "", "README.md")
    for heading in INSTRUCTOR_SECTIONS:
        section = rf"^## {re.escape(heading)}\n.*?(?=^## |\Z)"  # up to the next section
        text = _checked_sub(text, section, "", "README.md", re.MULTILINE | re.DOTALL)
    if "IMPL=ref" in text:
        raise EditionError("README.md still mentions IMPL=ref, which the edition cannot run; update grader/edition.py")
    return _checked_sub(text, r"\A(# .*\n\n(?:.+\n)+)\n", rf"\1\n{EDITION_NOTE}\n", "README.md")


def student_ci_run(text: str) -> str:
    """The CI entry point without the code's form (ruff and `make lint` are the instructor's)."""
    return _checked_sub(text, r"^# Then the code's form.*\nmake lint\n", "", ".ci/run")


REWRITES = {
    "pyproject.toml": student_pyproject,
    "Makefile": student_makefile,
    "README.md": student_readme,
    ".ci/run": student_ci_run,
}
# A lab.toml's [hidden] table, with the comment lines just above it, up to the next table or the end.
HIDDEN_TABLE = rf"(?:^#.*\n)*^\[{HIDDEN}\]\n(?:(?!\[).*\n?)*"


def without_hidden_tests(text: str, relpath: str) -> str:
    """A lab.toml without its [hidden] table (when it has one), checked: what is left declares no hidden test."""
    if not re.search(rf"^\[{HIDDEN}\]", text, flags=re.MULTILINE):
        return text
    text = _checked_sub(text, HIDDEN_TABLE, "", relpath).rstrip("\n") + "\n"
    if HIDDEN in tomllib.loads(text):
        raise EditionError(f"{relpath}: its [hidden] table is not where expected; update grader/kit/edition.py")
    return text


def _is_lab_toml(relpath: str) -> bool:
    parts = relpath.split("/")
    return len(parts) == 3 and parts[0] == "labs" and parts[2] == "lab.toml"


def exported_files(root: Path, hidden_tests: bool = False) -> list[str]:
    """The POSIX relpaths of the kit's files that go into the edition (with the labs' hidden tests, if asked)."""
    relpaths = [name for name in TOP_LEVEL_FILES if (root / name).is_file()]
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            relpath = path.relative_to(root).as_posix()
            if not path.is_file() or "__pycache__" in path.parts or relpath in NOT_EXPORTED:
                continue
            if is_instructor_file(relpath):  # the mutants, figures' tests, correct and hostile submissions
                continue
            if hidden_tests or not is_hidden_file(relpath):
                relpaths.append(relpath)
    return relpaths


def _lines(data: bytes) -> set[str]:
    return {line.strip() for line in data.decode("utf-8", errors="replace").splitlines()}


def _reference_lines(root: Path) -> tuple[set[str], set[str]]:
    """The stripped lines of the reference inside its solution regions, and outside them."""
    inside, outside = set(), set()
    for path in (root / "reference").rglob("*.py"):
        in_region = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if BEGIN.match(line) or END.match(line):
                in_region = bool(BEGIN.match(line))
                continue
            (inside if in_region else outside).add(line.strip())
    return inside, outside


def _refuse_leaks(root: Path, contents: dict[str, bytes]) -> None:
    """A starter must not hold a line that only the reference's solution regions have (one that neither the
    reference outside its regions nor any other file of the edition shows): it was developed in place, or
    copied from the reference, instead of generated by `grader starter`."""
    inside, outside = _reference_lines(root)
    starters = [relpath for relpath in contents if relpath.startswith("labs/") and relpath.endswith("/starter.py")]
    for relpath, data in contents.items():
        if relpath not in starters:
            outside |= _lines(data)
    secret = {line for line in inside - outside if line and not line.startswith("#")}
    for relpath in starters:
        leaked = sorted(_lines(contents[relpath]) & secret)
        if leaked:
            raise EditionError(f"{relpath} holds {len(leaked)} lines of the reference solution, e.g. {leaked[0]!r}")


def _content(root: Path, relpath: str, hidden_tests: bool) -> bytes:
    if relpath in REWRITES:
        return REWRITES[relpath]((root / relpath).read_text(encoding="utf-8")).encode("utf-8")
    if _is_lab_toml(relpath) and not hidden_tests:
        return without_hidden_tests((root / relpath).read_text(encoding="utf-8"), relpath).encode("utf-8")
    return (root / relpath).read_bytes()


def export_student(root: Path, out: Path, *, hidden_tests: bool = False) -> list[str]:
    """Write the student edition of the kit at ``root`` into ``out`` (absent or empty); return its files.
    ``hidden_tests``: keep the labs' hidden tests (the Gradescope package, which grades them).

    Everything is read, edited and checked before the first file is written: a failed
    export leaves ``out`` as it was.
    """
    root, out = Path(root), Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise EditionError(f"{out} exists and is not an empty folder")
    contents = {relpath: _content(root, relpath, hidden_tests) for relpath in exported_files(root, hidden_tests)}
    _refuse_leaks(root, contents)
    for relpath, data in contents.items():
        target = out / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        shutil.copymode(root / relpath, target)  # .ci/run stays executable
    write_manifest(out, out / MANIFEST_RELPATH)
    return [*contents, MANIFEST_RELPATH]

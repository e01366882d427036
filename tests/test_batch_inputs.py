"""Finding each student's submission in every input layout, and the status of every bad input.

No grading here: these check grader.batch.inputs.discover alone.
"""

import hashlib
import os
import stat
import urllib.parse
import zipfile
from pathlib import Path

import pytest

from grader.batch import Shard
from grader.batch.inputs import MAX_KEY, InputError, discover, find_in_folder, key_of
from grader.intake import MAX_SUBMISSION_BYTES

GOOD = "def f():\n    return 1\n"


def _tree_digest(root: Path) -> dict[str, str]:
    """Every path under root with its content hash (or link target): to prove the inputs were not modified."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            found[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[rel] = "dir"
    return found


def _write(path: Path, text: str = GOOD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _by_student(entries):
    return {e.student: e for e in entries}


def _zip(folder: Path, archive: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if not path.is_symlink():  # folders too: an empty student folder is a student
                zf.write(path, prefix + str(path.relative_to(folder)))
    return archive


@pytest.fixture
def files_class(tmp_path):
    root = tmp_path / "class"
    _write(root / "alice.py")
    _write(root / "bob.py", "x = 2\n")
    _write(root / "notes.txt", "not a submission")
    return root


@pytest.fixture
def forks_class(tmp_path):
    root = tmp_path / "forks"
    _write(root / "alice" / "labs" / "ch06" / "starter.py")
    _write(root / "alice" / "labs" / "lesson1_3" / "starter.py", "other lab\n")
    _write(root / "alice" / "grader" / "cli.py", "kit file\n")
    _write(root / "alice" / "labs" / "ch06" / "test_lab.py", "kit file\n")
    _write(root / "bob" / "homework" / "autograd.py")  # a single .py anywhere inside
    _write(root / "bob" / ".git" / "hooks" / "x.py", "vcs file\n")
    _write(root / "carol" / "labs" / "lesson1_3" / "starter.py")  # a fork without this lab's file
    (root / "dave").mkdir()  # nothing at all
    _write(root / "erin" / "a.py")
    _write(root / "erin" / "b" / "c.py")  # two candidates
    return root


def test_a_folder_of_files_gives_one_student_per_py_file(files_class, tmp_path):
    before = _tree_digest(files_class)
    entries = discover([files_class], "ch06", tmp_path / "scratch")
    assert [(e.student, e.status) for e in entries] == [("alice", "ok"), ("bob", "ok")]
    bob = _by_student(entries)["bob"]
    assert bob.path.read_text() == "x = 2\n" and bob.path.is_relative_to(tmp_path / "scratch")
    assert bob.sha256 == hashlib.sha256(b"x = 2\n").hexdigest()
    assert bob.source == "bob.py"
    assert _tree_digest(files_class) == before


def test_a_folder_of_forks_takes_the_labs_starter_or_the_single_py_file(forks_class, tmp_path):
    before = _tree_digest(forks_class)
    found = _by_student(discover([forks_class], "ch06", tmp_path / "scratch"))
    assert found["alice"].status == "ok" and found["alice"].source == "alice/labs/ch06/starter.py"
    assert found["alice"].path.name == "starter.py"
    assert found["bob"].status == "ok" and found["bob"].source == "bob/homework/autograd.py"
    assert found["carol"].status == "missing" and "labs/ch06/starter.py" in found["carol"].reason
    assert found["dave"].status == "missing" and "no .py file" in found["dave"].reason
    assert found["erin"].status == "ambiguous" and "a.py" in found["erin"].reason and "b/c.py" in found["erin"].reason
    assert _tree_digest(forks_class) == before


def test_the_same_lab_picks_its_own_starter_in_a_fork(forks_class, tmp_path):
    found = _by_student(discover([forks_class], "lesson1_3", tmp_path / "scratch"))
    assert found["alice"].path.read_text() == "other lab\n"
    assert found["carol"].status == "ok"


@pytest.mark.parametrize("wrapped", [False, True], ids=["flat", "in-one-top-folder"])
def test_a_zip_of_either_layout_reads_like_the_folder(files_class, forks_class, tmp_path, wrapped):
    prefix = "submissions/" if wrapped else ""
    for folder in (files_class, forks_class):
        archive = _zip(folder, tmp_path / f"{folder.name}.zip", prefix)
        from_zip = discover([archive], "ch06", tmp_path / f"scratch-zip-{folder.name}")
        from_folder = discover([folder], "ch06", tmp_path / f"scratch-dir-{folder.name}")
        assert [(e.student, e.status, e.sha256) for e in from_zip] == [
            (e.student, e.status, e.sha256) for e in from_folder
        ]


def test_bad_files_are_invalid_with_the_reason(tmp_path):
    root = tmp_path / "class"
    _write(root / "empty.py", "")
    (root / "binary.py").write_bytes(b"\x7fELF\x00\x01")
    (root / "latin.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    _write(root / "huge.py", "#" * (MAX_SUBMISSION_BYTES + 1))
    target = _write(tmp_path / "elsewhere.py")
    (root / "linked.py").symlink_to(target)
    _write(root / "fork" / "labs" / "ch06" / "starter.py", "")
    found = _by_student(discover([root], "ch06", tmp_path / "scratch"))
    reasons = {name: (e.status, e.reason) for name, e in found.items()}
    assert reasons["empty"] == ("invalid", "empty.py is empty (0 bytes): save your code in it")
    assert reasons["binary"] == (
        "invalid",
        "binary.py is a binary file (an executable program), not Python source: hand in the .py file itself",
    )
    assert reasons["latin"] == (
        "invalid",
        "latin.py is not UTF-8 (byte 0xe9 at line 1): "
        "save it as UTF-8, or declare its encoding on line 1 or 2 (# -*- coding: latin-1 -*-)",
    )
    assert reasons["huge"] == (
        "invalid",
        "huge.py is 1025 KiB, over the limit of 1024 KiB: hand in your code alone "
        "(a lab's file is a few tens of KiB; data or output pasted into it does not belong there)",
    )
    assert reasons["linked"] == (
        "invalid",
        f"linked.py is a symbolic link to {target}, outside the student's own folder",
    )
    assert reasons["fork"] == ("invalid", "fork/labs/ch06/starter.py is empty (0 bytes): save your code in it")


NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'


def test_a_notebook_is_taken_only_where_there_is_no_py_file_and_intake_says_what_to_do(tmp_path):
    root = tmp_path / "class"
    _write(root / "nora.ipynb", NOTEBOOK)  # a notebook alone: the student is not missing
    _write(root / "both.ipynb", NOTEBOOK)  # with the .py exported from it: the .py
    _write(root / "both.py")
    _write(root / "folder" / "notebooks" / "lab.ipynb", NOTEBOOK)
    _write(root / "exported" / "lab.ipynb", NOTEBOOK)
    _write(root / "exported" / "lab.py")
    _write(root / "two" / "a.ipynb", NOTEBOOK)
    _write(root / "two" / "b.ipynb", NOTEBOOK)
    single = _write(tmp_path / "solo.ipynb", NOTEBOOK)
    found = _by_student(discover([root, single], "ch06", tmp_path / "scratch"))
    said = "is a Jupyter notebook, not a Python file: export its code as a .py file and hand that in"
    assert {name: (e.status, e.reason.split(" (Jupyter")[0]) for name, e in found.items()} == {
        "both": ("ok", ""),
        "exported": ("ok", ""),
        "folder": ("invalid", f"folder/notebooks/lab.ipynb {said}"),
        "nora": ("invalid", f"nora.ipynb {said}"),
        "solo": ("invalid", f"solo.ipynb {said}"),
        "two": ("ambiguous", "2 candidate files: a.ipynb, b.ipynb"),
    }
    assert found["both"].source == "both.py" and found["exported"].source == "exported/lab.py"


def test_a_symlinked_starter_in_a_fork_is_not_followed(tmp_path):
    root = tmp_path / "forks"
    starter = root / "mallory" / "labs" / "ch06" / "starter.py"
    starter.parent.mkdir(parents=True)
    starter.symlink_to("/etc/passwd")
    found = _by_student(discover([root], "ch06", tmp_path / "scratch"))
    assert found["mallory"].status == "invalid"
    assert found["mallory"].reason == (
        "mallory/labs/ch06/starter.py is a symbolic link to /etc/passwd, outside the student's own folder"
    )


def test_one_student_in_two_inputs_is_ambiguous(tmp_path):
    first = _write(tmp_path / "a" / "alice.py")
    _write(tmp_path / "b" / "alice.py", "y = 1\n")
    found = _by_student(discover([first.parent, tmp_path / "b"], "ch06", tmp_path / "scratch"))
    assert found["alice"].status == "ambiguous" and "2 submissions" in found["alice"].reason


def test_single_files_and_mixed_inputs(tmp_path, files_class):
    extra = _write(tmp_path / "zed.py")
    found = discover([files_class, extra], "ch06", tmp_path / "scratch")
    assert [e.student for e in found] == ["alice", "bob", "zed"]


def test_inputs_that_cannot_be_read_are_usage_errors(tmp_path):
    with pytest.raises(InputError, match="no such file or folder"):
        discover([tmp_path / "nope"], "ch06", tmp_path / "scratch")
    bad_zip = tmp_path / "class.zip"
    bad_zip.write_bytes(b"PK not really a zip")
    with pytest.raises(InputError, match="not a readable zip"):
        discover([bad_zip], "ch06", tmp_path / "scratch2")
    other = _write(tmp_path / "grades.csv", "a,b\n")
    with pytest.raises(InputError, match="give folders, .zip files or .py files"):
        discover([other], "ch06", tmp_path / "scratch3")


def _patched_zip(path: Path, *, flags: int = 0, method: int | None = None) -> Path:
    """A zip of one student's file whose headers claim an encrypted member or another compression method."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("alice.py", GOOD)
    data = bytearray(path.read_bytes())
    central = data.index(b"PK\x01\x02")
    for flag_at, method_at in ((6, 8), (central + 8, central + 10)):  # the local header's, the directory's
        data[flag_at] |= flags
        if method is not None:
            data[method_at : method_at + 2] = method.to_bytes(2, "little")
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(
    "patch, said",
    [({"flags": 1}, "encrypted"), ({"method": 9}, "compression method")],  # 9: Deflate64, which Python lacks
    ids=["encrypted", "deflate64"],
)
def test_a_zip_python_cannot_unpack_is_refused_with_its_reason(tmp_path, patch, said):
    archive = _patched_zip(tmp_path / "class.zip", **patch)
    with pytest.raises(InputError, match=f"class.zip: cannot be unpacked .*{said}"):
        discover([archive], "ch06", tmp_path / "scratch")


@pytest.mark.parametrize("member", ["../../escaped.py", "..\\..\\escaped.py"])  # a Windows tool's separators too
def test_a_zip_cannot_write_outside_its_folder(tmp_path, member):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(member, GOOD)
    with pytest.raises(InputError, match="outside the archive"):
        discover([archive], "ch06", tmp_path / "scratch")
    assert not (tmp_path / "escaped.py").exists()


def test_an_input_that_holds_no_student_is_refused(tmp_path):
    """An empty folder or zip (the wrong folder, a download that failed) graded "0 students", exit 0 (a review's
    finding): the batch is refused, naming the input."""
    empty = tmp_path / "class"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a student\n")
    archive = tmp_path / "empty.zip"
    zipfile.ZipFile(archive, "w").close()
    for given in (empty, archive):
        with pytest.raises(InputError, match=f"{given}: holds no student .* is it the class's"):
            discover([given], "ch06", tmp_path / f"scratch-{given.name}")


def test_a_zip_holding_one_name_twice_is_refused(tmp_path):
    """The second entry would silently replace the first, and a student be graded on one of two files (a
    review's finding: a correct file, then the starter, graded 0)."""
    archive = tmp_path / "dup.zip"
    with zipfile.ZipFile(archive, "w") as zf, pytest.warns(UserWarning, match="Duplicate name"):
        zf.writestr("alice.py", GOOD)
        zf.writestr("alice.py", "# the starter, unchanged\n")
        zf.writestr("bob.py", GOOD)
    with pytest.raises(InputError, match="dup.zip: holds 'alice.py' twice, and which one to grade cannot be known"):
        discover([archive], "ch06", tmp_path / "scratch")


@pytest.mark.parametrize(
    ("members", "said"),
    [
        ({"a" * 300 + "/alice.py": GOOD}, "File name too long: 'a"),  # one name longer than a file system holds
        ({"x": "a file", "x/alice.py": GOOD}, "File exists: 'x'"),  # a file, then a folder of that name
    ],
    ids=["a name too long", "a file and a folder of one name"],
)
def test_a_zip_this_file_system_cannot_hold_is_refused_in_one_line(tmp_path, members, said):
    """A security review's archives stopped the batch with a traceback (OSError, FileExistsError)."""
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    with pytest.raises(InputError, match=f"class.zip: cannot be unpacked here \\({said}.*unzip it yourself"):
        discover([archive], "ch06", tmp_path / "scratch")


def test_a_student_folder_nested_too_deeply_to_read_makes_that_student_invalid(tmp_path):
    """A review's folder 1,200 levels deep stopped the batch (RecursionError): the others are graded."""
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "alice.py").write_text(GOOD)
    folders = [tmp_path / "class" / "bob"]
    for _ in range(1200):  # os.makedirs and shutil.rmtree recurse too: one level at a time
        folders.append(folders[-1] / "d")
    for folder in folders:
        folder.mkdir()
    try:
        entries = {e.student: e for e in discover([tmp_path / "class"], "ch06", tmp_path / "scratch")}
    finally:
        for folder in reversed(folders):
            folder.rmdir()
    assert entries["alice"].status == "ok"
    assert (entries["bob"].status, entries["bob"].reason) == (
        "invalid",
        "bob holds folders nested too deeply to read: hand in the file",
    )


def test_a_zip_written_with_windows_separators_reads_like_one_written_with_slashes(tmp_path):
    """class\\alice.py is alice.py in the folder class, which wraps the class: the ids are alice and bob, as a
    roster spells them (they were class\\alice and class\\bob)."""
    archive = tmp_path / "windows.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("class\\alice.py", GOOD)
        zf.writestr("class\\bob.py", GOOD)
    assert [e.student for e in discover([archive], "ch06", tmp_path / "scratch")] == ["alice", "bob"]


# Ids that the kit's earlier safe names gave one file name: "bob smith" became "bob_smith-" and
# the first 8 hex digits of its SHA-256, which is itself a safe id; names were cut at 120 characters.
COLLIDING_IDS = [
    "bob smith",
    "bob_smith-7e50351d",
    "a b",
    "a_b",
    "a%20b",
    ".hidden",
    "%2Ehidden",
    "../etc",
    "=cmd()",
    "café",
    "cafe\u0301",  # the same word, decomposed
    "caf\udce9",  # a file name that is not UTF-8, as os.fsdecode gives it
    "x" * 130,
    "x" * 130 + "y",
    "é" * 100,
    "é" * 100 + "e",
]


def test_student_ids_never_share_a_file_name():
    assert key_of("alice") == "alice" and key_of("s.smith+1@uni.edu") == "s.smith+1@uni.edu"
    assert key_of("bob smith") == "bob%20smith" and key_of("bob_smith-7e50351d") == "bob_smith-7e50351d"
    keys = [key_of(s) for s in COLLIDING_IDS]
    assert len(set(keys)) == len(COLLIDING_IDS), keys
    for key in keys:
        assert len(key) <= MAX_KEY and not key.startswith(".") and "/" not in key, key
        assert set(key) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@+-_%~"), key
    for student, key in zip(COLLIDING_IDS, keys, strict=True):
        if "~" not in key:  # by construction: the name spells its id back, so no other id has it
            assert urllib.parse.unquote(key, errors="surrogatepass") == student
    long_ones = [k for k in keys if "~" in k]
    assert len(long_ones) == 4 and all(k.startswith(("xxxxx", "%C3%A9")) for k in long_ones)


def test_two_ids_with_one_old_safe_name_are_two_students_each_with_their_own_file(tmp_path):
    root = tmp_path / "forks"
    _write(root / "bob smith" / "labs" / "ch06" / "starter.py", "x = 'bob smith'\n")
    _write(root / "bob_smith-7e50351d" / "labs" / "ch06" / "starter.py", "x = 'the other bob'\n")
    for student in ("x" * 130, "x" * 130 + "y"):
        _write(root / student / "labs" / "ch06" / "starter.py", f"x = {len(student)}\n")
    entries = discover([root], "ch06", tmp_path / "scratch")
    assert [e.status for e in entries] == ["ok"] * 4
    assert len({e.key for e in entries}) == 4 and len({e.path.parent for e in entries}) == 4
    for entry in entries:
        assert entry.path.read_text() == (root / entry.source).read_text()


def test_a_fork_whose_labs_folder_links_to_a_classmates_is_invalid(tmp_path):
    root = tmp_path / "forks"
    _write(root / "bob" / "labs" / "ch06" / "starter.py")
    (root / "mallory").mkdir()
    (root / "mallory" / "labs").symlink_to("../bob/labs")
    found = _by_student(discover([root], "ch06", tmp_path / "scratch"))
    assert found["bob"].status == "ok"
    assert (found["mallory"].status, found["mallory"].reason) == (
        "invalid",
        "mallory/labs is a symbolic link to ../bob/labs, outside the student's own folder",
    )


# Where a student's folder can hold a link that leads out of it; each is named in the reason.
OUTSIDE_LINKS = {
    "the-lab-folder": ("labs/ch06", "../../bob/labs/ch06"),
    "the-starter": ("labs/ch06/starter.py", "../../../bob/labs/ch06/starter.py"),
    "a-single-file": ("homework/autograd.py", "../../bob/labs/ch06/starter.py"),
    "an-unread-folder": ("notes/data", "/"),
    "the-system": ("solution.py", "/etc/passwd"),
    "a-link-to-an-inner-link-leading-out": ("main.py", "inner.py"),
}


@pytest.mark.parametrize("link, target", OUTSIDE_LINKS.values(), ids=OUTSIDE_LINKS)
def test_a_link_anywhere_in_a_students_folder_that_leads_out_makes_them_invalid(tmp_path, link, target):
    root = tmp_path / "forks"
    _write(root / "bob" / "labs" / "ch06" / "starter.py")
    mallory = root / "mallory"
    (mallory / link).parent.mkdir(parents=True)
    (mallory / link).symlink_to(target)
    if link == "main.py":
        (mallory / "inner.py").symlink_to("../bob/labs/ch06/starter.py")
    found = _by_student(discover([root], "ch06", tmp_path / "scratch"))
    reason = found["mallory"].reason
    assert found["mallory"].status == "invalid", found["mallory"]
    assert reason.endswith(", outside the student's own folder") and reason.startswith("mallory/"), reason
    assert found["bob"].status == "ok"


def test_a_link_through_a_folder_intake_never_reads_cannot_lead_out(tmp_path):
    """A security review: links in the folders intake never reads (.git, hidden ones) are not checked, so
    mallory's `labs` linked to her own `.git/labs`, whose starter linked to alice's file: mallory was graded
    with alice's work (and a Gradescope upload with the package's hidden tests). The file chosen is followed
    to its end, which must be in the student's own folder."""
    root = tmp_path / "class"
    _write(root / "alice" / "lab.py", GOOD)
    hidden = root / "mallory" / ".git" / "labs" / "ch06"
    hidden.mkdir(parents=True)
    (hidden / "starter.py").symlink_to("../../../../alice/lab.py")
    (root / "mallory" / "labs").symlink_to(".git/labs")
    _write(root / "eve" / ".cache" / "mine.py", GOOD)  # a link into her own hidden folder stays hers
    (root / "eve" / "lab.py").symlink_to(".cache/mine.py")
    found = _by_student(discover([root], "ch06", tmp_path / "scratch"))
    assert (found["mallory"].status, found["mallory"].reason) == (
        "invalid",
        "mallory/labs/ch06/starter.py leads outside the student's own folder",
    )
    assert (found["alice"].status, found["eve"].status) == ("ok", "ok")
    assert found["eve"].path.read_text() == GOOD


@pytest.mark.parametrize(
    "name",
    [os.fsencode("\u0958" * 84 + ".py"), b"\xff" * 200 + b".py"],
    ids=["longer-once-composed", "not-utf8-and-longer-once-shown"],
)
def test_a_file_name_that_grows_when_shown_is_staged_under_one_a_file_system_holds(tmp_path, name):
    """A security review: the staged copy is named as the verdicts show the file (composed, a byte that is not
    UTF-8 as \\xff), which can pass the 255 bytes a name may hold: a legal upload stopped Gradescope's runner
    with a traceback ("File name too long"), reported to the student as the kit's failure."""
    folder = tmp_path / "upload"
    folder.mkdir()
    with open(os.fsencode(folder) + b"/" + name, "w") as out:
        out.write(GOOD)
    entry = find_in_folder(folder, "ch06", tmp_path / "scratch")
    assert entry.status == "ok", entry
    assert entry.path.read_text() == GOOD and len(os.fsencode(entry.path.name)) <= 255
    assert entry.path.suffix == ".py"


def test_what_intake_cannot_take_is_said_as_it_is(tmp_path):
    """A review's notes: a loop of links was said to lead outside the folder, a single upload too deep to read
    was named ".", and a folder holding only a setup.py was said to hold no .py file."""
    root = tmp_path / "class"
    (root / "mallory").mkdir(parents=True)
    (root / "mallory" / "loop.py").symlink_to("loop.py")
    _write(root / "sam" / "setup.py", GOOD)
    found = _by_student(discover([root], "ch06", tmp_path / "scratch"))
    assert found["mallory"].reason == "mallory/loop.py is a symbolic link to loop.py: a loop of links"
    assert (found["sam"].status, found["sam"].reason) == (
        "missing",
        "no .py file in the folder but setup.py, a name the kit never grades (a tool's): rename your file",
    )
    folders = [tmp_path / "upload"]
    for _ in range(1200):  # os.makedirs and shutil.rmtree recurse too: one level at a time
        folders.append(folders[-1] / "d")
    for folder in folders:
        folder.mkdir()
    try:
        entry = find_in_folder(folders[0], "ch06", tmp_path / "scratch2")
    finally:
        for folder in reversed(folders):
            folder.rmdir()
    assert (entry.status, entry.reason) == (
        "invalid",
        "the upload holds folders nested too deeply to read: hand in the file",
    )


def test_a_link_inside_the_students_own_folder_to_their_own_file_is_followed(tmp_path):
    root = tmp_path / "forks"
    _write(root / "alice" / "work" / "mine.py", "x = 'alice'\n")
    (root / "alice" / "labs" / "ch06").mkdir(parents=True)
    (root / "alice" / "labs" / "ch06" / "starter.py").symlink_to("../../work/mine.py")
    _write(root / "carol" / "src" / "real.py", "x = 'carol'\n")
    (root / "carol" / "main.py").symlink_to("src/real.py")  # one file under two names: one candidate
    _write(root / "dave" / "autograd.py", "x = 'dave'\n")
    (root / "dave" / ".venv" / "bin").mkdir(parents=True)
    (root / "dave" / ".venv" / "bin" / "python").symlink_to("/usr/bin/python3")  # a folder intake never reads
    found = _by_student(discover([root], "ch06", tmp_path / "scratch"))
    assert {s: (e.status, e.source) for s, e in found.items()} == {
        "alice": ("ok", "alice/labs/ch06/starter.py"),
        "carol": ("ok", "carol/src/real.py"),
        "dave": ("ok", "dave/autograd.py"),
    }
    for student in ("alice", "carol", "dave"):
        assert found[student].path.read_text() == f"x = '{student}'\n"
    assert not found["alice"].path.is_symlink() and found["alice"].path.name == "starter.py"


def _zip_link(zf: zipfile.ZipFile, name: str, target: str) -> None:
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the mode below is a file type and permissions
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    zf.writestr(info, target)


def test_links_in_a_zip_are_judged_like_links_in_a_folder(tmp_path):
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("class/bob/labs/ch06/starter.py", "x = 'bob'\n")
        _zip_link(zf, "class/mallory/labs", "../bob/labs")
        _zip_link(zf, "class/trudy/labs/ch06/starter.py", "/etc/passwd")
        zf.writestr("class/alice/work/mine.py", "x = 'alice'\n")
        _zip_link(zf, "class/alice/labs/ch06/starter.py", "../../work/mine.py")
        _zip_link(zf, "class/eve.py", "bob/labs/ch06/starter.py")
    found = _by_student(discover([archive], "ch06", tmp_path / "scratch"))
    # The sources, and so the links' names, are the paths in the zip (its wrapping folder too).
    link = "{} is a symbolic link to {}, outside the student's own folder"
    assert {s: (e.status, e.reason) for s, e in found.items()} == {
        "alice": ("ok", ""),
        "bob": ("ok", ""),
        "eve": ("invalid", link.format("class/eve.py", "bob/labs/ch06/starter.py")),
        "mallory": ("invalid", link.format("class/mallory/labs", "../bob/labs")),
        "trudy": ("invalid", link.format("class/trudy/labs/ch06/starter.py", "/etc/passwd")),
    }
    assert found["alice"].path.read_text() == "x = 'alice'\n"


def test_a_zip_cannot_write_or_link_through_its_own_links(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        _zip_link(zf, "mallory/out", str(outside))
        zf.writestr("mallory/out/planted.py", GOOD)  # written into a folder, not through the link
        _zip_link(zf, "mallory/up", "../../../../outside")  # unzipped/0/mallory/up: four levels up
        _zip_link(zf, "mallory/up/planted-link", "/etc/passwd")  # its folder leads out: never made
        zf.writestr("bob.py", GOOD)  # a second student: the zip is not one wrapping folder
    found = _by_student(discover([archive], "ch06", tmp_path / "scratch"))
    assert list(outside.iterdir()) == []
    assert found["mallory"].status == "invalid" and found["mallory"].reason.startswith("mallory/up is a symbolic link")


def test_shards_partition_the_class_deterministically(tmp_path):
    root = tmp_path / "class"
    for i in range(10):
        _write(root / f"s{i:02}.py")
    entries = discover([root], "ch06", tmp_path / "scratch")
    shards = [Shard.parse(f"{i}/3").select(entries) for i in (1, 2, 3)]
    students = [e.student for shard in shards for e in shard]
    assert sorted(students) == [e.student for e in entries]  # each exactly once
    assert [len(s) for s in shards] == [4, 3, 3]
    assert [e.student for e in Shard.parse("2/3").select(list(reversed(entries)))] == [e.student for e in shards[1]]
    for bad in ("0/3", "4/3", "x/3", "3"):
        with pytest.raises(ValueError):
            Shard.parse(bad)


def test_a_zip_whose_one_folder_is_a_link_is_not_looked_through(tmp_path):
    other = tmp_path / "other-class"
    _write(other / "alice.py")
    _write(other / "bob.py")
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        _zip_link(zf, "class", str(other))  # one top folder, as an LMS wraps a class: but a link
    found = discover([archive], "ch06", tmp_path / "scratch")
    assert [(e.student, e.status, e.reason) for e in found] == [
        ("class", "invalid", f"class is a symbolic link to {other}, outside the student's own folder")
    ]


def test_a_file_name_that_is_not_utf8_gives_an_id_that_can_be_written_anywhere(tmp_path):
    root = tmp_path / "class"
    root.mkdir()
    (root / os.fsdecode(b"caf\xe9.py")).write_text(GOOD)  # a name from a system that was not UTF-8
    (root / os.fsdecode(b"d\xe9j\xe0") / "labs" / "ch06").mkdir(parents=True)
    (root / os.fsdecode(b"d\xe9j\xe0") / "labs" / "ch06" / "starter.py").write_text("")
    found = discover([root], "ch06", tmp_path / "scratch")
    assert [(e.student, e.status, e.source, e.reason) for e in found] == [
        ("caf\\xe9", "ok", "caf\\xe9.py", ""),
        (
            "d\\xe9j\\xe0",
            "invalid",
            "d\\xe9j\\xe0/labs/ch06/starter.py",
            "d\\xe9j\\xe0/labs/ch06/starter.py is empty (0 bytes): save your code in it",
        ),
    ]
    assert found[0].path.name == "caf\\xe9.py" and found[0].path.read_text() == GOOD  # verdicts name it so


def test_a_class_folder_takes_python_files_in_any_case_and_refuses_a_students_zip(tmp_path):
    """.py and .ipynb in any case are submissions, a zip is one refused with the reason; other files
    (notes, a roster), hidden ones and a batch's own output (--out inside the class folder) are no students."""
    root = tmp_path / "class"
    _write(root / "bob.PY")
    _write(root / "dave.Py")
    _write(root / "erin.zip", "not unpacked")
    _write(root / "roster.csv", "student\nbob\n")
    _write(root / ".hidden.py")
    _write(root / "grades" / "batch.json", "{}")  # grader batch CLASS --out CLASS/grades
    _write(root / "grades" / "files" / "x.py")
    entries = {e.student: e for e in discover([root], "ch06", tmp_path / "scratch")}
    assert sorted(entries) == ["bob", "dave", "erin"]
    assert entries["bob"].status == entries["dave"].status == "ok"
    assert entries["erin"].status == "invalid"
    assert entries["erin"].reason == "erin.zip is an archive: unpack it, a folder or a .py file for each student"


def test_a_name_decomposed_as_a_mac_writes_it_is_the_same_student(tmp_path):
    """José.py from a Mac (NFD) and from elsewhere (NFC) look alike: they were two students, each with a row
    that looked like the other's and neither on the roster (a helper agent's review). One student now, and
    two files of theirs are ambiguous, as any two are."""
    composed, decomposed = "Jos\u00e9", "Jose\u0301"
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / f"{decomposed}.py").write_text("x = 1\n")
    entries = discover([one], "ch06", tmp_path / "s1")
    assert [e.student for e in entries] == [composed]
    (two / f"{composed}.py").write_text("x = 2\n")
    entries = discover([one, two], "ch06", tmp_path / "s2")
    assert [(e.student, e.status) for e in entries] == [(composed, "ambiguous")]

"""A killed grader's scratch folders (copies of submissions) are deleted by the next grader; a live one's never are."""

import os
import signal
import subprocess
import sys

from grader import labs
from grader.grading import scratch

OWNER_SCRIPT = "from grader.grading import scratch; f = scratch.Folder('run'); print(f.path, flush=True); input()"


def _owned_by_a_child(root):
    """A scratch folder under ``root`` owned by a child process that is still running."""
    env = dict(os.environ, TMPDIR=str(root))
    child = subprocess.Popen(
        [sys.executable, "-c", OWNER_SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        cwd=labs.KIT_ROOT,
    )  # fmt: skip
    return child, child.stdout.readline().strip()


def test_the_folder_of_a_killed_owner_is_swept_and_a_live_ones_kept(tmp_path):
    child, path = _owned_by_a_child(tmp_path)
    assert scratch.sweep(tmp_path) == [] and os.path.isdir(path)  # its owner is alive
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert [str(p) for p in scratch.sweep(tmp_path)] == [path]
    assert not os.path.exists(path)


def test_a_folder_of_this_process_is_kept_until_it_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(scratch.tempfile, "tempdir", str(tmp_path))
    with scratch.temporary("queue") as path:
        (path / "submission.py").write_text("x = 1\n")
        assert scratch.sweep(tmp_path) == [] and path.is_dir()
    assert not path.exists()


def test_folders_without_a_lock_file_and_other_files_are_left_alone(tmp_path):
    (tmp_path / "labkit-old-abc").mkdir()  # made before folders had owners, or still being made
    (tmp_path / "labkit-notes").write_text("not a folder")
    assert scratch.sweep(tmp_path) == []
    assert (tmp_path / "labkit-old-abc").is_dir() and (tmp_path / "labkit-notes").is_file()

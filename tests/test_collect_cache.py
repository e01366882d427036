"""runner.collect keeps a lab's collected tests for the rest of the process (a batch collects its lab first, and
the kit's tests run many batches), and collects again once a Python file of the lab's folder has changed."""

import shutil
import subprocess

from grader import labs
from grader.grading import runner

NEW_TEST = """

@graded(task="value", points=1, hint="a test added after the first collection")
def test_added_later():
    pass
"""


def test_a_lab_is_collected_once_until_a_file_of_its_folder_changes(tmp_path, monkeypatch):
    folder = tmp_path / "lesson1_3"
    shutil.copytree(labs.get("lesson1_3").folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    lab = labs.load(folder)
    processes = []
    real_run = subprocess.run

    def counted(*args, **kwargs):
        processes.append(args[0])
        return real_run(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    first = runner.collect(lab)
    first[0]["points"] = -1  # a caller's copy: the kept list is not changed through it
    again = runner.collect(lab)
    assert len(processes) == 1 and again[0]["points"] > 0 and [t["id"] for t in again] == [t["id"] for t in first]
    (folder / "diagnoses.py").write_text((folder / "diagnoses.py").read_text() + "\n# a helper edited\n")
    assert len(runner.collect(lab)) == len(first) and len(processes) == 2  # any file of the folder: collected again
    (folder / "test_lab.py").write_text((folder / "test_lab.py").read_text() + NEW_TEST)
    added = runner.collect(lab)
    assert len(processes) == 3 and [t["id"] for t in added] == [t["id"] for t in first] + ["test_added_later"]

"""A lab is its folder: what the kit says about its labs comes from labs/<id>/, and so does what it
tests them with (labs/<id>/instructor/, found through tests/instructor.py)."""

import dataclasses
import re

import pytest

from grader import labs
from tests import instructor
from tests.mutation import catalogue

README = labs.KIT_ROOT / "README.md"
TABLE_HEADER = "| lab | handout | what you build |"


def lab_table() -> str:
    """The README's table of labs, as the discovered labs' folders say it should be."""
    rows = [TABLE_HEADER, "| --- | --- | --- |"]
    for lab in labs.discover().values():
        handout = lab.handout.relative_to(labs.KIT_ROOT).as_posix()
        rows.append(f"| `{lab.id}` | [{handout}]({handout}) | {lab.summary} |")
    return "\n".join(rows)


def readme_table() -> str:
    """The table under the README's header row, up to the first line that is not a row."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines.count(TABLE_HEADER) == 1, f"README.md must have one table headed {TABLE_HEADER}"
    start = lines.index(TABLE_HEADER)
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


def test_every_lab_says_what_the_student_builds():
    for lab in labs.discover().values():
        assert lab.summary.strip(), f"labs/{lab.folder.name}/lab.toml: add summary, what the student builds in one line"
        assert "|" not in lab.summary and "\n" not in lab.summary, f"{lab.id}: the summary must fit one table cell"


def test_the_readme_lists_exactly_the_discovered_labs_in_order():
    expected = lab_table()
    assert readme_table() == expected, (
        "README.md's table of labs does not match the labs' folders (labs/<id>/lab.toml: id, summary); "
        f"it should read:\n\n{expected}\n"
    )


def test_every_lab_has_an_instructor_package_that_says_what_it_holds():
    for lab in labs.discover().values():
        init = instructor.folder(lab) / "__init__.py"
        assert init.is_file(), f"write {instructor.relpath(init)}: a docstring saying what the folder holds"
        assert re.match(r'\s*"""', init.read_text(encoding="utf-8")), f"{instructor.relpath(init)} has no docstring"
        assert "student edition" in init.read_text(encoding="utf-8"), instructor.relpath(init)


def test_a_lab_without_a_mutant_catalogue_is_told_which_file_to_write(tmp_path):
    (tmp_path / "instructor").mkdir()
    lab = dataclasses.replace(labs.get("ch06"), id="new_lab", folder=tmp_path)
    with pytest.raises(instructor.MissingMaterial) as missing:
        instructor.mutants(lab)
    message = str(missing.value)
    assert "lab new_lab has no mutant catalogue" in message
    assert f"write {tmp_path / 'instructor' / 'mutants.py'} defining MUTANTS" in message


def test_instructor_material_is_found_from_each_lab():
    for lab_id in labs.discover():
        assert catalogue(lab_id), f"{lab_id}: an empty mutant catalogue"
        assert all(path.is_file() for path in instructor.submissions(lab_id))
        for entry in instructor.hostile(lab_id):
            assert entry.lab == lab_id and (instructor.hostile_folder(lab_id) / entry.file).is_file(), entry


@pytest.mark.parametrize("declared", ['"backward"', '["backward", 3]', '["not a name"]'])
def test_a_bad_methods_list_is_refused_naming_the_lab_toml(tmp_path, declared):
    (tmp_path / "lab.toml").write_text(
        f'title = "A lab"\npublic = ["f"]\nmethods = {declared}\n\n[[tasks]]\nid = "t"\ntitle = "T"\n'
    )
    with pytest.raises(labs.LabError, match=r"lab\.toml: methods must be a list of names, e\.g\. \["):
        labs.load(tmp_path)


def test_every_labs_methods_are_names_its_classes_define():
    """A listed name the reference does not define as a method would be a typo: it would never be looked up."""
    from tests.mutation import reference_source

    for lab in labs.discover().values():
        if not lab.methods:
            continue
        namespace: dict = {}
        exec(compile(reference_source(lab.id), lab.id, "exec"), namespace)  # the trusted reference
        classes = [namespace[name] for name in lab.public if isinstance(namespace.get(name), type)]
        for name in lab.methods:
            assert any(callable(getattr(c, name, None)) for c in classes), f"{lab.id}: {name} is no method"

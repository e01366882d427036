"""The JSON Schema of the canonical report (labkit.report/1), and a check of a report against it.

The schema ships with the package (grader/report/schemas/report.schema.json) so that the tools
that read reports (a gradebook, a CI step, another course's scripts) can check them without
importing the kit, and so that a change to report.build_report that forgets the schema
fails the kit's tests rather than a reader downstream.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from jsonschema import Draft202012Validator


def load_schema() -> dict:
    """The report schema (draft 2020-12), read from the package's data."""
    text = (resources.files("grader.report") / "schemas" / "report.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validator() -> Draft202012Validator:
    return Draft202012Validator(load_schema())


def validate_report(report: dict) -> list[str]:
    """What is wrong with ``report``, one message per problem, located by its JSON path; empty when valid."""
    errors = sorted(_validator().iter_errors(report), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{e.json_path}: {e.message}" for e in errors]

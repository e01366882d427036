"""A failure message as a class summary counts it: its first line, the same for every student
who made the same mistake.

What differs from one student to the next while the mistake is the same is taken out: the
location in the student's file ("(alice.py:12 in __add__)"), the file's own name, and, for
counting, the numbers and quoted values (``pattern``).
"""

from __future__ import annotations

import re

MESSAGE_CHARS = 160
LOCATION = re.compile(r"\s*\([^()\s]+\.py:\d+ in [^()]*\)")  # "(alice.py:12 in __add__)"
# A number that is not part of a name ("ch06", "x2" stay): 3, -0.25, 1e-06, 2.
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w])")
# A quoted value, not an apostrophe ("the chapter's" stays).
QUOTED = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)\"[^\"\n]*\"(?!\w)")
FILE = "<file>"


def first_line(message: str, file_name: str = "") -> str:
    """The message's first line without the location in the student's file, with the file's name
    (``file_name``) written ``<file>``, in at most MESSAGE_CHARS characters."""
    text = (message or "").strip()
    line = LOCATION.sub("", text.splitlines()[0]) if text else "(no message)"
    if file_name:
        line = line.replace(file_name, FILE)
    return line[:MESSAGE_CHARS]


def pattern(line: str) -> str:
    """``line`` with every number written # and every quoted value '…': the wording of a mistake,
    whatever values it met."""
    return NUMBER.sub("#", QUOTED.sub("'…'", line))

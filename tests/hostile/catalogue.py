"""The red team: each hostile or broken submission and the report it must produce, for every lab.

Each lab keeps its own entries with its hostile files: ``HOSTILE`` in
``labs/<id>/instructor/hostile/__init__.py`` (a list of tests.redteam.Hostile), the files next to
it. This catalogue collects them over the discovered labs, in lab order, each entry's ``lab`` set
(tests/instructor.py); a lab without that file has no entries.

Every entry is graded behind the wall with small limits (tests/redteam.py). Beyond what
an entry states, every run must leave the kit's files unchanged, no process and no
marker file behind, and an honest submission graded next must get its solo result.

A real weakness of the wall is recorded as an entry stating what SHOULD hold, commented out in
its lab's list with what happens instead, until the grader is fixed (an enabled entry that
leaves /tmp/labkit-redteam-* files behind or forges a report fails the red team).
"""

from grader import labs
from tests import instructor

HOSTILE = [entry for lab in labs.discover().values() for entry in instructor.hostile(lab)]

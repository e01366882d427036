"""What a batch folder says it is, and whether some folders make one whole class.

Before it grades anyone, a batch writes ``batch.json``: the lab, the kit that grades it, the
shard ``I/N`` it holds (1/1 unsharded) and the roster, every student in the inputs with the
intake status and the sha256 of the accepted file. Each shard reads the whole input and
picks its part, so the shards of one class carry one roster, and ``plan`` can tell a whole
class from a missing, duplicated or unfinished shard, or from shards of another split, other
inputs, another lab or another kit. Nothing here reads or writes a file: ``grader.batch.merge``
does, with ``grader.batch.outputs``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.batch.inputs import Entry

SCHEMA = "labkit.batch/2"
SHARD_MISSING = "shard-missing"  # a student of a shard that was not merged (--partial)
SHARD_UNFINISHED = "shard-unfinished"  # a student its shard never recorded: the shard was stopped (--partial)
INTAKE_REFUSED = ("missing", "ambiguous", "invalid")  # intake statuses, recorded as they are


class ShardError(Exception):
    """The folders do not make the one whole class asked for: a one-line reason (exit status 1)."""


class RegradeError(Exception):
    """``grader batch --only`` cannot regrade those students in that folder: a one-line reason (a usage error)."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based, like a job array's task number
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        index, _, count = text.partition("/")
        shard = cls(int(index), int(count))
        if not 1 <= shard.index <= shard.count:
            raise ValueError(f"shard {text}: want I/N with 1 <= I <= N")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def students(self, students: Iterable[str]) -> set[str]:
        """This shard's deterministic 1/N of ``students``: every N-th in id order, so shards are balanced."""
        return {s for s, index in shard_indices(students, self.count).items() if index == self.index}

    def select(self, entries: list[Entry]) -> list[Entry]:
        """This shard's students' entries, each student's late work with them (counted by entry, the late
        work of one shard's student fell to the next shard, away from the submission it competes with)."""
        mine = self.students(e.student for e in entries)
        return sorted((e for e in entries if e.student in mine), key=lambda e: (e.student, e.key))


WHOLE = Shard(1, 1)


def shard_indices(students: Iterable[str], count: int) -> dict[str, int]:
    """The shard (1 to ``count``) of each student, their late work with them: every N-th in id order."""
    return {student: position % count + 1 for position, student in enumerate(sorted(set(students)))}


def roster_of(entries: list[Entry]) -> list[dict]:
    """The roster ``batch.json`` keeps of ``entries``: each with its intake status and its file's sha256."""
    return [
        {
            "student": e.student,
            "key": e.key,
            "status": e.status,
            "sha256": e.sha256,
            # from grader collect: the commit, and which version of the student's work
            **({"commit": e.collected.get("commit"), "version": e.version} if e.collected else {}),
        }
        for e in sorted(entries, key=lambda e: (e.student, e.key))
    ]


def describe(
    lab_id: str, kit: dict, shard: Shard, entries: list[Entry], limits: dict | None = None, inputs: list[str] = ()
) -> dict:
    """``batch.json`` of a batch of ``shard`` over ``entries``, every student the inputs hold, graded
    under ``limits`` (grader.limits.in_force); ``inputs``, where they were read (grader.batch.freshness)."""
    return {
        "schema": SCHEMA,
        "lab": lab_id,
        "kit": kit,
        "shard": {"index": shard.index, "count": shard.count},
        "limits": limits,
        "roster": roster_of(entries),
        "inputs": list(inputs),
    }


def shard_of(about: dict) -> Shard | None:
    """The shard a ``batch.json`` names, or None if it names none (written by an older kit)."""
    shard = about.get("shard")
    return Shard(shard["index"], shard["count"]) if isinstance(shard, dict) else None


def coverage(count: int, present: Sequence[int], unfinished: Sequence[int] = ()) -> dict | None:
    """What a gradebook holds of a class split ``count`` ways, for its summary; None when it is the whole class."""
    missing = [i for i in range(1, count + 1) if i not in present]
    if not missing and not unfinished:
        return None
    return {"count": count, "present": sorted(present), "missing": missing, "unfinished": sorted(unfinished)}


def coverage_words(held: dict) -> str:
    """What a ``coverage`` lacks, in words: "missing: shard 1/2; unfinished: shard 3/4"."""
    words = []
    for kind in ("missing", "unfinished"):
        if held[kind]:
            words.append(f"{kind}: shard " + ", ".join(f"{i}/{held['count']}" for i in held[kind]))
    return "; ".join(words)


@dataclass(frozen=True)
class Folder:
    """One folder given to merge: where it is, its ``batch.json`` and its records by key."""

    path: Path
    about: dict
    records: dict[str, dict]


@dataclass
class Row:
    """One roster student in the merged gradebook: the shard folder's record, or why there is none."""

    student: dict  # the roster's entry
    folder: Folder | None
    record: dict | None
    status: str = ""  # SHARD_MISSING or SHARD_UNFINISHED when record is None
    reason: str = ""


@dataclass
class Plan:
    about: dict  # batch.json of the merged folder
    rows: list[Row] = field(default_factory=list)
    coverage: dict | None = None  # None: the whole class


def _kit_words(kit: dict) -> str:
    return (
        f"version {kit.get('version')}, tests {str(kit.get('tests_sha256'))[:12]}, "
        f"manifest {str(kit.get('manifest_sha256'))[:12]}"
    )


def _limits_difference(a: dict | None, b: dict | None) -> str:
    """'test_seconds 5 and 10' for each limit ``a`` and ``b`` set differently."""
    a, b = a or {}, b or {}
    differ = [name for name in sorted({*a, *b}) if a.get(name) != b.get(name)]
    return ", ".join(
        f"{name} {a.get(name):g} and {b.get(name):g}"
        if None not in (a.get(name), b.get(name))
        else f"{name} {a.get(name)} and {b.get(name)}"
        for name in differ
    )


def _roster_difference(a: list[dict], b: list[dict]) -> str:
    by_a, by_b = {r["student"]: r for r in a}, {r["student"]: r for r in b}
    only = sorted(by_a.keys() ^ by_b.keys())
    changed = sorted(s for s in by_a.keys() & by_b.keys() if by_a[s] != by_b[s])
    parts = []
    if only:
        parts.append(f"{len(only)} student(s) in only one, e.g. {only[0]!r}")
    if changed:
        parts.append(f"{len(changed)} with another file or status, e.g. {changed[0]!r}")
    return "; ".join(parts) or "the same students in another order"


def _is_current(record: dict | None, student: dict, kit: dict) -> bool:
    """The shard recorded this roster student, from this file, with this kit (not a record a resume left stale)."""
    if record is None or record.get("sha256") != student["sha256"] or record.get("kit") != kit:
        return False
    if (record.get("collected") or {}).get("commit") != student.get("commit"):  # another collection's commit
        return False
    if student["status"] == "ok":  # graded, or the kit's own error: anything but a placeholder or a refusal
        return record.get("status") not in (*INTAKE_REFUSED, SHARD_MISSING, SHARD_UNFINISHED)
    return record.get("status") == student["status"]


def _shard_of_this_class(folder: Folder, lab_id: str, kit: dict) -> Shard:
    """The shard ``folder`` holds, or ShardError if it is not a shard of ``lab_id`` graded by ``kit``."""
    about = folder.about
    if about.get("lab") != lab_id:
        raise ShardError(f"{folder.path} holds a batch of lab {about.get('lab')}, not {lab_id}")
    shard = shard_of(about)
    if shard is None or "roster" not in about:
        raise ShardError(f"{folder.path} does not say which shard it holds (an older kit wrote it): grade it again")
    if about.get("merged", {}).get("partial"):
        raise ShardError(f"{folder.path} is a partial merge: merge the shards' own folders")
    if about.get("kit") != kit:
        raise ShardError(
            f"{folder.path} was graded by another kit ({_kit_words(about.get('kit') or {})}) than this one "
            f"({_kit_words(kit)}): grade every shard and merge them with one kit"
        )
    return shard


def _one_split(folders: list[Folder], lab_id: str, kit: dict) -> dict[int, Folder]:
    """The folders by shard index, or ShardError: shards of different splits, one given twice, other inputs."""
    first, first_shard = folders[0], _shard_of_this_class(folders[0], lab_id, kit)
    by_index: dict[int, Folder] = {}
    for folder in folders:
        shard = _shard_of_this_class(folder, lab_id, kit)
        if shard.count != first_shard.count:
            raise ShardError(
                f"{folder.path} is shard {shard} but {first.path} is shard {first_shard}: merge the shards of one split"
            )
        if shard.index in by_index:
            raise ShardError(f"shard {shard} is given twice: {by_index[shard.index].path} and {folder.path}")
        if folder.about.get("limits") != first.about.get("limits"):  # a grade depends on them
            raise ShardError(
                f"{folder.path} and {first.path} were graded under different limits "
                f"({_limits_difference(folder.about.get('limits'), first.about.get('limits'))}): "
                "grade every shard with the same --limit"
            )
        if folder.about["roster"] != first.about["roster"]:
            difference = _roster_difference(first.about["roster"], folder.about["roster"])
            raise ShardError(
                f"{folder.path} and {first.path} were graded from different inputs ({difference}): "
                "grade every shard from the same submissions"
            )
        by_index[shard.index] = folder
    return by_index


def plan(folders: list[Folder], lab_id: str, kit: dict, *, partial: bool = False) -> Plan:
    """How ``folders`` merge into one gradebook of the class, or ShardError saying why they do not.

    Refused, whatever ``partial`` says: another lab or kit than ``lab_id`` and ``kit`` (this
    grader's), a shard of another split, a shard given twice, shards of different inputs.
    Refused unless ``partial``: a missing shard, a shard that stopped before recording all its
    students. Every roster student gets exactly one row.
    """
    by_index = _one_split(folders, lab_id, kit)
    count = shard_of(folders[0].about).count
    missing = [Shard(i, count) for i in range(1, count + 1) if i not in by_index]
    if missing and not partial:
        several = len(missing) > 1
        raise ShardError(
            f"shard{'s' * several} {', '.join(map(str, missing))} {'are' if several else 'is'} missing: "
            "merge needs every shard, or --partial"
        )
    roster = folders[0].about["roster"]
    merged = Plan(about={**folders[0].about, "shard": {"index": 1, "count": 1}})
    unfinished: dict[int, int] = {}  # shard index: its students without a current record
    owners = shard_indices((s["student"] for s in roster), count)
    for student in roster:
        shard = Shard(owners[student["student"]], count)
        folder = by_index.get(shard.index)
        record = folder.records.get(student["key"]) if folder else None
        if folder is None:
            merged.rows.append(Row(student, None, None, SHARD_MISSING, f"shard {shard} was not merged"))
        elif _is_current(record, student, kit):
            merged.rows.append(Row(student, folder, record))
        else:
            unfinished[shard.index] = unfinished.get(shard.index, 0) + 1
            reason = f"shard {shard} stopped before recording this student"
            merged.rows.append(Row(student, folder, None, SHARD_UNFINISHED, reason))
    if unfinished and not partial:
        index, lost = min(unfinished.items())
        held = sum(1 for student in roster if owners[student["student"]] == index)
        raise ShardError(
            f"shard {Shard(index, count)} in {by_index[index].path} is unfinished: {lost} of its {held} students "
            f"{'has' if lost == 1 else 'have'} no record; finish it with grader batch --resume, or merge with --partial"
        )
    merged.coverage = coverage(count, sorted(by_index), sorted(unfinished))
    # A partial merge must never pass for a whole class (1/1) in a later merge.
    merged.about["merged"] = {"count": count, "present": sorted(by_index), "partial": merged.coverage is not None}
    return merged


def regrade(about: dict, entries: list[Entry], students: Sequence[str], kit: dict, limits: dict | None) -> tuple:
    """What ``grader batch --only`` regrades: ``about`` (the folder's batch.json) with the roster's entries of
    ``students`` taken from ``entries`` (the whole input, read again), and those students' entries in the
    folder's shard. Everyone else keeps the roster entry and the record the folder has, so the gradebook stays
    one kit's, under one set of limits, and a merge still sees one class. RegradeError when that cannot be:
    a student not in the folder's class or not in the inputs, another kit or other limits than the folder's,
    or, in one shard of a split, a student whose file changed (the other shards' rosters would no longer agree:
    regrade in the merged folder)."""
    if about.get("kit") != kit or about.get("limits") != limits:
        what = "another kit" if about.get("kit") != kit else "other limits"
        raise RegradeError(
            f"the folder was graded by {what} than this run's: a gradebook is graded by one, so regrade everyone "
            "with --resume (or give the folder's --limit values)"
        )
    roster = about.get("roster") or []
    in_class = {s["student"] for s in roster}
    in_inputs = {e.student for e in entries}
    chosen = set(students)
    unknown = sorted(chosen - in_class)
    if unknown:
        raise RegradeError(
            f"not in this folder's class: {', '.join(map(repr, unknown[:5]))}; "
            "grade students the folder does not hold with --resume"
        )
    gone = sorted(chosen - in_inputs)
    if gone:
        raise RegradeError(f"not in the inputs given: {', '.join(map(repr, gone[:5]))}; give the class's submissions")
    fresh = roster_of([e for e in entries if e.student in chosen])
    new_roster = sorted(
        [s for s in roster if s["student"] not in chosen] + fresh, key=lambda s: (s["student"], s["key"])
    )
    shard = shard_of(about) or WHOLE
    if shard.count > 1:
        old = [s for s in roster if s["student"] in chosen]
        if sorted(old, key=lambda s: s["key"]) != sorted(fresh, key=lambda s: s["key"]):
            changed = sorted({s["student"] for s in old + fresh if (s in old) != (s in fresh)})
            raise RegradeError(
                f"shard {shard} of a split: the inputs changed for {', '.join(map(repr, changed[:5]))}, which the "
                "other shards' rosters would not agree with; merge the shards, then regrade in the merged folder"
            )
    held = shard.students(s["student"] for s in new_roster)
    mine = [e for e in entries if e.student in chosen and e.student in held]
    elsewhere = sorted(chosen - {e.student for e in mine})
    if elsewhere:
        raise RegradeError(
            f"{', '.join(map(repr, elsewhere[:5]))} {'is' if len(elsewhere) == 1 else 'are'} in another shard "
            f"than this folder's {shard}"
        )
    return {**about, "roster": new_roster}, mine

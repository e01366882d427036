"""Pairs of students whose code is unusually alike: copydetect's winnowing (MOSS's), the starter left out.

Each file is tokenized as Python with names, strings and comments blanked (so renaming a variable
changes nothing), cut into k-grams of tokens and winnowed into fingerprints by copydetect; the
fingerprints of the lab's pristine starter are boilerplate, removed from every file, so that the
code every student was given makes no two students alike. A pair's two scores are the share of
each file's remaining code that the other file holds too; a pair is reported when either reaches
the threshold (a short file copied into a longer one is high on one side only), with at least
MIN_TOKEN_OVERLAP characters of filtered code in common.

Pairs already listed as identical (grader.batch.identical: the same file, or the same code up to
comments and whitespace) are left out here: they would score 1 and say nothing more. Late work
(from a collection) is compared with everyone's, under its own name (``alice (late work)``), but not
with the same student's submission: it is their work again. Everything is computed
from the texts the batch keeps (outputs: ``files/<key>.py``), so a resume or a merge writes what one
run would.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import io
import itertools
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

SCHEMA = "labkit.batch-similarity/1"
# 0.8: far above honest work and below an edited copy. ch06's two engines written apart from the
# reference share 23% and 19% of their code (tests/test_similarity.py); a copy of one with names changed
# and functions swapped shares over 99%, which leaves room for a copy edited further before it is missed.
DEFAULT_THRESHOLD = 0.8
NOISE_TOKENS = 25  # k: a run of fewer filtered characters in common is noise (copydetect's default)
GUARANTEE_TOKENS = 25  # a run this long in common is always found (copydetect's default): window 1
# A pair must share at least this many filtered characters: a share of a tiny file (a starter with one
# method filled in) is a few lines everyone writes alike, not a copy.
MIN_TOKEN_OVERLAP = 100
# With fewer pairs than this, the batch's process fingerprints the texts itself: a worker's start costs more.
PARALLEL_PAIRS = 500
LANGUAGE = "python"
HASH_SEED = "0"  # the processes fingerprinting one class's texts share it (_one_hash_seed)


class ThresholdError(ValueError):
    """A threshold that is not a number from 0 to 1, or similarity asked for without copydetect installed."""


def require_library() -> None:
    """ThresholdError, saying how to install it, when copydetect (the instructor's extra) is not installed:
    checked before a batch grades anyone, so that its end does not fail."""
    import importlib.util

    if importlib.util.find_spec("copydetect") is None:
        raise ThresholdError(
            "similar submissions need copydetect, the kit's instructor extra: run `make dev` (or "
            "`.venv/bin/pip install 'copydetect>=0.5'`), or pass --similarity-threshold off"
        )


def parse_threshold(text: str) -> float | None:
    """A threshold from the command line: a number from 0 to 1, or ``off`` (None: no similarity)."""
    if text.strip().lower() == "off":
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 1:  # also refuses nan
        raise ThresholdError(f"--similarity-threshold takes a number from 0 to 1, or off; got {text!r}")
    return value


@dataclass(frozen=True)
class Submission:
    student: str
    text: str


@dataclass(frozen=True)
class Fingerprint:
    """What comparing needs of one text's copydetect fingerprint (CodeFingerprint), as arrays: cheap to
    compare, and to send from the process that made it."""

    # numpy arrays (numpy is imported where they are made: `grader batch` starts without it)
    hashes: np.ndarray  # every winnowed k-gram's hash, once for each place it was kept, sorted
    places: np.ndarray  # where each of them begins in the filtered code
    distinct: np.ndarray  # the hashes, sorted, each once
    coverage: int  # the filtered characters the fingerprints cover (copydetect's token_coverage)
    has_code: bool  # any code left after filtering
    offsets: np.ndarray  # copydetect's map from filtered positions back to the text's own


def fingerprint(text: str, boilerplate=None) -> Fingerprint:
    import numpy as np
    from copydetect import CodeFingerprint  # imported only when a batch compares: it pulls in matplotlib

    found = CodeFingerprint(
        "submission.py",
        k=NOISE_TOKENS,
        win_size=GUARANTEE_TOKENS - NOISE_TOKENS + 1,
        boilerplate=boilerplate,
        language=LANGUAGE,
        fp=io.StringIO(text),
    )
    kept = sorted(found.hash_idx.items())
    return Fingerprint(
        hashes=np.array([h for h, places in kept for _ in places], dtype=np.int64),
        places=np.array([p for _, places in kept for p in places], dtype=np.int64),
        distinct=np.array([h for h, _ in kept], dtype=np.int64),
        coverage=found.token_coverage,
        has_code=len(found.filtered_code) > 0,
        offsets=found.offsets,
    )


@functools.lru_cache(maxsize=4)  # the same starter for every batch of a lab a process writes (the kit's tests: many)
def boilerplate(starter: str | None):
    """Every k-gram hash of the starter (window 1, as copydetect does for its boilerplate files), read-only."""
    if not starter:
        return None
    import numpy as np
    from copydetect import CodeFingerprint

    starter_print = CodeFingerprint(
        "starter.py", k=NOISE_TOKENS, win_size=1, language=LANGUAGE, fp=io.StringIO(starter)
    )
    hashes = np.unique(np.array(sorted(starter_print.hashes)))
    hashes.flags.writeable = False
    return hashes


def compare_files(first: Fingerprint, second: Fingerprint):
    """copydetect's compare_files for two Fingerprints, with its result: (the characters of ``first``'s
    filtered code found in ``second``, each file's share of its code found in the other, each file's
    copied slices in its own text). The places of the hashes both hold are picked out by numpy at
    once: copydetect makes a small array for each shared hash, which took nine tenths of a class's
    comparison (tests/test_similarity.py checks that both give the same results)."""
    import numpy as np
    from copydetect.utils import get_copied_slices

    shared = first.distinct[_members(first.distinct, second.distinct)]
    slices = [get_copied_slices(p.places[_members(p.hashes, shared)], NOISE_TOKENS) for p in (first, second)]
    if len(slices[0][0]) == 0:
        return 0, (0, 0), (np.array([]), np.array([]))
    overlaps = [np.sum(found[1] - found[0]) for found in slices]
    scores = tuple(o / p.coverage if p.has_code else 0 for o, p in zip(overlaps, (first, second), strict=True))
    for found, p in zip(slices, (first, second), strict=True):
        if len(p.offsets) > 0:  # filtered positions back to the text's own, as copydetect does
            found += p.offsets[:, 1][np.clip(np.searchsorted(p.offsets[:, 0], found), 0, p.offsets.shape[0] - 1)]
    return overlaps[0], scores, tuple(slices)


def _members(values, of):
    """Which of the sorted ``values`` are in ``of`` (sorted, each once): np.isin, without sorting both again."""
    import numpy as np

    if len(of) == 0:
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(of, values), len(of) - 1)
    return of[at] == values


@functools.lru_cache(maxsize=1024)  # a text is in many pairs
def _newlines(text: str) -> list[int]:
    return [match.start() for match in re.finditer("\n", text)]


def line_ranges(text: str, starts, ends) -> list[list[int]]:
    """Character slices of ``text`` as 1-based inclusive line ranges, sorted, overlapping and touching ones joined."""
    newlines = _newlines(text)
    ranges = []
    for start, end in sorted(zip((int(s) for s in starts), (int(e) for e in ends), strict=True)):
        first = bisect.bisect_left(newlines, start) + 1  # the newlines before it, plus one
        last = bisect.bisect_left(newlines, max(end - 1, start)) + 1
        if ranges and first <= ranges[-1][1] + 1:
            ranges[-1][1] = max(ranges[-1][1], last)
        else:
            ranges.append([first, last])
    return ranges


def _compare(first: Fingerprint, second: Fingerprint, texts: tuple[str, str], threshold: float) -> dict | None:
    """Two fingerprints compared, if they reach the threshold."""
    overlap, scores, slices = compare_files(first, second)
    if overlap < MIN_TOKEN_OVERLAP or max(scores) < threshold:
        return None
    return {
        "scores": [round(float(score), 4) for score in scores],
        "token_overlap": int(overlap),
        "lines": [line_ranges(text, *found) for text, found in zip(texts, slices, strict=True)],
    }


def pairs(
    submissions: list[Submission],
    starter: str | None,
    threshold: float,
    *,
    skip: set[frozenset[str]] = frozenset(),
    jobs: int = 1,
) -> list[dict]:
    """The pairs of ``submissions`` at or above ``threshold`` (either score), apart from those in ``skip``;
    the highest first, then by the two students. ``jobs``: processes comparing side by side."""
    ordered = sorted(submissions, key=lambda s: s.student)
    # Each distinct text is fingerprinted, and each pair of distinct texts compared, once: a class
    # holds many copies of the same file (untouched starters, a file passed around).
    distinct = list(dict.fromkeys(s.text for s in ordered))
    index = {text: i for i, text in enumerate(distinct)}
    student_pairs = [
        (first, second, (index[first.text], index[second.text]))
        for first, second in itertools.combinations(ordered, 2)
        if frozenset((first.student, second.student)) not in skip
    ]
    needed = sorted({texts for _, _, texts in student_pairs})
    compared = _compared(distinct, starter, threshold, needed, jobs)
    found = [
        {"students": [first.student, second.student], **compared[texts]}
        for first, second, texts in student_pairs
        if compared[texts] is not None
    ]
    return sorted(found, key=lambda p: (-max(p["scores"]), p["students"]))


def _compared(distinct: list[str], starter: str | None, threshold: float, needed: list, jobs: int) -> dict:
    """Each needed pair of distinct texts compared: {pair: _compare's result}. The texts are fingerprinted
    in ``jobs`` processes when there are enough pairs to pay for their start (the batch's grading is over:
    its cores are free), and compared here: a comparison costs little beside a fingerprint."""
    if not needed:  # one student, or copies only: nothing to fingerprint (copydetect's import is 0.4 s or more)
        return {}
    used = sorted({i for pair in needed for i in pair})
    if jobs <= 1 or len(needed) < PARALLEL_PAIRS:
        made = fingerprint_texts([distinct[i] for i in used], starter)
    else:
        shares = [used[i::jobs] for i in range(jobs)]
        # spawn, not fork: the batch process has threads (its jobs'), and a forked copy of a held lock never opens
        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
        with _one_hash_seed(), pool:
            texts = [[distinct[i] for i in share] for share in shares]
            made = list(pool.map(fingerprint_texts, texts, [starter] * len(shares)))
        used = [i for share in shares for i in share]  # in the order of what the processes made
        made = [p for part in made for p in part]
    prints = dict(zip(used, made, strict=True))
    return {(a, b): _compare(prints[a], prints[b], (distinct[a], distinct[b]), threshold) for a, b in needed}


@contextlib.contextmanager
def _one_hash_seed():
    """The processes started inside share one seed of Python's hash(). copydetect hashes each k-gram
    with hash(), which every process seeds at random at its start: fingerprints made by different
    processes can be compared only when they share it. (No fingerprint is made in the batch's process,
    whose seed is its own: the window is 1, so which k-grams are kept does not depend on the seed.)"""
    before = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONHASHSEED"]
        else:
            os.environ["PYTHONHASHSEED"] = before


def fingerprint_texts(texts: list[str], starter: str | None) -> list[Fingerprint]:
    """Each text's Fingerprint, the starter's k-grams left out (a process of _compared's pool runs this)."""
    starter_hashes = boilerplate(starter)
    return [fingerprint(text, starter_hashes) for text in texts]


def identical_pairs(groups: list[list[str]]) -> set[frozenset[str]]:
    """Every pair within the groups grader.batch.identical found."""
    return {frozenset(pair) for group in groups for pair in itertools.combinations(group, 2)}


def report(
    submissions: list[Submission],
    starter: str | None,
    threshold: float,
    identical_groups: list[list[str]],
    not_compared: list[str],
    *,
    jobs: int = 1,
) -> dict:
    """similarity.json: the settings, who was compared and who was not, and the pairs found
    (``jobs``: processes comparing side by side)."""
    return {
        "schema": SCHEMA,
        "method": "copydetect (winnowing), the lab's starter as boilerplate",
        "threshold": threshold,
        "noise_tokens": NOISE_TOKENS,
        "guarantee_tokens": GUARANTEE_TOKENS,
        "min_token_overlap": MIN_TOKEN_OVERLAP,
        "compared": len(submissions),
        "not_compared": sorted(not_compared),  # graded, but their text is not in files/ (deleted by hand)
        "identical_left_out": True,
        "pairs": pairs(submissions, starter, threshold, skip=identical_pairs(identical_groups), jobs=jobs),
    }

"""A pytest plugin for the kit's tests (`make test` loads it: ``-p tests.pure_memo``): the class files'
two costly pure functions, the report's plots and the similarity's fingerprints, computed once per input
in each test process.

Every `grader batch` a test runs writes the class files: similarity.json, which fingerprints each file
with copydetect, and report.html, which draws three plots with matplotlib (about half a second a report).
The tests grade the same few small classes again and again: in nine modules of batch tests, 217 plots were
drawn for 66 distinct inputs; and the copies of the reference and of its mutants are fingerprinted again
in every batch that holds them. On the kit's 2-core machine the plots and the fingerprints were about a
sixth of the whole suite's CPU time (py-spy over a full `make test`).

Both are pure: a plot is a function of its numbers and the lab's own names (the same figure gives the
same bytes, grader.batch.plots), a fingerprint of the text and the starter (copydetect's hashes are
Python's hash(), seeded per process: a process's memo holds only what that process made, and the
pool's processes, which share a seed of their own, never read it). So a test sees what it would have
computed, and each distinct input is still computed once in each process. A fingerprint's arrays
are read-only, so a caller that changed one would fail at once instead of spoiling the memo.
"""

import functools

from grader.batch import plots, similarity

PLOTS = ("score_histogram", "task_distributions", "item_analysis", "rounds")
MAX_PLOTS = 256  # SVG text, tens of kB each
MAX_FINGERPRINTS = 512  # a few arrays the size of the file's tokens each

originals: dict = {}


def memo_plot(draw):
    drawn: dict[str, str] = {}

    @functools.wraps(draw)
    def memo(*data):
        key = repr(data)  # numbers, names, lists, tuples and dicts of them: repr is exact
        if key not in drawn:
            if len(drawn) >= MAX_PLOTS:
                drawn.clear()
            drawn[key] = draw(*data)
        return drawn[key]

    return memo


def memo_fingerprints(fingerprint_texts):
    made: dict[tuple, similarity.Fingerprint] = {}

    @functools.wraps(fingerprint_texts)  # same name: the pool's processes still find the module's own
    def memo(texts, starter):
        missing = [text for text in dict.fromkeys(texts) if (text, starter) not in made]
        if missing:
            if len(made) + len(missing) > MAX_FINGERPRINTS:
                made.clear()
            for text, found in zip(missing, fingerprint_texts(missing, starter), strict=True):
                for array in (found.hashes, found.places, found.distinct, found.offsets):
                    if hasattr(array, "setflags"):
                        array.setflags(write=False)
                made[(text, starter)] = found
        return [made[(text, starter)] for text in texts]

    return memo


def pytest_configure(config):
    for name in PLOTS:
        originals[(plots, name)] = getattr(plots, name)
        setattr(plots, name, memo_plot(getattr(plots, name)))
    originals[(similarity, "fingerprint_texts")] = similarity.fingerprint_texts
    similarity.fingerprint_texts = memo_fingerprints(similarity.fingerprint_texts)


def pytest_unconfigure(config):
    for (module, name), function in originals.items():
        setattr(module, name, function)
    originals.clear()

"""The progress stream: the one channel by which a pytest process tells the grader what happened.

One JSON object per line, flushed as it happens: ``collected`` (the trusted list of
tests with their tasks, points and tiers: all of them, even in a run ordered to grade one
task), then per test ``start`` and ``result`` (the test's verdict and duration; the functions of the
code under test it called, when a queue entry asks), behind
the wall ``isolation`` (the protections in force), and ``finished`` when the session
ended normally. A run that grades several submissions (a
queue) frames each one's events with ``submission`` and ``submission_done``. If the test
process dies, the grader still knows what finished, and which test was running.

The plugin writes it (``Stream``), the grader reads it (``ProgressReader``): both sides
of the format live here. The grader's process imports this module, so it stays free of
pytest.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path


class Stream:
    """The writing end, in the pytest process (a stream to nowhere when no file was given)."""

    def __init__(self, file):
        self.file = file

    @classmethod
    def open(cls, path: Path | None) -> Stream:
        return cls(open(path, "a", encoding="utf-8") if path is not None else None)  # noqa: SIM115 - see close

    def _emit(self, event: dict) -> None:
        if self.file is not None:
            self.file.write(json.dumps(event) + "\n")
            self.file.flush()

    def collected(self, tests: list[dict]) -> None:
        self._emit({"event": "collected", "tests": tests})

    def start(self, test: str, seconds: float | None = None) -> None:
        """A test starts; ``seconds``: its time limit, when it is not the lab's (the shorter one after a timeout)."""
        event = {"event": "start", "id": test}
        self._emit(event if seconds is None else {**event, "seconds": seconds})

    def result(self, test: str, duration_s: float, verdict: dict, calls: list[str] | None = None) -> None:
        """``calls``: the functions of the code under test the test called, when the run asked (in-process)."""
        event = {"event": "result", "id": test, "duration_s": duration_s, **verdict}
        self._emit(event if calls is None else {**event, "calls": calls})

    def isolation(self, level: str, protections: list[str]) -> None:
        self._emit({"event": "isolation", "level": level, "protections": protections})

    def submission(self, key: str) -> None:
        self._emit({"event": "submission", "key": key})

    def submission_done(self, key: str) -> None:
        self._emit({"event": "submission_done", "key": key})

    def finished(self) -> None:
        self._emit({"event": "finished"})

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


@dataclass
class Part:
    """One submission's share of a run (the only share, outside a queue)."""

    started: list[str] = field(default_factory=list)  # test ids, in order
    limits: dict[str, float] = field(default_factory=dict)  # test id -> its time limit, when not the lab's
    results: dict[str, dict] = field(default_factory=dict)  # test id -> the plugin's verdict
    isolation: dict | None = None  # behind the wall: the sandbox's level and what the kernel enforced
    done: bool = False


class ProgressReader:
    """Reads the stream incrementally: ``poll()`` takes in whatever was appended since the last call."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0
        self.collected: list[dict] | None = None  # None until collection finished
        self.parts: dict[str | None, Part] = {None: Part()}
        self.current: str | None = None  # the submission being graded
        self.finished = False  # the session ended normally (not killed, not exited early)

    def poll(self) -> ProgressReader:
        if not self.path.exists():
            return self
        with self.path.open("rb") as f:
            f.seek(self.offset)
            data = f.read()
        complete = data[: data.rfind(b"\n") + 1]  # a line still being written waits for the next poll
        self.offset += len(complete)
        for line in complete.decode("utf-8", errors="replace").splitlines():
            try:
                self._take(json.loads(line))
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
        return self

    def _take(self, event: dict) -> None:
        kind = event.get("event")
        if kind == "collected":
            self.collected = event["tests"]
        elif kind == "submission":
            self.current = str(event["key"])
            self.parts[self.current] = Part()
        elif kind == "submission_done":
            self.parts[str(event["key"])].done = True
        elif kind == "start":
            self.part.started.append(event["id"])
            seconds = event.get("seconds")
            if type(seconds) in (int, float) and 0 < seconds < math.inf:
                self.part.limits[event["id"]] = float(seconds)
        elif kind == "result":
            self.part.results[event["id"]] = event
        elif kind == "finished":
            self.finished = True
        elif kind == "isolation":
            self.part.isolation = {"level": str(event["level"]), "protections": list(event["protections"])}

    @property
    def part(self) -> Part:
        return self.parts[self.current]

    @property
    def running(self) -> str | None:
        """The test that started last and has no result yet."""
        part = self.part
        return next((i for i in reversed(part.started) if i not in part.results), None)

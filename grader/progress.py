"""The progress stream: what the pytest plugin tells the grader while the tests run.

One JSON object per line, flushed as it happens: ``collected`` (the trusted list of
tests with their tasks and points), then per test ``start`` and ``result``. If the test
process dies, the grader still knows what finished, and which test was running.
This module is imported by the grader's parent process, so it stays free of pytest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

PROGRESS_ENV = "LABKIT_PROGRESS"


@dataclass
class Progress:
    collected: list[dict] | None = None  # None until collection finished
    started: list[str] = field(default_factory=list)  # test ids, in order
    results: dict[str, dict] = field(default_factory=dict)  # test id -> the plugin's verdict


def read_progress(path: Path) -> Progress:
    progress = Progress()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                break  # a line cut short by a dying process
            kind = event.get("event")
            if kind == "collected":
                progress.collected = event["tests"]
            elif kind == "start":
                progress.started.append(event["id"])
            elif kind == "result":
                progress.results[event["id"]] = event
    return progress

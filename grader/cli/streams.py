"""stdout and stderr that outlive their reader.

`grader run ... | head -1` or `| grep -q Total` closes the pipe while the grader still writes to it. Python
then raises BrokenPipeError on the next write, and click turns it into exit status 1: the run stopped half
way, its JSON report unwritten, and "points lost" said of a run that lost none. Behind these streams a write
to a reader that has left goes nowhere, and the command finishes as it would have: its report written, its
own exit status.
"""

from __future__ import annotations

import io
import os
import sys


class _ToAReaderThatMayLeave(io.RawIOBase):
    """File descriptor ``fd``, written until the reader leaves; every write after that is dropped."""

    def __init__(self, fd: int):
        super().__init__()
        self.fd = fd
        self.reader_left = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data) -> int:
        if not self.reader_left:
            try:
                return os.write(self.fd, data)
            except BrokenPipeError:
                self.reader_left = True
        return len(data)


def _outliving(stream):
    """``stream`` again, over its descriptor, writing nowhere once its reader has left; ``stream`` itself where
    it has no descriptor (a test's capture) or is a terminal (which has no reader to leave)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return stream
    if os.isatty(fd):
        return stream
    stream.flush()
    return io.TextIOWrapper(
        io.BufferedWriter(_ToAReaderThatMayLeave(fd)),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=True,
    )


def outlive_their_readers() -> None:
    """Put sys.stdout and sys.stderr behind streams that outlive their readers (for the whole process)."""
    sys.stdout = _outliving(sys.stdout)
    sys.stderr = _outliving(sys.stderr)

"""The git commands ``grader collect`` runs on a student's fork, and nothing else.

A fork is an adversary's repository, reached through a URL a student may have chosen. So
every command runs with no terminal and nothing to prompt with (``GIT_TERMINAL_PROMPT=0``,
no askpass program, ssh in batch mode, a new session without a controlling terminal, stdin
closed): a URL that wants a password fails at once instead of waiting for one. The
credentials the instructor has configured (a credential helper holding a token, an ssh
agent) are used as they are; a helper that would open a window is told not to
(``GCM_INTERACTIVE=never``). Only the https, ssh and file transports are allowed (never
``ext::``, which runs a program), no hook runs (hooks come from the local templates and
``core.hooksPath``, both emptied), and no work tree is ever checked out: the lab's file is
read at a commit with git's object commands, its size asked (``git cat-file -s``) before a
byte of it is read.

The student chooses what the fork holds, so what git writes and holds for it is bounded by the
kernel, not by git's good will: every command runs under a file size limit (RLIMIT_FSIZE, ``ulimit
-f``) and a memory limit (RLIMIT_DATA, ``ulimit -d``), set in the ``sh`` that execs git. A write
past the first fails (EFBIG, "File too large"), an allocation past the second too ("Out of
memory"). The clone's pack may reach ``CLONE_BYTES``; the pack that fetches one lab file, the file's
limit and a little (``PACK_SLACK``): a 300 MiB file that does not compress is stopped a little after
1 MiB, and one that does (zeros) arrives small and is measured, then refused. Memory: git holds a
commit or a tree whole, and a delta of a few hundred bytes can expand to gigabytes (a review's
17 KB fork held a 4 GiB commit: 4.2 GB in index-pack); ``GIT_MEMORY`` stops that. A blob that is
not a delta, git's index-pack hashes as it streams (``core.bigFileThreshold``).

The clone is bare, of the default branch only, and blobless (``--filter=blob:none``): every
commit and tree, which the history checks need and which weigh little, but no file's content
until asked for, when git fetches that one blob. A depth-limited clone would cut the history
the checks read (a commit dated before the deadline with a parent dated after it can be
anywhere down the chain) and would need the deadline before the student's dates could be
trusted. A server that does not offer filters (a plain ``file://`` repository without
``uploadpack.allowFilter``) sends everything, which is slower but reads the same.

Each command has what is left of one budget per fork (``timeout``), and a command that
outlives it is killed with every process it started; its output is read up to a bound.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

MAX_OUTPUT = 64 << 20  # a first-parent history of a million commits is about 50 MiB of "time sha" lines
MAX_MESSAGE = 2000  # of git's stderr, for the one line that says why
CLONE_BYTES = 256 << 20  # the largest file git may write for a fork: the clone's pack of commits and trees
GIT_MEMORY = 1 << 30  # the heap and private mappings of one git command (a million commits need a fraction)
PACK_SLACK = 64 << 10  # a pack's headers and zlib's few bytes per block over a blob's own bytes
SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # SHA-1 or SHA-256 object names
REGULAR_FILE_MODES = ("100644", "100755")
# Every command: no prompt, no hook, no transport but these three, no pager, no fsmonitor.
CONFIG = (
    "protocol.allow=never",
    "protocol.https.allow=always",
    "protocol.ssh.allow=always",
    "protocol.file.allow=always",
    "core.hooksPath=/dev/null",
    "core.askPass=",
    "core.fsmonitor=false",
    "credential.interactive=false",
    "core.bigFileThreshold=1m",  # a larger blob is hashed as it streams in, never held whole in memory
)
# git, execed by a shell that sets the kernel's bounds: on the size of any file it writes ($0: 512-byte blocks)
# and on its memory ($1: KiB). SIGXFSZ ignored, a write past the first fails with EFBIG, which git reports in
# words ("File too large"); killed by the signal instead, a clone's index-pack dies unnamed ("fetch-pack:
# invalid index-pack output").
WITH_LIMITS = ("sh", "-c", 'trap "" XFSZ; ulimit -f "$0" && ulimit -d "$1" && shift && exec "$@"')
FILE_LIMIT_SAID = (os.strerror(errno.EFBIG).encode(), f"died of signal {int(signal.SIGXFSZ)}".encode())
MEMORY_LIMIT_SAID = (b"Out of memory", os.strerror(errno.ENOMEM).encode())


_running: set[subprocess.Popen] = set()  # every git command running now, for stop_all
_running_lock = threading.Lock()


class GitError(Exception):
    """A git command failed or ran out of time: one line saying why (the student's problem, not the grader's)."""


class LimitReached(GitError):
    """The kernel stopped git at the command's bound on a file it writes or on its memory: the fork holds more."""

    def __init__(self, message: str, *, memory: bool):
        super().__init__(message)
        self.memory = memory


def git_version() -> str | None:
    """The installed git's version line, or None when there is no git."""
    try:
        done = subprocess.run(["git", "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in ("GIT_SSH", "GIT_SSH_COMMAND")}
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_ASKPASS="",
        SSH_ASKPASS="",
        GCM_INTERACTIVE="never",
        GIT_SSH_COMMAND=env.get("GIT_SSH_COMMAND") or "ssh",
        LC_ALL="C",  # git's messages in one language, as the tests read them
    )
    # ssh must never ask for a password, a passphrase or whether to trust a host: BatchMode refuses instead.
    env["GIT_SSH_COMMAND"] += " -o BatchMode=yes"
    env.pop("GIT_SSH", None)  # GIT_SSH_COMMAND is the one ssh used, with BatchMode
    return env


def _one_line(data: bytes) -> str:
    text = data[:MAX_MESSAGE].decode("utf-8", "replace")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("warning:")]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    return (fatal or lines[-1:] or ["(no message)"])[0][:300]  # git says the cause first, then the generic words


@dataclass(frozen=True)
class Commit:
    sha: str
    time: int  # committer time, seconds since the epoch: the student's claim


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    kind: str  # blob, tree, commit (a submodule)
    sha: str


class Fork:
    """A bare, blobless clone of one fork in ``folder``, every command within one ``timeout``."""

    def __init__(self, url: str, folder: Path, timeout: float, stop: threading.Event | None = None):
        self.url = url
        self.folder = folder
        self.timeout = timeout
        self.ends = time.monotonic() + timeout
        self.env = _environment()
        self.stop = stop or threading.Event()  # set: start no other command (the collection was interrupted)

    def _run(
        self, args: list[str], *, limit: int = MAX_OUTPUT, check: bool = True, file_bytes: int | None = None
    ) -> tuple[int, bytes]:
        """Run ``git args``, no file it writes larger than ``file_bytes`` (default CLONE_BYTES), its memory within
        GIT_MEMORY; its exit status and stdout (GitError when it fails, if ``check``; LimitReached when the
        kernel stopped it at a bound, always)."""
        file_bytes = CLONE_BYTES if file_bytes is None else file_bytes
        if self.stop.is_set():
            raise GitError("the collection was interrupted")
        left = self.ends - time.monotonic()
        if left <= 0:
            raise GitError(f"git took longer than {self.timeout:g} s for this fork")
        blocks = str(-(-file_bytes // 512))
        memory = str(GIT_MEMORY >> 10)
        command = [*WITH_LIMITS, blocks, memory, "git", *(part for c in CONFIG for part in ("-c", c)), *args]
        with tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=errors,
                env=self.env,
                start_new_session=True,  # no controlling terminal to prompt on; killed as a group
            )
            with _running_lock:
                _running.add(process)
                # Interrupted since the check above: stop_all ran before this git was registered and
                # could not kill it (stop is set before stop_all runs, so one of the two sees it).
                interrupted = self.stop.is_set()
            if interrupted:
                _kill_group(process)
            timed_out = threading.Event()

            def kill() -> None:
                timed_out.set()
                _kill_group(process)

            timer = threading.Timer(left, kill)
            timer.start()
            try:
                out = process.stdout.read(limit + 1)
                if len(out) > limit:
                    _kill_group(process)
                    raise GitError(f"git {args[0]} wrote more than {limit >> 20} MiB")
                status = process.wait()
            finally:
                timer.cancel()
                process.stdout.close()
                if process.poll() is None:
                    _kill_group(process)
                    process.wait()
                with _running_lock:
                    _running.discard(process)
            if interrupted:
                raise GitError("the collection was interrupted")
            if timed_out.is_set():
                raise GitError(f"git took longer than {self.timeout:g} s for this fork")
            if status != 0:
                errors.seek(0)
                said = errors.read(MAX_MESSAGE)
                if any(words in said for words in FILE_LIMIT_SAID):  # LC_ALL=C: the C library's words
                    raise LimitReached(
                        f"git was stopped writing a file of more than {file_bytes >> 10} KiB", memory=False
                    )
                if any(words in said for words in MEMORY_LIMIT_SAID):
                    raise LimitReached(f"git was stopped at {GIT_MEMORY >> 20} MiB of memory", memory=True)
                if check:
                    raise GitError(_one_line(said))
        return status, out

    def clone(self) -> None:
        """Bare and blobless, the default branch only, no tags, no template (so no hook)."""
        try:
            self._run(
                ["clone", "--bare", "--filter=blob:none", "--single-branch", "--no-tags", "--template=", "--quiet"]
                + ["--", self.url, str(self.folder)]
            )
        except LimitReached as exc:
            # Commits and trees alone; every file too from a server that cannot leave them out.
            bound = f"{GIT_MEMORY >> 20} MiB of memory" if exc.memory else f"{CLONE_BYTES >> 20} MiB"
            raise GitError(f"git was stopped at {bound} fetching its history") from None

    def _in_clone(self, *args: str, **kwargs) -> tuple[int, bytes]:
        return self._run(["-C", str(self.folder), *args], **kwargs)

    def branch(self) -> str | None:
        """The default branch's name (the clone's HEAD), or None for an empty repository."""
        status, out = self._in_clone("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
        head, _ = self._in_clone("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
        if head != 0:
            return None
        return out.decode("utf-8", "replace").strip() if status == 0 else "HEAD"

    def first_parent_history(self) -> list[Commit]:
        """The default branch's commits, newest first, along first parents, with their committer times."""
        _, out = self._in_clone("rev-list", "--first-parent", "--topo-order", "--timestamp", "HEAD")
        history = []
        for line in out.decode("ascii", "replace").splitlines():
            stamp, _, sha = line.partition(" ")
            if not SHA.match(sha) or not stamp.isdigit():
                raise GitError(f"git rev-list printed {line[:80]!r}")
            history.append(Commit(sha, int(stamp)))
        return history

    def contains(self, sha: str) -> bool:
        """Whether commit ``sha`` is in the default branch (an ancestor of its head, or the head)."""
        if not SHA.match(sha):
            return False
        status, _ = self._in_clone("merge-base", "--is-ancestor", sha, "HEAD", check=False)
        return status == 0  # 1: not an ancestor; 128: not in the clone at all

    def entry(self, commit: str, path: str) -> TreeEntry | None:
        """What ``path`` is at ``commit`` (its mode, kind and object), read from the tree; None if absent."""
        _, out = self._in_clone("ls-tree", "-z", "--full-tree", commit, "--", path)
        for item in out.split(b"\0"):
            meta, _, name = item.partition(b"\t")
            if name.decode("utf-8", "surrogateescape") == path:
                mode, kind, sha = meta.decode("ascii", "replace").split(" ")
                return TreeEntry(mode, kind, sha)
        return None

    def found_at(self, commit: str, path: str) -> str | None:
        """The object git itself finds at ``path`` in ``commit`` (as `git show COMMIT:PATH` does), or None."""
        status, out = self._in_clone("rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False)
        sha = out.decode("ascii", "replace").strip()
        return sha if status == 0 and SHA.match(sha) else None

    def object_of(self, sha: str, most: int) -> tuple[str, int] | None:
        """The object's type and size in bytes, asked before any of it is read (a tree entry's mode does not say:
        a file's entry may name a tag); None: more than ``most`` bytes, which git was stopped fetching. git
        fetches it into the clone if need be, in a pack the kernel holds to ``most`` bytes and ``PACK_SLACK``: a
        larger object that compresses well arrives whole and is measured."""
        try:
            _, kind = self._in_clone("cat-file", "-t", sha, file_bytes=most + PACK_SLACK)
        except LimitReached:
            return None
        _, size = self._in_clone("cat-file", "-s", sha)
        return kind.decode("ascii", "replace").strip()[:20], int(size.strip())

    def blob(self, sha: str, limit: int) -> bytes:
        """The blob's content, at most ``limit`` bytes (GitError beyond)."""
        _, out = self._in_clone("cat-file", "blob", sha, limit=limit)
        return out


def stop_all() -> None:
    """Kill every git command running now (they run in sessions of their own, which Ctrl-C does not reach)."""
    with _running_lock:
        running = list(_running)
    for process in running:
        _kill_group(process)


def _kill_group(process: subprocess.Popen) -> None:
    if process.returncode is not None:
        return  # reaped: its pid, and so its group's id, may be another process's now
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # git, and the ssh, upload-pack or index-pack it started

"""Start the worker inside the strongest sandbox this machine allows, and tear it down completely.

The boundary is the kernel's. Levels, strongest first (``LABKIT_SANDBOX`` asks for one;
``auto``, the default, takes the first this machine allows):

- ``bubblewrap``: new namespaces, a read-only world built from nothing, a uid of the
  sandbox's own with no capabilities, seccomp (grader.wall.bubblewrap, grader.wall.syscalls);
- ``unprivileged-user``: where bubblewrap cannot make namespaces but we are root (an
  unprivileged container): the worker runs as a uid of its own with no capabilities,
  under the same seccomp filters, and only if the reference solutions and the hidden tests
  are unreadable to it (Gradescope's advice for its containers);
- ``none``: only when asked for by name. A separate process with resource limits, which
  is not a security boundary; the report says so.

Below ``bubblewrap`` and without ``none`` asked for, grading behind the wall refuses with
one line naming the fix. Every level: a sandbox per solo run or batch job in which the
kernel keeps one student from the next (see grader.wall.worker), resource limits,
a scrubbed environment, an isolated interpreter (``-I -S``) whose import path holds the
standard library and the allowed packages but not the kit. The Python-level guards in the
worker (an import allow-list, an audit hook) only explain to a student what they did
wrong; the report's ``isolation.protections`` lists what the kernel enforces.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from grader import exits
from grader.env import ONE_BLAS_THREAD
from grader.grading import scratch as scratch_folders
from grader.labs import KIT_ROOT
from grader.limits import Limits
from grader.wall import bubblewrap, profile, syscalls, uids

WALL_DIR = Path(__file__).resolve().parent
SANDBOX_ENV = "LABKIT_SANDBOX"  # auto (default), bubblewrap, unprivileged-user or none
LEVELS = ("bubblewrap", "unprivileged-user", "none")
FIX = "install bubblewrap (as root: apt-get install bubblewrap; `make setup` does it)"
# What the sandbox's zygote may write to its log (worker.log, its stderr, a file on the host): its own
# file-size limit, the kernel's (grader.wall.worker). It writes a line or two when it fails, and nothing
# else ever needs it; the children print to files of their own, under the output limit.
LOG_BYTES = 1 << 20

BOOTSTRAP = """\
import json, sys, types
config = json.loads(sys.argv[1])
sys.path[:] = config["sys_path"]
codec = types.ModuleType("labkit_codec")
exec(compile({codec!r}, "labkit_codec", "exec"), codec.__dict__)
sys.modules["labkit_codec"] = codec
worker = types.ModuleType("labkit_worker")
exec(compile({worker!r}, "labkit_worker", "exec"), worker.__dict__)
worker.zygote_main(config)
"""

SCRUBBED_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    **ONE_BLAS_THREAD,  # as the grading process: threads would cost address space too
}


# The sandbox's first process: it runs the command and, when the grading process dies, kills it
# (bubblewrap's monitor, in a session of its own; the sandbox dies with it) and itself.
GUARD = """trap 'kill -KILL "$child" 0' TERM; "$@" & child=$!; wait "$child" """


class SandboxUnavailable(RuntimeError):
    """No sandbox of the level asked for can be made on this machine: the message names the fix."""


def level(requested: str | None = None) -> str:
    """The sandbox level to grade at (``requested``, else LABKIT_SANDBOX's, else the best this
    machine allows), or SandboxUnavailable with the fix. The grader decides it once per run
    and passes it down (grader.env.SANDBOX_LEVEL_ENV), so a grading process does not probe."""
    requested = (requested or os.environ.get(SANDBOX_ENV) or "auto").strip()
    if requested not in ("auto", *LEVELS):
        raise SandboxUnavailable(f"{SANDBOX_ENV} must be auto, {', '.join(LEVELS)}; not {requested!r}")
    if requested == "none":
        return "none"
    why = bubblewrap.unavailable() if requested != "unprivileged-user" else "it was not asked for"
    if why is None:
        return "bubblewrap"
    if requested == "bubblewrap":
        raise SandboxUnavailable(f"no sandbox: {why}. Fix: {FIX}")
    problem = _unprivileged_user_problem()
    if problem is None:
        return "unprivileged-user"
    raise SandboxUnavailable(
        f"no sandbox: {why}, and {problem}. Fix: {FIX} (or set {SANDBOX_ENV}=none to grade without a security boundary)"
    )


def _unprivileged_user_problem() -> str | None:
    """Why the worker cannot run as an unprivileged uid here with the kit out of its reach, or None."""
    if os.geteuid() != 0:
        return "the grader is not root, so it cannot run the worker as another user"
    if not Path(bubblewrap.SETPRIV).exists():
        return f"{bubblewrap.SETPRIV} (util-linux) is missing"
    # At this level the worker's uid sees the whole file system: only modes keep the secrets from it.
    secrets = [("the reference solutions", KIT_ROOT / "reference")]
    secrets += [("the hidden tests", folder) for folder in sorted(KIT_ROOT.glob("labs/*/hidden"))]
    for what, folder in secrets:
        if folder.is_dir() and _readable_by_others(folder):
            return f"{what} in {folder} are readable by other users (chmod -R go-rwx it)"
    needed = [bubblewrap.executable(), *bubblewrap.stdlib_paths(), *map(str, _package_dirs(["numpy"]).values())]
    unreadable = [p for p in needed if not _others_can_read(Path(p))]
    if unreadable:
        return f"{unreadable[0]} is not readable by other users"
    return None


def _readable_by_others(folder: Path) -> bool:
    """Whether a user with no rights of its own can list ``folder`` or read a file in it."""
    return any(_others_can_read(path) for path in [folder, *folder.rglob("*")])


def _others_can_read(path: Path) -> bool:
    """Whether a user with no rights of its own can reach ``path`` (every folder above it searchable)."""
    path = path.resolve()
    for folder in [path, *path.parents]:
        try:
            mode = folder.stat().st_mode
        except OSError:
            return False
        if folder.is_dir() and not mode & stat.S_IXOTH:
            return False
    return bool(path.stat().st_mode & stat.S_IROTH)


def _package_dirs(names: list[str]) -> dict[str, Path]:
    """The installed folders of the allowed third-party packages (numpy and its vendored libraries)."""
    found = {}
    for name in names:
        spec = __import__("importlib.util").util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = Path(next(iter(spec.submodule_search_locations))).resolve()
        found[name] = folder
        libs = folder.parent / f"{name}.libs"  # manylinux wheels keep shared libraries beside the package
        if libs.is_dir():
            found[f"{name}.libs"] = libs.resolve()
    return found


def protections(level: str, limits: Limits, as_root: bool) -> list[str]:
    """What the kernel enforces at ``level``, in words a student can read."""
    limits_line = (
        f"limits: {limits.test_seconds:g} s per test, {limits.call_seconds:g} s per call, "
        f"{limits.cpu_seconds} s CPU, {limits.memory_mb} MiB memory, {limits.output_kb} KiB output"
    )
    fresh = (
        "between two submissions every process of the first is killed and the writable folders "
        "emptied; the code cannot signal, trace or write the process that starts the next"
    )
    seccomp = "system calls refused: new processes and programs, ptrace, mount, new namespaces, sockets"
    if level == "bubblewrap":
        user = "its own user, mount" if not as_root else "its own mount"
        return [
            f"bubblewrap: {user}, PID, IPC, UTS and network namespaces (no network)",
            "runs as an unprivileged user with no capabilities, at most "
            f"{limits.processes} processes and threads"
            + (" and no user namespaces of its own" if not as_root else ", a uid no other process has"),
            "read-only file system holding only the interpreter, its standard library, the allowed "
            "packages and the submission; the only writable places are two small folders in memory",
            seccomp,
            limits_line,
            fresh,
        ]
    if level == "unprivileged-user":
        return [
            "runs as a uid no other process has, with no capabilities; the reference solutions and the hidden tests "
            "are unreadable to it",
            seccomp,
            limits_line,
            fresh,
        ]
    return ["not a security boundary: a separate process with resource limits, as the grader's own user", limits_line]


@dataclass
class Sandbox:
    """A running worker (its zygote), one submission's, and everything needed to stop it without a trace."""

    process: subprocess.Popen
    control: socket.socket
    owned: scratch_folders.Folder  # the scratch folder, locked while the sandbox lives (a killed grader's is swept)
    level: str
    protections: list[str]
    uid: int | None  # the sandbox's own uid (as root), which owns each child's run folder
    uid_claim: uids.Claim | None = None
    _runs: int = field(default=0)
    loads: int = 0
    submission_folder: Path | None = None  # the loaded submission's folder, on this side
    cpu: int | None = None  # the core its children keep to, with the pytest process (grader.wall.cpus)

    @property
    def scratch(self) -> Path:
        return self.owned.path

    @property
    def folder(self) -> Path:
        """The submissions' folder on this side (``/submission``, read-only, inside bubblewrap)."""
        return self.scratch / "submission"

    def inside(self, path: Path) -> str:
        """``path`` (in the submissions' folder) as the worker sees it."""
        if self.level != "bubblewrap":
            return str(path)
        return str(Path(bubblewrap.SUBMISSION_DIR) / path.relative_to(self.folder))

    def load(self, submission: Path) -> int:
        """Give the zygote the next submission; it answers ``loaded`` for ``load<number>``.

        A batch job's students are loaded one after another: first the zygote kills every
        process of the last one and empties the writable folders (see grader.wall.worker)."""
        self.loads += 1
        # Numbered per submission: a count across the job told the next student how many the last one used.
        self._runs = 0
        self.forget_folder()
        self.submission_folder = self.folder / f"submission-{self.loads}"
        self.submission_folder.mkdir(mode=0o711)
        display = self.submission_folder / submission.name
        shutil.copyfile(submission, display)
        os.chmod(display, 0o644)
        self.send({"op": "load", "load": self.loads, "display_path": self.inside(display)})
        return self.loads

    def unload(self) -> None:
        """Ask the zygote to kill every process of the loaded submission and empty the writable folders."""
        self.send({"op": "unload", "load": self.loads})

    def forget_folder(self) -> None:
        if self.submission_folder is not None:
            shutil.rmtree(self.submission_folder, ignore_errors=True)
            self.submission_folder = None

    def send(self, message: dict) -> None:
        self.control.send(json.dumps(message).encode())

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def new_workdir(self) -> str:
        """An empty folder for one test's child, as the worker sees it (the zygote makes it if need be).

        In bubblewrap, on the sandbox's own tmpfs; at the lower levels, on this side's disk."""
        self._runs += 1
        if self.level == "bubblewrap":
            return f"{bubblewrap.SANDBOX_DIR}/run-{self._runs}"
        workdir = self.submission_folder / f"run-{self._runs}"
        workdir.mkdir(mode=0o700)
        if self.uid is not None:
            os.chown(workdir, self.uid, self.uid)
        return str(workdir)

    def close(self) -> None:
        """Stop the zygote and everything it started, then delete the scratch folder.

        Asked to quit, the zygote kills its children and exits; bubblewrap's PID namespace
        ends with it. Killing the process group is for a zygote that does not answer."""
        with contextlib.suppress(OSError):
            self.send({"op": "quit"})
        if exits.wait(self.process, 5) is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            exits.wait(self.process, 10)
        with contextlib.suppress(OSError):
            self.control.close()
        self.owned.remove()
        if self.uid_claim is not None:
            self.uid_claim.release()  # only now: no process of this uid is left


def start(
    lab, limits: Limits, *, chosen: str | None = None, module_name: str = "submission", python_guards: bool = True
) -> Sandbox:
    """Start a sandbox's zygote; ``Sandbox.load`` gives it a submission (a batch job's, one after another).

    ``chosen`` is the level the grader decided (see ``level``); None decides it here.

    ``python_guards=False`` leaves out the worker's import allow-list and audit hook, and the quiet of
    its compiler: the kit's own tests use it to show that the kernel alone holds every attack.
    """
    chosen = chosen if chosen in LEVELS else level()
    as_root = os.geteuid() == 0
    owned = scratch_folders.Folder("wall")
    claim = None
    try:
        scratch = owned.path
        os.chmod(scratch, 0o711)
        (scratch / "submission").mkdir(mode=0o711)
        packages = _package_dirs([n for n in lab.allowed_imports if n not in sys.stdlib_module_names])
        claim = uids.claim() if as_root and chosen != "none" else None
        uid = claim.uid if claim else None
        if chosen == "bubblewrap":
            site = bubblewrap.SITE_DIR
        else:
            site = scratch / "site"
            site.mkdir(mode=0o755)
            for name, folder in packages.items():
                (site / name).symlink_to(folder)
        sys_path = [*bubblewrap.stdlib_paths(), str(site)]
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        config = {
            "sys_path": sys_path,
            # Loaded once by the zygote, for every child: numpy's lazily loaded submodules too.
            "preload": [
                *lab.allowed_imports,
                *(f"numpy.{m}" for m in ("random", "linalg", "fft") if "numpy" in lab.allowed_imports),
            ],
            "control_fd": child.fileno(),
            "module": module_name,
            "public": list(lab.public),
            # The lab's trusted loops (grader.testing.beside), loaded by the zygote before any student code.
            "helpers": {Path(name).stem: (lab.folder / name).read_text(encoding="utf-8") for name in lab.helpers},
            "allowed_imports": list(lab.allowed_imports),
            "python_guards": python_guards,
            "log_bytes": LOG_BYTES,
            "profile": profile.destination() is not None,  # its children say where their time went
            "writable": bubblewrap.SANDBOX_DIR if chosen == "bubblewrap" else None,
            "read_roots": sys_path,
            "memory_bytes": limits.memory_mb * 1024 * 1024,
            "limits": {
                "cpu_seconds": limits.cpu_seconds,
                "output_bytes": limits.output_kb * 1024,
                # Counted per uid in its user namespace (Linux 5.14+), or for the sandbox's own uid as root.
                "processes": limits.processes if chosen != "none" else None,
            },
        }
        if chosen != "none":
            config["child_filter"] = base64.b64encode(syscalls.child_program()).decode()
        if chosen == "unprivileged-user":
            config["sandbox_filter"] = base64.b64encode(syscalls.sandbox_program()).decode()
        codec_source = (WALL_DIR / "codec.py").read_text(encoding="utf-8")
        worker_source = (WALL_DIR / "worker.py").read_text(encoding="utf-8")
        bootstrap = BOOTSTRAP.format(codec=codec_source, worker=worker_source)
        python = [bubblewrap.executable(), "-I", "-S", "-c", bootstrap, json.dumps(config)]
        env = dict(SCRUBBED_ENV, HOME=bubblewrap.SANDBOX_DIR if chosen == "bubblewrap" else str(scratch))
        env["TMPDIR"] = f"{bubblewrap.SANDBOX_DIR}/tmp" if chosen == "bubblewrap" else str(scratch / "submission")
        pass_fds = [child.fileno()]
        if chosen == "bubblewrap":
            seccomp_fd = syscalls.as_memfd(syscalls.sandbox_program())
            pass_fds.append(seccomp_fd)
            command = bubblewrap.command(
                python, submission_folder=scratch / "submission", packages=packages, seccomp_fd=seccomp_fd, uid=uid
            )
        elif chosen == "unprivileged-user":
            seccomp_fd = None
            command = [*bubblewrap.become(uid), "--", *python]
        else:
            seccomp_fd = None
            command = python
        if Path(bubblewrap.SETPRIV).exists():
            # Everything dies with this process. bubblewrap's --die-with-parent covers the
            # sandbox's processes, not bubblewrap's own monitor, and a parent-death signal set on
            # bubblewrap itself is cleared when it changes its capabilities: a killed grader left
            # monitors behind. So a shell that is told (SIGTERM) kills bubblewrap, then itself.
            command = [bubblewrap.SETPRIV, "--pdeathsig=SIGTERM", "--", "/bin/sh", "-c", GUARD, "sh", *command]
        try:
            process = subprocess.Popen(
                command,
                pass_fds=pass_fds,
                env=env,
                cwd=scratch / "submission",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=(scratch / "worker.log").open("wb"),  # bounded by the zygote's own file-size limit
                start_new_session=True,
            )
        finally:
            child.close()
            if seccomp_fd is not None:
                os.close(seccomp_fd)
    except BaseException:
        owned.remove()
        if claim is not None:
            claim.release()
        raise
    return Sandbox(process, parent, owned, chosen, protections(chosen, limits, as_root), uid, claim)

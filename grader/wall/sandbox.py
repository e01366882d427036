"""Start the worker inside the strongest sandbox this machine allows, and tear it down completely.

Always: a separate interpreter started isolated (``-I -S``) whose import path holds
the standard library and numpy but not the kit; a scrubbed environment; a scratch
folder holding a copy of the submission; resource limits; its own session, killed as a
whole. Where possible, more: as root, the children run as an unprivileged user; with
``unshare`` (root, or unprivileged user namespaces), new mount, network and PID
namespaces hide the kit's folder, cut the network and make every process die with the
worker. The report lists the protections that were in force.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

from .. import scratch as scratch_folders
from ..labs import KIT_ROOT

WALL_DIR = Path(__file__).resolve().parent

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

# Mount setup inside the new namespaces. numpy is bound into the scratch folder; the kit's
# folder (which holds the virtual environment) is hidden under an empty tmpfs; then the
# folder holding the scratch folder (the machine's /tmp: other gradings, the runner's
# files) is replaced by an empty tmpfs in which only this scratch folder reappears.
NAMESPACE_SETUP = """\
set -e
site="$1"; scratch="$2"; shift 2
for pair in $LABKIT_BINDS; do
  mount --bind "${pair%%=*}" "$site/${pair##*=}"
done
for hidden in $LABKIT_HIDE; do
  mount -t tmpfs -o size=64k,mode=0755 tmpfs "$hidden"
done
if [ -n "$LABKIT_PRIVATE_TMP" ]; then
  mount -t tmpfs -o size=64k tmpfs /mnt
  mkdir /mnt/stage
  mount --rbind "$scratch" /mnt/stage
  mount -t tmpfs -o mode=1777 tmpfs "$LABKIT_PRIVATE_TMP"
  mkdir -p "$scratch"
  mount --rbind /mnt/stage "$scratch"
  umount -l /mnt
fi
exec "$@"
"""

SCRUBBED_ENV = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    # One thread each: parallelism belongs to the batch grader, and threads cost address space.
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


@dataclass(frozen=True)
class Limits:
    """Per-test limits for the code under test (lab.toml ``[limits]``, with these defaults)."""

    test_seconds: float = 10.0  # wall clock for one test
    call_seconds: float = 10.0  # wall clock for one operation
    cpu_seconds: int = 10  # CPU time of one test's worker
    memory_mb: int = 1024  # address space
    output_kb: int = 1024  # what the code under test may print or write
    processes: int = 32  # processes of the unprivileged user (only where children run as one)
    import_seconds: float = 10.0  # for importing the submission

    @classmethod
    def from_lab(cls, limits: dict) -> Limits:
        """The lab's limits (names this class does not know, such as run_seconds, are the runner's)."""
        fields = cls.__dataclass_fields__
        known = {k: (int(v) if fields[k].type == "int" else float(v)) for k, v in limits.items() if k in fields}
        if "cpu_seconds" not in known:  # CPU time defaults to the test's wall-clock limit
            known["cpu_seconds"] = max(1, int(known.get("test_seconds", cls.test_seconds)))
        return cls(**known)


@functools.cache
def _can(command: tuple[str, ...]) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def namespace_flags() -> list[str] | None:
    """``unshare`` flags for new mount, network and PID namespaces, or None where the machine refuses."""
    if shutil.which("unshare") is None or not sys.platform.startswith("linux"):
        return None
    base = ["--mount", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
    if os.geteuid() != 0:
        base = ["--user", "--map-root-user", *base]
    return base if _can(("unshare", *base, "true")) else None


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


def _unprivileged_user(folders) -> tuple[int, int] | None:
    """nobody's uid and gid, when we are root and nobody can still read the interpreter and numpy."""
    if os.geteuid() != 0 or not all(_others_can_read(Path(f)) for f in folders):
        return None
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def _stdlib_paths() -> list[str]:
    paths = sysconfig.get_paths()
    stdlib = paths["stdlib"]
    candidates = [
        str(Path(stdlib).parent / f"python{sys.version_info.major}{sys.version_info.minor}.zip"),
        stdlib,
        paths["platstdlib"],
        str(Path(stdlib) / "lib-dynload"),
    ]
    return list(dict.fromkeys(p for p in candidates if Path(p).exists()))


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


@dataclass
class Sandbox:
    """A running worker (its zygote) and everything needed to stop it without a trace."""

    process: subprocess.Popen
    control: socket.socket
    owned: scratch_folders.Folder  # the scratch folder, locked while the sandbox lives (a killed grader's is swept)
    protections: list[str]
    uid: int | None
    gid: int | None
    _runs: int = field(default=0)
    loads: int = field(default=0)
    folder: Path | None = None  # the loaded submission's folder

    @property
    def scratch(self) -> Path:
        return self.owned.path

    def load(self, submission: Path) -> int:
        """Give the zygote the next submission (it kills every process of the last one first).

        Returns the load's number; the zygote answers ``loaded`` for ``load<number>``."""
        self.loads += 1
        self.folder = self.scratch / f"submission-{self.loads}"
        self.folder.mkdir(mode=0o711)
        display = self.folder / submission.name
        shutil.copyfile(submission, display)
        os.chmod(display, 0o644)
        self.send({"op": "load", "load": self.loads, "display_path": str(display)})
        return self.loads

    def unload(self) -> None:
        """Ask the zygote to kill every process of the loaded submission (it answers ``unloaded``)."""
        self.send({"op": "unload", "load": self.loads})

    def forget_folder(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def send(self, message: dict) -> None:
        self.control.send(json.dumps(message).encode())

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def new_workdir(self) -> Path:
        """An empty folder for one test's child (the only place it may write)."""
        self._runs += 1
        workdir = self.folder / f"run-{self._runs}"
        workdir.mkdir(mode=0o700)
        if self.uid is not None:
            os.chown(workdir, self.uid, self.gid)
        return workdir

    def close(self) -> None:
        """Stop the zygote and everything it started, then delete the scratch folder.

        Asked to quit, the zygote kills its children and exits, and unshare exits after it:
        once the wait returns no process of the sandbox is left. Killing the process group
        is for a zygote that does not answer (it would take a moment to die)."""
        with contextlib.suppress(OSError):
            self.send({"op": "quit"})
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
        with contextlib.suppress(OSError):
            self.control.close()
        self.owned.remove()


def start(lab, limits: Limits, *, module_name: str = "submission") -> Sandbox:
    """Start the worker's zygote in a fresh scratch folder; ``Sandbox.load`` gives it a submission."""
    owned = scratch_folders.Folder("wall")
    scratch = owned.path
    os.chmod(scratch, 0o711)
    site = scratch / "site"
    site.mkdir()
    packages = _package_dirs([n for n in lab.allowed_imports if n not in sys.stdlib_module_names])
    flags = namespace_flags()
    user = _unprivileged_user([sys.base_prefix, *packages.values()])
    protections = [
        "separate worker process per test, killed with its process group",
        "isolated interpreter: the kit is not on its import path",
        "scrubbed environment",
        "scratch folder: a copy of the submission, deleted afterwards; every process of the "
        "submission killed before the next one is loaded",
        f"limits: {limits.test_seconds:g} s per test, {limits.call_seconds:g} s per call, "
        f"{limits.cpu_seconds} s CPU, {limits.memory_mb} MiB memory, {limits.output_kb} KiB output",
        f"import allow-list: {', '.join(lab.allowed_imports)}",
        "audit hook: no processes, network or ctypes; files only in the scratch folder",
    ]
    if flags is None:
        for name, folder in packages.items():
            (site / name).symlink_to(folder)
    else:
        for name in packages:
            (site / name).mkdir()
        protections += ["network namespace: no network", "PID namespace", "mount namespace: the kit's folder hidden"]
        if _private_tmp(scratch):
            protections.append(f"private {scratch.parent}: other gradings' and the grader's files out of sight")
    if user is not None:
        protections.append("children run as the unprivileged user nobody")
    elif os.geteuid() == 0:
        protections.append("children run as root: the interpreter is not readable by an unprivileged user")
    read_roots = _stdlib_paths() + [str(site)] + [str(p) for p in packages.values()]
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    config = {
        "sys_path": _stdlib_paths() + [str(site)],
        # numpy loads some submodules lazily; the children would need the files then.
        "preload": [
            *lab.allowed_imports,
            *(f"numpy.{m}" for m in ("random", "linalg", "fft") if "numpy" in lab.allowed_imports),
        ],
        "control_fd": child.fileno(),
        "module": module_name,
        "public": list(lab.public),
        # The lab's trusted loops (grader.seam.beside), loaded by the zygote before any student code.
        "helpers": {Path(name).stem: (lab.folder / name).read_text(encoding="utf-8") for name in lab.helpers},
        "allowed_imports": list(lab.allowed_imports),
        "read_roots": read_roots,
        "memory_bytes": limits.memory_mb * 1024 * 1024,
        "limits": {
            "cpu_seconds": limits.cpu_seconds,
            "output_bytes": limits.output_kb * 1024,
            "processes": limits.processes,
        },
        "uid": user[0] if user else None,
        "gid": user[1] if user else None,
    }
    codec_source = (WALL_DIR / "codec.py").read_text(encoding="utf-8")
    worker_source = (WALL_DIR / "worker.py").read_text(encoding="utf-8")
    bootstrap = BOOTSTRAP.format(codec=codec_source, worker=worker_source)
    python = [getattr(sys, "_base_executable", sys.executable), "-I", "-S", "-c", bootstrap, json.dumps(config)]
    env = dict(SCRUBBED_ENV, HOME=str(scratch), TMPDIR=str(scratch))
    if flags is None:
        command = python
    else:
        env["LABKIT_BINDS"] = " ".join(f"{folder}={name}" for name, folder in packages.items())
        env["LABKIT_HIDE"] = " ".join(str(p) for p in _folders_to_hide())
        private_tmp = _private_tmp(scratch)
        if private_tmp:
            env["LABKIT_PRIVATE_TMP"] = private_tmp
        command = ["unshare", *flags, "--", "/bin/sh", "-c", NAMESPACE_SETUP, "sh", str(site), str(scratch), *python]
    try:
        process = subprocess.Popen(
            command,
            pass_fds=[child.fileno()],
            env=env,
            cwd=scratch,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=(scratch / "worker.log").open("wb"),
            start_new_session=True,
        )
    finally:
        child.close()
    return Sandbox(process, parent, owned, protections, *(user or (None, None)))


def _private_tmp(scratch: Path) -> str | None:
    """The folder to replace with an empty one around the scratch folder, when that can be done safely."""
    parent = scratch.parent
    if not Path("/mnt").is_dir() or parent == Path("/"):
        return None
    return str(parent)


def _folders_to_hide() -> list[Path]:
    """The kit's folder (reference, tests, grader, virtual environment), and CI's private folders."""
    hide = [KIT_ROOT]
    for variable in ("RUNNER_TEMP", "GITHUB_WORKSPACE"):
        value = os.environ.get(variable)
        if value and Path(value).is_dir() and not str(KIT_ROOT).startswith(value):
            hide.append(Path(value))
    return hide

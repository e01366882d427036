"""The worker's world, built from nothing by bubblewrap: what exists in there, and as whom it runs.

Inside the sandbox there is only what the interpreter, its standard library and numpy
need, all read-only: the system's library folders (``/usr/lib``, for the C library and
what the interpreter's extension modules link to), the interpreter's own files at their
usual paths (its ``site-packages`` covered by an empty folder), and the allowed packages
under ``/labkit/site``. Then a ``/proc`` of the sandbox's own PID namespace, a minimal
``/dev``, the copies of the submissions in ``/submission``, and ``/sandbox``, a small tmpfs
(a run folder for each child, and TMPDIR): the only place it may write, in memory, emptied
by the zygote before each submission and gone with the sandbox. There is no ``/tmp``.
The kit's folder, its virtual environment, the files of ``/home``, ``/root`` and ``/etc``, and
every other grading's files do not exist in there: ``/etc`` holds only the dynamic loader's
``ld.so.cache``, and ``/root`` or ``/home`` only the path to an interpreter installed there (pyenv's).

Who runs it: as root, bubblewrap needs no user namespace; it keeps only the capabilities
that ``setpriv`` (util-linux) needs to become a uid of the sandbox's own (``uids``) with
an empty capability bounding set, and no other process runs as that uid. As any other
user, bubblewrap maps that user to an unprivileged uid inside a user namespace and
forbids nested ones.
"""

from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

SUBMISSION_DIR = "/submission"  # the copy of the submission, read-only inside
SANDBOX_DIR = "/sandbox"  # the children's run folders and TMPDIR: a tmpfs, the only writable place
SITE_DIR = "/labkit/site"  # the allowed third-party packages, inside
SANDBOX_BYTES = 32 << 20  # /sandbox inside: a tmpfs (no submission can fill the machine's disk)
UID_INSIDE = 1000  # in a user namespace (not as root): the uid the code sees
NAMESPACES = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
SETPRIV = "/usr/bin/setpriv"


def executable() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


@functools.cache
def stdlib_paths() -> tuple[str, ...]:
    """The interpreter's standard library: what the worker's import path starts with.

    The base interpreter's, never a virtual environment's (whose ``platstdlib`` holds its site-packages)."""
    base, platbase = sys.base_prefix, sys.base_exec_prefix
    paths = sysconfig.get_paths(
        vars={"base": base, "platbase": platbase, "installed_base": base, "installed_platbase": platbase}
    )
    stdlib = paths["stdlib"]
    candidates = [
        str(Path(stdlib).parent / f"python{sys.version_info.major}{sys.version_info.minor}.zip"),
        stdlib,
        paths["platstdlib"],
        str(Path(stdlib) / "lib-dynload"),
    ]
    return tuple(dict.fromkeys(p for p in candidates if Path(p).exists()))


@functools.cache
def _interpreter_files() -> tuple[str, ...]:
    """What the interpreter needs of its own installation: the binary, libpython, the standard library."""
    files = [executable()]
    libdir, soname = sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and libdir and soname and Path(libdir, soname).exists():
        files.append(str(Path(libdir, soname)))
    for path in stdlib_paths():
        if not any(path.startswith(f + os.sep) for f in stdlib_paths() if f != path):
            files.append(path)
    return tuple(dict.fromkeys(files))


def _base_site_packages(bound: list[str]) -> list[str]:
    """The base interpreter's site-packages inside bound folders: hidden (the kit may be installed there)."""
    found = []
    for path in site.getsitepackages([sys.base_prefix]) + ["/usr/lib/python3/dist-packages"]:
        if Path(path).is_dir() and any(path == b or path.startswith(b + os.sep) for b in bound):
            found.append(path)
    return found


@functools.cache
def _system_libraries() -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The shared-library folders: read-only binds, and symlink arguments (merged-/usr systems link /lib to usr/lib)."""
    binds: list[tuple[str, str]] = []
    links: list[str] = []
    for folder in ("/usr/lib", "/usr/lib64", "/usr/lib32", "/lib", "/lib64", "/lib32"):
        path = Path(folder)
        if path.is_symlink():
            links += ["--symlink", os.readlink(path), folder]
        elif path.is_dir():
            binds.append((folder, folder))
    if Path("/etc/ld.so.cache").is_file():
        binds.append(("/etc/ld.so.cache", "/etc/ld.so.cache"))
    return tuple(binds), tuple(links)


def command(
    python_argv: list[str],
    *,
    submission_folder: Path,
    packages: dict[str, Path],
    seccomp_fd: int,
    uid: int | None,
) -> list[str]:
    """``bwrap ... -- python_argv``: ``uid`` is the sandbox's own uid when we are root, else None."""
    bwrap = shutil.which("bwrap") or "bwrap"
    args = [bwrap, *NAMESPACES, "--die-with-parent", "--new-session"]
    if uid is None:
        args += ["--unshare-user", "--disable-userns", "--uid", str(UID_INSIDE), "--gid", str(UID_INSIDE)]
        args += ["--cap-drop", "ALL"]
    else:  # setpriv needs these to become the sandbox's uid; it then empties the bounding set
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    system_binds, links = _system_libraries()
    binds = list(system_binds)
    interpreter = _interpreter_files()
    binds += [(path, path) for path in interpreter]
    binds += [(str(folder), f"{SITE_DIR}/{name}") for name, folder in packages.items()]
    if uid is not None:
        binds.append((SETPRIV, SETPRIV))
    # bubblewrap makes the folders above a bind private (0700): the sandbox's uid could not pass them.
    parents = {str(p) for _, dest in binds for p in Path(dest).parents if str(p) != "/"}
    for folder in sorted(parents, key=lambda p: (p.count("/"), p)):
        args += ["--perms", "0755", "--dir", folder]
    for source, dest in binds:
        args += ["--ro-bind", source, dest]
    args += links
    for path in _base_site_packages([*interpreter, "/usr/lib"]):
        args += ["--tmpfs", path, "--remount-ro", path]
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev"]
    args += ["--ro-bind", str(submission_folder), SUBMISSION_DIR]
    args += ["--size", str(SANDBOX_BYTES), "--perms", "1777", "--tmpfs", SANDBOX_DIR, "--chdir", SANDBOX_DIR]
    args += ["--remount-ro", "/", "--seccomp", str(seccomp_fd)]
    if uid is not None:
        args += ["--", *become(uid)]
    return [*args, "--", *python_argv]


def become(uid: int) -> list[str]:
    """setpriv's words for becoming ``uid`` (and its group) with no groups and no capabilities left."""
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"]


@functools.cache
def unavailable() -> str | None:
    """Why bubblewrap cannot make the sandbox here, or None when it can (tried once per process)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    if os.geteuid() == 0 and not Path(SETPRIV).exists():
        return f"{SETPRIV} (util-linux) is missing"
    user = [] if os.geteuid() == 0 else ["--unshare-user", "--disable-userns"]
    probe = [bwrap, *NAMESPACES, *user, "--ro-bind", "/", "/", "--proc", "/proc"]
    probe += ["--", executable(), "-I", "-S", "-c", "pass"]
    try:
        result = subprocess.run(probe, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not run ({exc})"
    if result.returncode != 0:
        reason = result.stderr.decode(errors="replace").strip().splitlines()
        return f"bubblewrap cannot make its namespaces here ({reason[-1] if reason else result.returncode})"
    return None

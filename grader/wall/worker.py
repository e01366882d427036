"""The worker: the only place where the code under test ever runs.

It is started by grader.wall.sandbox as ``python -I -S -c <bootstrap>`` inside the
sandbox, with this module's source and the codec's, and cannot import the kit.

The *zygote* (``zygote_main``) never runs student code, nor reads it: it imports numpy and
the lab's trusted loops once, then for each submission it is given (one after another: a
batch job's students share it) forks a *loader* (``_serve_one_submission``), which compiles
the file and forks *children*, each on a fresh channel that the trusted side passes over the
control socket. At the unload the loader kills every process of its submission, empties the
writable folder and exits, its memory gone with it: what the next student's children start
with holds nothing of the last file. Zygote and loaders are not dumpable, and the children
cannot signal or trace them. The child (``child_main``) limits itself, adds the
seccomp filter that forbids new processes, programs and signals, installs the guards that
explain refusals to a student, executes the submission in a new module and serves requests.
A child serves test after test while they end cleanly, as the submission's module
would in-process; after a crash, a timeout or an error left pending, the next test
gets a fresh child. The zygote reaps each child and every process it left behind, and
reports how it exited.
"""

import builtins
import contextlib
import gc
import json
import marshal
import os
import resource
import select
import signal
import socket
import sys
import time
import traceback
import types
import warnings

import numpy as np

try:  # inside the worker the bootstrap has installed the codec under this name
    import labkit_codec as codec
except ImportError:  # imported by the kit's own tests
    from grader.wall import codec

CHILD_SUBREAPER = 36  # prctl option: orphaned descendants are re-parented to the zygote
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
HELPERS = {}  # the lab's trusted loops, by module name (grader.testing.beside)


# ---------------------------------------------------------------------------------------
# The zygote
# ---------------------------------------------------------------------------------------


def zygote_main(config):
    _bound_the_log(config["log_bytes"])  # first: anything may write to it
    sys.path[:] = config["sys_path"]
    if config.get("sandbox_filter"):  # no bubblewrap to load it (the unprivileged-user level): first thing
        _load_seccomp(config["sandbox_filter"])
    for name in config["preload"]:  # what the submission may import, loaded once for every child
        __import__(name)
    for name, source in config.get("helpers", {}).items():  # trusted: loaded before any student code
        helper = types.ModuleType(f"labkit_helper_{name}")
        exec(compile(source, f"labkit_helper_{name}", "exec"), helper.__dict__)
        HELPERS[name] = helper
    _become_subreaper()
    # Not dumpable: no process of the sandbox can read or write this one's memory (/proc/PID/mem)
    # or trace it without a capability none of them has. Its loaders and their children inherit it.
    _prctl(PR_SET_DUMPABLE, 0)
    ctl = socket.socket(fileno=config["control_fd"])
    if config.get("memory_bytes"):
        _limit(resource.RLIMIT_AS, config["memory_bytes"])  # inherited by every child
    gc.freeze()  # what is loaded now is never garbage: children skip it in collections and share its pages
    # A child's exit wakes the loop at once: SIGCHLD writes a byte to this pipe.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    handed_r, handed_w = os.pipe()  # a load a loader was sent while it held one: for the next loader
    pending = None
    # Each submission gets a loader of its own, forked from this process, which never reads a student's
    # bytes: the loader compiles the file and forks its children, and exits when it is unloaded, its memory
    # gone with it. A security review's child read the last student's source in the memory it was forked
    # with, when one zygote compiled every student's file in turn (freed memory is not cleared).
    while True:
        loader = os.fork()
        if loader == 0:
            status = LOADER_FAILED
            try:
                status = _serve_one_submission(config, ctl, (wake_r, wake_w, handed_r, handed_w), pending)
            finally:
                os._exit(status)
        pending = None
        _, status = os.waitpid(loader, 0)
        _reap_descendants(keep=set())  # what its children left, re-parented here if the loader died first
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) not in (LOADER_DONE, LOADER_HANDS_ON):
            break  # quit, the trusted side gone, or the loader failed: the sandbox ends, and the trusted side sees it
        if os.WEXITSTATUS(status) == LOADER_HANDS_ON:
            pending = os.read(handed_r, 1 << 16)


LOADER_DONE = 0  # unloaded: the next submission gets a fresh loader
LOADER_HANDS_ON = 1  # sent a second load: the next loader takes it (handed over through a pipe)
LOADER_QUIT = 2
LOADER_FAILED = 70


def _serve_one_submission(config, ctl, pipes, pending):
    """A loader: one submission's life in the sandbox, from its load to its unload (the exit status says
    what the zygote does next). It compiles the file (never runs it) and forks a child per request.
    ``pipes``: the zygote's wake-up pipe and the pipe a load is handed on through, none a child's to keep."""
    wake_r, _, _, handed_w = pipes
    _become_subreaper()  # not inherited: orphans of its children come back to it
    code = None  # the loaded submission, compiled
    children = {}
    pinned = None  # the core this loader keeps to
    while True:
        if pending is not None:
            message, fds, pending = pending, [], None
        else:
            readable, _, _ = select.select([ctl, wake_r], [], [], 1.0)
            if wake_r in readable:
                os.read(wake_r, 4096)
            message, fds = b"", []
            if ctl in readable:
                try:
                    message, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 4)
                except OSError:
                    return LOADER_QUIT
                if not message:
                    return LOADER_QUIT  # the trusted side is gone
        if message:
            request = json.loads(message)
            if request["op"] == "load" and code is not None:  # a second one: a fresh loader takes it
                _stop_all(children)
                os.write(handed_w, message)
                return LOADER_HANDS_ON
            if request["op"] in ("load", "unload"):
                # One submission after another: nothing of the last one may reach the next. Its
                # processes die (they could not fork, signal or trace anyone) and what it wrote goes.
                _stop_all(children)
                _empty(config.get("writable"))
                loaded = {"op": f"{request['op']}ed", "test": f"load{request['load']}"}
                if request["op"] == "load":
                    config["display_path"] = request["display_path"]
                    # The trusted side's clock for the import starts now: compiling is part of it (a review's
                    # 1 MiB of nested code objects took minutes), and the sandbox is closed when it runs out.
                    _send_control(ctl, {"op": "compiling", "test": loaded["test"]})
                    code, problem = _compile(request["display_path"], quiet=config.get("python_guards", True))
                    if problem:
                        loaded["syntax_error"] = problem
                _send_control(ctl, loaded)
                if request["op"] == "unload":
                    return LOADER_DONE
            elif request["op"] == "fork" and code is not None:
                _make_workdir(request["workdir"])
                if type(request.get("cpu")) is int and request["cpu"] != pinned:
                    # The trusted side's core: a request and its reply then switch processes on one core
                    # instead of waking another (grader.wall.cpus). Its children inherit it.
                    with contextlib.suppress(OSError):
                        os.sched_setaffinity(0, {request["cpu"]})
                        pinned = request["cpu"]
                pid = os.fork()
                if pid == 0:
                    ctl.close()
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    for fd in pipes:
                        os.close(fd)
                    try:
                        child_main(config, code, fds[0], fds[1], request["workdir"])
                    finally:
                        os._exit(70)
                for fd in fds:
                    os.close(fd)
                children[pid] = request["test"]
                _send_control(ctl, {"op": "forked", "test": request["test"]})
            elif request["op"] == "kill":
                for pid, test in list(children.items()):
                    if test == request["test"]:
                        _kill_group(pid)
            elif request["op"] == "quit":
                _stop_all(children)
                return LOADER_QUIT
            if request["op"] != "fork" or code is None:
                for fd in fds:  # descriptors for a child that will not be forked
                    os.close(fd)
        for pid, test in list(children.items()):
            try:
                done, status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done, status = pid, 0
            if done:
                del children[pid]
                _kill_group(pid)
                _reap_descendants(keep=set(children))
                _send_control(ctl, {"op": "exited", "test": test, "status": _status(status)})


def _make_workdir(path):
    """A child's folder; a file of the submission's own where it goes (a child may rename its output: a review's
    took run-3's name, and the loader that met it ended the sandbox) is removed first."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.makedirs(path, mode=0o700, exist_ok=True)


def _bound_the_log(limit):
    """The kernel's limit on what this process writes to a file: its stderr is the sandbox's log, a file on
    the host (grader.wall.sandbox). Python ignores SIGXFSZ, so a write past the limit fails (EFBIG) and the
    zygote goes on; the hard limit stays, for each child to set its own, the output limit."""
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))


def _compile(path, quiet=True):
    """The submission compiled (compiling runs none of it), or the reason it cannot be.

    ``quiet``: without the warnings the compiler prints to the log, each quoting its line in full: a line of
    `x is 1` comparisons made gigabytes of them (the log is bounded by the kernel all the same)."""
    try:
        with open(path, "rb") as f, warnings.catch_warnings():
            if quiet:
                warnings.simplefilter("ignore")
            return compile(f.read(), path, "exec", dont_inherit=True), None
    except SyntaxError as exc:
        return None, {"line": exc.lineno, "message": exc.msg}
    except (RecursionError, MemoryError):  # nested deeper than the compiler goes: a verdict, not the zygote's end
        return None, {"line": None, "message": "", "too_deep": True}
    except (OSError, ValueError) as exc:
        return None, {"line": None, "message": str(exc)}


def _empty(folder):
    """Delete everything in ``folder`` (the sandbox's writable tmpfs), then make its TMPDIR again.

    Only once every process of the last submission is dead: nothing can write in it meanwhile.
    Folders the code made unreadable are opened up first (it owned them; so does the zygote)."""
    if not folder or not os.path.isdir(folder):
        return
    for root, dirs, files in os.walk(folder, topdown=False, onerror=lambda error: None):
        for name in files:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(root, name))
        for name in dirs:
            path = os.path.join(root, name)
            with contextlib.suppress(OSError):
                if os.path.islink(path):
                    os.unlink(path)
                else:
                    os.rmdir(path)
    leftover = os.listdir(folder)
    if leftover:  # a folder without rights: open it up and go again (bounded: the tmpfs is small)
        for root, dirs, _ in os.walk(folder):
            for name in dirs:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(root, name), 0o700)
        for name in leftover:
            path = os.path.join(folder, name)
            if os.path.isdir(path) and not os.path.islink(path):
                _empty(path)
                with contextlib.suppress(OSError):
                    os.rmdir(path)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)
    os.makedirs(os.path.join(folder, "tmp"), mode=0o700, exist_ok=True)


def _stop_all(children):
    for pid in children:
        _kill_group(pid)
    for pid in children:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    children.clear()
    _reap_descendants(keep=set())


def _send_control(ctl, message):
    ctl.send(json.dumps(message).encode())  # a SOCK_SEQPACKET socket: one message per send


def _status(status):
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status)}


def _prctl(option, value):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _become_subreaper():
    with contextlib.suppress(OSError, AttributeError):  # not Linux: children are still killed by process group
        _prctl(CHILD_SUBREAPER, 1)


def _load_seccomp(program_b64):
    """Add a seccomp filter (compiled by libseccomp on the trusted side) to this process and its future children.

    It cannot be removed: the kernel keeps every filter a process ever loaded. Failing to
    load it is fatal, never a reason to run without it."""
    import base64
    import ctypes

    program = base64.b64decode(program_b64)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.addressof(buffer))
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "the seccomp filter could not be loaded")


def _kill_group(pid):
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target()


def _reap_descendants(keep):
    """Kill and reap whatever a child left behind (re-parented to the zygote, a subreaper).

    ``keep``: the zygote's own children that are still serving (or waiting for) a test.
    """
    me = os.getpid()
    for _ in range(100):
        orphans = []
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        fields = f.read().rsplit(b")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == me and int(entry) not in keep:
                    orphans.append(int(entry))
        if not orphans:
            return
        for pid in orphans:
            _kill_group(pid)
        for pid in orphans:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _limit(which, soft, hard=None):
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(which, (soft, soft if hard is None else hard))


# ---------------------------------------------------------------------------------------
# The child: one test's worth of the submission
# ---------------------------------------------------------------------------------------


def child_main(config, code, rfd, wfd, workdir):
    os.setpgid(0, 0)
    os.chdir(workdir)
    output = os.open("output.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(output, 1)
    os.dup2(output, 2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    limits = config["limits"]
    # The hard limit leaves room for a few tests' worth of CPU: each new test moves the soft limit on.
    _limit(resource.RLIMIT_CPU, limits["cpu_seconds"], limits["cpu_seconds"] * CPU_LIMITS_PER_CHILD + 1)
    _limit(resource.RLIMIT_FSIZE, limits["output_bytes"])
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_NOFILE, 64)
    if limits.get("processes"):  # only where the sandbox has a uid of its own: the count is per uid
        _limit(resource.RLIMIT_NPROC, limits["processes"])
    if config.get("child_filter"):
        _load_seccomp(config["child_filter"])  # no new process or program from here on
    # Python's own streams, on the redirected descriptors (they live as long as the child).
    sys.stdout = open(1, "w", closefd=False, buffering=1)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
    serving = ProfilingServer if config.get("profile") is True else Server  # make bench's breakdown only
    server = serving(rfd, wfd, config, os.path.join(os.path.realpath(workdir), "output.log"))
    module = types.ModuleType(config["module"])
    module.__file__ = os.path.abspath(config["display_path"])
    sys.modules[config["module"]] = module
    builtins.exit = builtins.quit = _exit  # as the site module defines them (the worker runs without it)
    if config.get("python_guards", True):
        install_guards(config, workdir)
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # whatever the file does at import is reported, once
        server.hello({"import_error": describe(exc, config["display_path"])})
        os._exit(0)
    server.hello({"names": server.register_public(module, config["public"])})
    server.serve()
    os._exit(0)


CPU_LIMITS_PER_CHILD = 3  # a child serves tests until it has used this many tests' CPU limit


def _exit(code=None):
    raise SystemExit(code)


# ---------------------------------------------------------------------------------------
# Guards: what the submission may import and do
# ---------------------------------------------------------------------------------------

# A child may make no file, folder or link (the kernel refuses it: grader.wall.syscalls); the words for it.
NO_NEW_FILES = "a lab submission may not create files or folders: it is graded where it can make none"
CREATING_FLAGS = os.O_CREAT | (getattr(os, "O_TMPFILE", 0) & ~os.O_DIRECTORY)
NEW_NAME_EVENTS = ("os.mkdir", "os.symlink", "os.link")


def new_name_refusal(event, args):
    """The guard's words when an audit event asks for a new file, folder or link, else None (what the
    kernel refuses a child, grader.wall.syscalls: the worker's guard and the in-process loader say it)."""
    if event == "open":
        path, mode, flags = args
        if path is None or isinstance(path, int):
            return None
        if (mode is not None and any(c in str(mode) for c in "wax")) or (
            isinstance(flags, int) and flags & CREATING_FLAGS
        ):
            return f"labkit: {NO_NEW_FILES} ({os.fsdecode(path)})"
        return None
    return f"labkit: {NO_NEW_FILES} ({event})" if event in NEW_NAME_EVENTS else None


BLOCKED_EVENTS = (
    "os.setxattr",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "os.kill",
    "os.killpg",
    "subprocess.Popen",
    "pty.spawn",
    "socket.",
    "ctypes.",
    "os.remove",
    "os.rmdir",
    "os.rename",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.truncate",
    "os.utime",
    "os.chflags",
    "shutil.",
    "gc.get_referrers",
    "gc.get_referents",
    "gc.get_objects",
    "function.__new__",
    "code.__new__",
    "sys.settrace",
    "sys.setprofile",
    "sys.addaudithook",
    "winreg.",
    "webbrowser.",
    "urllib.",
    "http.",
    "ftplib.",
    "smtplib.",
)


def import_refusal(name: str, level: int, allowed) -> str | None:
    """Why the lab refuses the submission's ``import name`` (its allow-list), or None. The one rule for
    both modes: in-process grading applies it too (grader.harness.loader), so a file gets one verdict."""
    top = name.split(".")[0] if level == 0 else ""  # a relative import is never on the list
    if top in allowed:
        return None
    return f"labkit: this lab does not allow importing {name!r} (allowed: {', '.join(sorted(allowed))})"


def install_guards(config, workdir):
    """An import allow-list for the submission's own imports, and an audit hook for everyone's actions.

    These are feedback, not protection: they tell a student at once what the lab does not
    allow ("this lab does not allow importing 'os'"), in words the kernel's refusals lack.
    A submission can get around them (PEP 578: audit hooks are not a sandbox); the sandbox
    around this process (grader.wall.bubblewrap, grader.wall.syscalls) is what holds.
    """
    allowed = frozenset(config["allowed_imports"])
    student_file = os.path.abspath(config["display_path"])
    write_root = os.path.realpath(workdir)
    read_roots = tuple(os.path.realpath(p) for p in config["read_roots"]) + (write_root,)
    original_import = builtins.__import__

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        # Whoever calls: an import statement or __import__() in the student's file is checked.
        caller = sys._getframe(1)
        if caller.f_code.co_filename == student_file:
            refusal = import_refusal(name, level, allowed)
            if refusal:
                raise ImportError(refusal)
        return original_import(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded_import
    _refuse_special_files()

    def inside(path, roots):
        real = os.path.realpath(os.fsdecode(path))
        return real, any(real == root or real.startswith(root + os.sep) for root in roots)

    def hook(event, args):
        if event == "builtins.id":  # harmless, and by far the most frequent (an engine's graph walk)
            return
        if event.startswith(BLOCKED_EVENTS):
            raise PermissionError(f"labkit: {event} is not allowed in a lab submission")
        if event in ("exec", "compile", "marshal.loads", "pickle.find_class"):
            if sys._getframe(1).f_code.co_filename == student_file:
                raise PermissionError(f"labkit: {event} (running code it was given) is not allowed in a lab submission")
        elif event == "open":
            path, mode, flags = args
            if path is None or isinstance(path, int):
                return
            refusal = new_name_refusal(event, args)  # a new file, even in its own folder
            if refusal:
                raise PermissionError(refusal)
            writing = (mode is not None and "+" in str(mode)) or (
                isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC)
            )
            real, ok = inside(path, (write_root,) if writing else read_roots)
            if not ok:
                raise PermissionError(f"labkit: a lab submission may not {'write' if writing else 'read'} {real}")
            if os.path.isdir(real):
                raise PermissionError(f"labkit: a lab submission may not open the folder {real}")
        elif event in NEW_NAME_EVENTS:
            raise PermissionError(new_name_refusal(event, args))
        elif event == "resource.prlimit" and args and args[0] not in (0, os.getpid()):
            raise PermissionError("labkit: a lab submission may not change another process's limits")
        elif event in ("os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
            real, ok = inside(args[0], read_roots)
            if not ok:
                raise PermissionError(f"labkit: a lab submission may not use {event} on {real}")

    sys.addaudithook(hook)


def _refuse_special_files():
    """What the audit hook cannot see in this Python: creating fifos and device files."""

    def refuse(*args, **kwargs):
        raise PermissionError("labkit: fifos and device files are not allowed in a lab submission")

    for module_name in ("os", "posix"):
        module = sys.modules.get(module_name)
        for name in ("mkfifo", "mknod"):
            if module is not None and hasattr(module, name):
                setattr(module, name, refuse)


# ---------------------------------------------------------------------------------------
# Serving requests
# ---------------------------------------------------------------------------------------


class Poison:
    """The result of an operation that failed while its caller was not waiting: using it fails too."""

    def __init__(self, error):
        self.error = error


class PoisonedError(Exception):
    def __init__(self, error):
        super().__init__(error["message"])
        self.error = error


def describe(exc, display_path):
    """An exception as plain data: builtin bases, message and where in the student's file it was raised."""
    if isinstance(exc, PoisonedError):
        return exc.error
    try:
        message = str(exc)
    except BaseException:  # a __str__ of the student's that fails
        message = "<the exception's message could not be read>"
    student = os.path.abspath(display_path)
    # The student's frames, their source lines read for the last few only (a recursive sort's
    # traceback has a thousand frames; extract_tb would read every line).
    mine = [(f, n) for f, n in traceback.walk_tb(exc.__traceback__) if f.f_code.co_filename == student]
    frames = traceback.StackSummary.extract(iter(mine[-codec.ERROR_FUNCTIONS :]), lookup_lines=False)
    where = f"{os.path.basename(f.filename)}:{f.lineno} in {f.name}" if (f := (frames or [None])[-1]) else ""
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else (frames[-1].lineno if frames else None)
    # The qualified names a diagnosis reads ("Tensor.sum.<locals>.backward"), innermost first.
    functions = [
        getattr(f.f_code, "co_qualname", f.f_code.co_name) for f, _ in reversed(mine[-codec.ERROR_FUNCTIONS :])
    ]
    return {
        "type": type(exc).__name__,
        "bases": [c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins"],
        "message": message[:2000],
        "where": where,
        "functions": functions,
        "line": line,
        "trace": "".join(traceback.format_list(frames))[-3000:],
    }


def snapshot_copy(value):
    """``value`` as it is now: a list or an array the code keeps may change after it was read."""
    if type(value) is list:
        return list(value)
    if type(value) is np.ndarray:
        return value.copy()
    return value


def _read_attribute(target, name):
    owner = getattr(type(target), name, None)  # a method is found on the class, not the instance
    if callable(owner) and not isinstance(owner, (type, property)) and name not in getattr(target, "__dict__", {}):
        return {"method": True}
    return {"value": getattr(target, name)}


def _move_cpu_limit(usage, seconds) -> bool:
    """Give the next test its own CPU limit, on top of what this child has used so far."""
    used = int(usage.ru_utime + usage.ru_stime) + 1
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (used + seconds, max(hard, used + seconds + 1)))
    except (ValueError, OSError):  # not root: the hard limit cannot be raised
        if used + seconds >= hard:
            return False
        resource.setrlimit(resource.RLIMIT_CPU, (used + seconds, hard))
    return True


def _snapshot(x):
    """A copy of a list or array argument, deep enough to see what a call changes in place
    (arrays inside a list included: gradcheck(f, [x]) that perturbs x and forgets to restore it)."""
    if type(x) is list:
        return [v.copy() if type(v) is np.ndarray else v for v in x]
    return x.copy()


def _changed(x, before) -> bool:
    if type(x) is list:
        return len(x) != len(before) or any(_differs(a, b) for a, b in zip(x, before, strict=True))
    return _differs(x, before)


def _differs(now, before) -> bool:
    if type(before) is not np.ndarray:
        return now is not before
    if type(now) is not np.ndarray or now.shape != before.shape or now.dtype != before.dtype:
        return True
    return now.tobytes() != before.tobytes()


class _Ref:
    """In a recorded function's step: the function's argument, or an earlier step's result, number i."""

    __slots__ = ("i",)

    def __init__(self, i):
        self.i = i


def recorded_function(program, decoder):
    """A function of the test's, recorded as the operations it applies (grader.wall.recording): called
    by the code under test, it applies them to that code's objects here, with no round trip."""
    arity, out = program["n"], program["out"]

    def argument(x):
        return _Ref(x["R"]) if type(x) is dict and "R" in x else decoder.value(x)

    steps = [
        (target, name, [argument(a) for a in args], {k: argument(v) for k, v in kwargs.items()})
        for target, name, args, kwargs in program["steps"]
    ]

    def recorded(*args):
        if len(args) != arity:
            raise TypeError(f"the test's function takes {arity} arguments ({len(args)} given)")
        values = list(args)
        for target, name, step_args, step_kwargs in steps:
            operation = getattr(values[target], name)
            positional = [values[a.i] if type(a) is _Ref else a for a in step_args]
            keywords = {k: values[v.i] if type(v) is _Ref else v for k, v in step_kwargs.items()}
            values.append(operation(*positional, **keywords))
        return values[out]

    return recorded


class Server:
    """The child's side of the channel: requests in, replies out, handles for objects that stay here."""

    def __init__(self, rfd, wfd, config, output_path):
        self.rfd, self.wfd = rfd, wfd
        self.output_path = output_path
        self.reader = codec.FrameReader(rfd, marshal.loads)  # requests come marshalled from the trusted side
        self.display_path = config["display_path"]
        self.table = {}
        self.public_count = 0
        self.names = {}
        self.limits = config["limits"]
        self.memory_bytes = config.get("memory_bytes") or 0
        self.outgoing = []  # reply frames, written together when the requests at hand are done
        self.next_local_id = -1
        self.pending = None  # the first error of an operation nobody waited for
        self.mutated = None  # the last call's changes to its list and array arguments

    # handles -------------------------------------------------------------------------
    def handle(self, obj):
        if isinstance(obj, Poison):
            raise PoisonedError(obj.error)
        hid = self.next_local_id
        self.next_local_id -= 1
        self.table[hid] = obj
        return {"H": hid, "t": type(obj).__name__}

    def lookup(self, hid, type_name=None):
        if hid not in self.table:
            raise ValueError(f"labkit: unknown object #{hid}")
        obj = self.table[hid]
        if isinstance(obj, Poison):
            raise PoisonedError(obj.error)
        return obj

    def callback_stub(self, cid):
        def call_trusted(*args, **kwargs):
            encoder = codec.Encoder(self.handle)
            self.send(codec.encode_message({"op": "callback", "cb": cid}, encoder, args=list(args), kwargs=kwargs))
            self.flush()
            return self.wait_for_reply()

        return call_trusted

    def decoder(self, buffers):
        return codec.Decoder(buffers, self.lookup, self.callback_stub, keep_read_only=True, program=recorded_function)

    # the protocol ----------------------------------------------------------------------
    def register_public(self, module, names):
        described = {}
        for index, name in enumerate(names, start=1):
            if not hasattr(module, name):
                described[name] = {"kind": "missing"}
                continue
            obj = getattr(module, name)
            self.table[index] = obj
            if isinstance(obj, type) and issubclass(obj, BaseException):
                bases = [c.__name__ for c in obj.__mro__ if c.__module__ == "builtins"]
                described[name] = {"kind": "exception", "bases": bases}
            else:
                described[name] = {"kind": "class" if isinstance(obj, type) else "object", "id": index}
        self.public_count, self.names = len(names), described
        return described

    def hello(self, body):
        self.send(codec.pack(dict(body, op="hello"), []))
        self.flush()

    def send(self, frame):
        self.outgoing.append(frame)
        if len(self.outgoing) > 64 or len(frame) > (1 << 16):
            self.flush()

    def flush(self):
        if self.outgoing:
            frames, self.outgoing = self.outgoing, []
            codec.write_frame(self.wfd, b"".join(frames))

    def next_test(self):
        """Forget the finished test's objects; say whether this child is fit to serve the next one.

        It is not when a thread of the submission's is still running, or when another test's
        CPU limit would not fit under the hard limit set at the start, or when its memory
        grew past half the limit.
        """
        for hid in [h for h in self.table if not 0 < h <= self.public_count]:
            del self.table[hid]
        gc.enable()  # a test's loop may have left it off (labs/ch06/loops.py): the next starts as usual
        self.pending = self.mutated = None
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
            # The output limit is per test: empty the file stdout and stderr share (opening it
            # with O_TRUNC is what the guards allow; ftruncate is refused to everyone).
            os.close(os.open(self.output_path, os.O_WRONLY | os.O_TRUNC))
        usage = resource.getrusage(resource.RUSAGE_SELF)
        fit = len(sys._current_frames()) == 1 and _move_cpu_limit(usage, self.limits["cpu_seconds"])
        if self.memory_bytes and usage.ru_maxrss * 1024 > self.memory_bytes // 2:
            fit = False
        return {"names": self.names, "fit": fit}

    def reply(self, result, hid):
        def keep(obj):
            if obj is not result or hid is None:  # objects inside a result get ids of their own
                return self.handle(obj)
            self.table[hid] = obj
            return {"H": hid, "t": type(obj).__name__}

        encoder = codec.Encoder(keep)
        mutated, self.mutated = self.mutated, None
        if mutated:
            frame = codec.encode_message({"op": "reply"}, encoder, ok=result, mutated=mutated)
        else:
            frame = codec.encode_message({"op": "reply"}, encoder, ok=result)
        self.send(frame)

    def reply_error(self, error):
        self.send(codec.pack({"op": "reply", "error": error}, []))

    def messages(self):
        """The requests of the next frame, one by one, with the decoder for its buffers.

        The replies to the previous frame's requests go out first, in one write."""
        self.flush()
        frame, buffers = self.next_frame()
        decoder = self.decoder(buffers)
        for message in frame.get("batch", (frame,)):
            yield message, decoder

    def next_frame(self):
        return self.reader.next()

    def wait_for_reply(self):
        """Serve nested requests until the trusted side answers a callback."""
        while True:
            for message, decoder in self.messages():
                if message.get("op") == "reply":
                    if "error" in message:
                        error = message["error"]
                        kind = getattr(builtins, error.get("type", ""), None)
                        if not (isinstance(kind, type) and issubclass(kind, Exception)):
                            kind = RuntimeError
                        raise kind(error.get("message", "the trusted side's callback failed"))
                    return decoder.value(message.get("ok"))
                self.serve_one(message, decoder)

    def serve(self):
        while True:
            try:
                for message, decoder in self.messages():
                    op = message.get("op")
                    if op == "end":
                        return
                    if op == "next":
                        fit = self.next_test()
                        # Written before the test's first requests run: what happens in them is the test's.
                        self.hello(fit)
                        if not fit["fit"]:
                            return  # the trusted side sends what it sent next to a fresh child instead
                        continue
                    self.serve_one(message, decoder)
            except EOFError:
                return

    def serve_one(self, message, decoder):
        released = message.get("rel")
        if released:
            for hid in released:
                self.table.pop(hid, None)
        sync, hid = message.get("sync", True), message.get("id")
        if sync and self.pending is not None:
            error, self.pending = self.pending, None
            self.reply_error(error)
            return
        try:
            result = self.dispatch(message, decoder)
        except BaseException as exc:  # the student's exception, or a poisoned input
            error = describe(exc, self.display_path)
            if error is self.pending:  # the pending error surfaced here, through an object it poisoned
                self.pending = None
            if sync:
                self.reply_error(error)
            else:
                self.pending = self.pending or error
                if hid is not None:
                    self.table[hid] = Poison(error)
            return
        if sync:
            self.reply(result, hid)
        elif hid is not None:
            self.table[hid] = result

    def dispatch(self, message, decoder):
        op = message["op"]
        target = self.lookup(message["target"]) if "target" in message else None
        if op == "method" or op == "call" or op == "helper":
            if op == "helper":
                module, _, name = message["name"].partition(".")
                function = getattr(HELPERS[module], name)
            else:
                function = getattr(target, message["name"]) if op == "method" else target
            value = decoder.value
            # Numbers are the common arguments: only the rest goes through the decoder.
            args = [a if type(a) is float else value(a) for a in message["args"]] if "args" in message else ()
            kwargs = {k: value(v) for k, v in message["kwargs"].items()} if "kwargs" in message else {}
            mutable = [(i, a, _snapshot(a)) for i, a in enumerate(args) if codec.may_change(a)]
            result = function(*args, **kwargs)
            # The caller's lists and arrays were copies: send back what the call changed in them.
            self.mutated = {str(i): a for i, a, before in mutable if _changed(a, before)}
            return result
        if op == "sync":
            return None
        if op == "getattr":
            answer = _read_attribute(target, message["name"])
            if message.get("kind") == "snapshot":  # kept to be read later: as it is now, not as it will be
                answer = {k: snapshot_copy(v) for k, v in answer.items()}
            return answer
        if op == "getattrs":  # several reads in one reply; each one's error stays its own
            answers = []
            for hid, name in message["pairs"]:
                try:  # no name: the answer of a getattr sent without waiting, kept as its result
                    answers.append(self.lookup(hid) if name is None else _read_attribute(self.lookup(hid), name))
                except BaseException as exc:
                    answers.append({"error": describe(exc, self.display_path)})
            return answers
        if op == "setattr":
            setattr(target, message["name"], decoder.value(message["value"]))
            return None
        if op == "convert":
            converters = {"float": float, "int": int, "bool": bool, "len": len, "repr": repr, "str": str, "list": list}
            return converters[message["kind"]](target)
        if op == "getitem":
            return target[decoder.value(message["key"])]
        if op == "isinstance":
            return isinstance(decoder.value(message["value"]), target)
        raise ValueError(f"labkit: unknown operation {op!r}")


class ProfilingServer(Server):
    """A Server that also says where its CPU time went, in each hello (LABKIT_WALL_PROFILE: make
    bench's breakdown). Each moment is charged to one kind of work, the innermost: a callback's wait
    inside a call is reading, not running.

    - starting: the child's CPU before it served (the fork's copied pages, the submission's import);
    - running: the requests' own work (the submission's code, the lab's loops beside it);
    - reading and writing: the reads and writes of frames, most of it the switches to and from the
      trusted side that each blocking read and each write that wakes it costs;
    - handling: the rest (decoding, dispatching, encoding replies, the end of a test).
    """

    def __init__(self, *args):
        super().__init__(*args)
        self.mark = time.process_time()
        self.costs = {"starting": self.mark, "running": 0.0, "reading": 0.0, "writing": 0.0, "handling": 0.0}
        self.doing = "handling"

    def _charge_so_far(self) -> float:
        """Charge the time since the last mark to the work being done; the time now."""
        now = time.process_time()
        self.costs[self.doing] += now - self.mark
        self.mark = now
        return now

    def _charged(self, kind, work, *args):
        self._charge_so_far()
        outer, self.doing = self.doing, kind
        try:
            return work(*args)
        finally:
            self._charge_so_far()
            self.doing = outer

    def dispatch(self, message, decoder):
        return self._charged("running", super().dispatch, message, decoder)

    def next_frame(self):
        return self._charged("reading", super().next_frame)

    def flush(self):
        self._charged("writing", super().flush)

    def next_test(self):
        described = super().next_test()
        described["costs"] = dict(self.costs, cpu=self._charge_so_far())
        return described

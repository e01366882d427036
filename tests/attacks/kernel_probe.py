# A hostile submission for lab ch06 that tries, one by one, everything the sandbox must refuse,
# and reports how each attempt ended. tests/test_sandbox_kernel.py grades it with the worker's
# Python guards turned off, so every refusal it reports is the kernel's.
#
# The test fills in the placeholders: the kit's folder, a file of the reference, another
# sandbox's folder on the host, and a secret set in the trusted process's environment.
import ctypes
import errno
import fcntl
import json
import os
import resource
import socket
import struct
import subprocess

KIT = "@KIT@"
REFERENCE_FILE = "@REFERENCE@"
OTHER_STUDENT = "@OTHER@"
SECRET = "@SECRET@"
NUMPY_INIT = "/labkit/site/numpy/__init__.py"

libc = ctypes.CDLL(None, use_errno=True)


def outcome(attempt):
    """'succeeded', or the name of the errno the kernel answered with."""
    try:
        attempt()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    return "succeeded"


def c_call(function, *args):
    """A libc call whose failure becomes an OSError with the kernel's errno."""

    def attempt():
        if function(*args) == -1:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))

    return attempt


def write(path, mode="a"):
    """Write to ``path``: "a" appends to a file that exists (no O_CREAT: the mount's answer, not the
    refusal of every new name), "w" creates it, "r+b" writes one that exists from its start."""

    def attempt():
        if mode == "a":
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            os.write(fd, b"\nraise SystemExit('planted by a submission')\n")
            os.close(fd)
            return
        with open(path, mode) as f:
            f.write("\nraise SystemExit('planted by a submission')\n")

    return attempt


def read(path):
    def attempt():
        with open(path, "rb") as f:
            f.read()

    return attempt


def environments_with_the_secret():
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if SECRET.encode() in f.read():
                        found.append(pid)
            except OSError:
                pass
    return found


def join_network_namespace():
    c_call(libc.setns, os.open("/proc/1/ns/net", os.O_RDONLY), 0)()


def create_many(folder, count=10_000):
    """Empty files, each an inode of the tmpfs (the kernel's memory, not the tmpfs's bytes)."""

    def attempt():
        for i in range(count):
            os.close(os.open(os.path.join(folder, f"labkit-inode-{i}"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))

    return attempt


def unnamed_file():
    os.close(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600))


def memfd():
    os.close(os.memfd_create("labkit-probe"))


def mknod_fifo():
    os.mkfifo("/tmp/labkit-fifo")


def syscall(name, number, *args):
    return c_call(libc.syscall, number, *args)


# Called by number: Python has no function for them (x86_64's numbers; other machines skip them).
SYSCALLS = {
    "bpf": 321,
    "perf_event_open": 298,
    "io_uring_setup": 425,
    "keyctl": 250,
    "ptrace": 101,
    "setxattrat": 463,
    "ioprio_set": 251,  # (0, 0, 0): an invalid 'which', which only the filter answers with EPERM
}
if os.uname().machine != "x86_64":
    SYSCALLS = {}


def probe():
    zygote = os.getppid()
    results = {
        # the file system: read-only, built from nothing
        "write numpy's __init__.py": outcome(write(NUMPY_INIT)),
        "chmod numpy's __init__.py": outcome(lambda: os.chmod(NUMPY_INIT, 0o777)),
        "create a file beside numpy": outcome(write("/labkit/site/numpy/planted.py", "w")),
        "write the kit's folder": outcome(write(os.path.join(KIT, "planted.py"), "w")),
        "append to the kit's README": outcome(write(os.path.join(KIT, "README.md"))),
        "read the reference": outcome(read(REFERENCE_FILE)),
        "write another student's folder": outcome(write(os.path.join(OTHER_STUDENT, "planted.py"), "w")),
        "append to another student's file": outcome(write(os.path.join(OTHER_STUDENT, "submission", "starter.py"))),
        "write the interpreter's standard library": outcome(write(os.__file__)),
        "create a file in /": outcome(write("/planted.py", "w")),
        "read /etc/passwd": outcome(read("/etc/passwd")),
        "list /home": outcome(lambda: os.listdir("/home")),
        "list /root": outcome(lambda: os.listdir("/root/.ssh")),
        "make a fifo": outcome(mknod_fifo),
        # names: each one an inode of the writable tmpfs, which caps bytes, not inodes
        "create files in its run folder": outcome(create_many(".")),
        "create files in TMPDIR": outcome(create_many(os.environ.get("TMPDIR", "/sandbox/tmp"))),
        "open its output for writing by name": outcome(write("output.log", "w")),
        "make a folder in /sandbox": outcome(lambda: os.mkdir("/sandbox/labkit-probe")),
        "make a symbolic link": outcome(lambda: os.symlink("output.log", "labkit-link")),
        "make a hard link": outcome(lambda: os.link("output.log", "labkit-link")),
        "make an unnamed file": outcome(unnamed_file),
        "make a memory file": outcome(memfd),
        "set an extended attribute on its output": outcome(lambda: os.setxattr("output.log", "user.labkit", b"x" * 65536)),
        # privilege and namespaces
        "become root": outcome(lambda: os.setuid(0)),
        "mount a tmpfs": outcome(c_call(libc.mount, b"none", b"/tmp", b"tmpfs", 0, None)),
        "unmount /proc": outcome(c_call(libc.umount2, b"/proc", 2)),
        "unshare a user namespace": outcome(c_call(libc.unshare, 0x10000000)),
        "unshare a mount namespace": outcome(c_call(libc.unshare, 0x00020000)),
        "join the first process's network namespace": outcome(join_network_namespace),
        # other processes
        "ptrace the zygote": outcome(c_call(libc.ptrace, 16, zygote, None, None)),  # PTRACE_ATTACH
        "write the zygote's memory": outcome(write(f"/proc/{zygote}/mem", "r+b")),
        "start a process": outcome(lambda: subprocess.run(["/usr/bin/setpriv", "--help"], check=False)),
        "fork": outcome(lambda: os._exit(0) if os.fork() == 0 else None),
        "exec a program": outcome(lambda: os.execv("/usr/bin/setpriv", ["setpriv"])),
        # the cores: a batch's job keeps to its own, and its student may not take the next job's
        "run on every core": outcome(lambda: os.sched_setaffinity(0, range(os.cpu_count() or 1))),
        # the zygote, which shares the child's uid and forks every later student's children: each attempt
        # sets what it finds (a core size of 0, the default scheduling), so one that got through harms nothing
        "set the zygote's limits": outcome(lambda: resource.prlimit(zygote, resource.RLIMIT_CORE, (0, 0))),
        "set the zygote's niceness": outcome(lambda: os.setpriority(os.PRIO_PROCESS, zygote, 0)),
        "set the zygote's scheduling": outcome(
            lambda: os.sched_setscheduler(zygote, os.SCHED_OTHER, os.sched_param(0))
        ),
        "make the zygote the owner of a descriptor's signals": outcome(lambda: fcntl.fcntl(1, fcntl.F_SETOWN, zygote)),
        "join the first process's group": outcome(lambda: os.setpgid(0, 1)),
        "start a session of its own": outcome(os.setsid),
        "the same with ioctl": outcome(lambda: fcntl.ioctl(1, 0x8901, struct.pack("i", zygote))),  # FIOSETOWN
        # memory the address-space limit does not count
        "create a System V shared memory segment": outcome(c_call(libc.shmget, 0, 1 << 20, 0o1000 | 0o600)),
        "create a System V message queue": outcome(c_call(libc.msgget, 0, 0o1000 | 0o600)),
        # the network
        "open an internet socket": outcome(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        "open a unix socket": outcome(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
        # kernel facilities a grading never needs
        **{f"{name}()": outcome(syscall(name, number, 0, 0, 0, 0)) for name, number in SYSCALLS.items()},
    }
    if SYSCALLS:  # x86_64: the kernel reads 32 bits of a command, a filter that compared 64 was passed by a high bit
        high = 1 << 32
        results["the owner of a descriptor's signals, a high bit in fcntl's command"] = outcome(
            c_call(libc.syscall, 72, 1, ctypes.c_long(high | fcntl.F_SETOWN), zygote)
        )
        results["the same, a high bit in ioctl's request"] = outcome(
            c_call(libc.syscall, 16, 1, ctypes.c_long(high | 0x8901), ctypes.byref(ctypes.c_int(zygote)))
        )
    results["processes whose environment holds the trusted side's secret"] = environments_with_the_secret()
    results["uid"] = os.getuid()
    with open("/proc/self/status") as status:
        results["capabilities"] = [line.split()[1] for line in status if line.startswith(("CapEff", "CapPrm"))]
    return results


def Value(*args):  # the name the lab's tests look for: calling it runs the probe
    return json.dumps(probe())

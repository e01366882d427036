"""The system calls the kernel refuses inside the sandbox: two seccomp filters, compiled by libseccomp.

libseccomp (through the ``pyseccomp`` binding) compiles each rule set into a BPF program
for this machine's architecture; we never write BPF by hand. A call from another
architecture's table (a 32-bit ``int 0x80`` from a 64-bit process) kills the process:
libseccomp's default for a foreign architecture.

- ``sandbox_program``: every process of the sandbox, the zygote included, from the
  moment bubblewrap hands over (``bwrap --seccomp``). Nothing a grading needs: tracing
  other processes, mounting, new namespaces, kernel keyrings, BPF, performance counters,
  io_uring (whose operations seccomp cannot see), creating sockets (the only ones are
  those the trusted side hands in), device files and fifos, extended attributes (kernel
  memory outside every limit), and the machine's own settings (modules, reboot, clocks,
  swap).
- ``child_program``: added by each child of the zygote (the processes that run student
  code) before the submission is executed. A child may start threads, nothing more: no
  new process, no other program, no signal to any process (nor a descriptor that would send one), no move
  to another core, no change to another process's limits or scheduling. Nor may it make a file, a
  folder or a link: every name it made would hold an inode of the ``/sandbox`` tmpfs,
  which counts bytes but not inodes (bubblewrap can give it ``--size``, not
  ``nr_inodes``), so empty files would cost the machine's memory outside every limit
  (about 1 KB of kernel memory each). It writes only what it was given open: its output.
  The zygote itself still forks the children, kills them and makes their run folders,
  which is why this cannot go in the first filter.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile

# clone(2) flags that make a new namespace: refused even where the unshare call itself is refused.
NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
CLONE_THREAD = 0x00010000

REFUSED_IN_SANDBOX = (
    # other processes' memory and execution
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    # the file system's shape, and the way out of the namespaces
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "open_by_handle_at",
    "name_to_handle_at",
    # kernel facilities a grading never needs, and frequent sources of kernel bugs
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "fanotify_init",
    "lookup_dcookie",
    "quotactl",
    "syslog",
    "acct",
    # the network: only the descriptors the trusted side hands in
    "socket",
    "socketpair",
    "bind",
    "listen",
    "accept",
    "accept4",
    "connect",
    # device files and fifos
    "mknod",
    "mknodat",
    # extended attributes: a tmpfs keeps their values in kernel memory that no limit counts (the
    # --size of /sandbox counts file data only), a gigabyte on one file a child already has open
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "setxattrat",  # Linux 6.13: a libseccomp that does not know it gets its number (SYSCALL_NUMBERS)
    # memory the address-space limit does not count: System V shared memory (a detached segment
    # lives on), its message queues and semaphores, POSIX message queues
    "shmget",
    "shmat",
    "shmdt",
    "shmctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # the machine's own settings
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "iopl",
    "ioperm",
)

# A child may not start a process or a program, nor signal any process (the zygote, which starts
# the next student's children, included): it can only end itself, by exiting.
REFUSED_IN_CHILD = (
    "fork",
    "vfork",
    "execve",
    "execveat",
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    # Nor join another process group or session (a review's joined the loader's: the child sets its own group
    # before its filter is loaded, and the loader kills it by that group).
    "setpgid",
    "setsid",
    # Nor leave the core it was given: a batch gives each job's worker its own (grader.wall.cpus), and a
    # child that widened its threads' set of cores took the next job's core and slowed its student's tests.
    "sched_setaffinity",
    # Nor change how another process is scheduled: the zygote shares the child's uid, which is all these
    # ask, and passes what it has to every later student's children (a security review set the zygote's
    # scheduling to SCHED_IDLE and its niceness to 19). A grading never needs them for itself either.
    "setpriority",
    "sched_setscheduler",
    "sched_setparam",
    "sched_setattr",
    "ioprio_set",
    "migrate_pages",
    "move_pages",
)
# fcntl(2) and ioctl(2) commands that name a process to signal when a descriptor is ready (SIGIO or any
# signal chosen with F_SETSIG): a signal by another road, which the same uid is enough to send.
FCNTL_SIGNAL_OWNER = {"F_SETOWN": 8, "F_SETSIG": 10, "F_SETOWN_EX": 15}
IOCTL_SIGNAL_OWNER = {"FIOSETOWN": 0x8901, "SIOCSPGRP": 0x8902}
LOW_32_BITS = 0xFFFFFFFF


# A child may not give a new name to anything (each one an inode of the tmpfs, see above).
REFUSED_NAMES_IN_CHILD = (
    "creat",
    "mkdir",
    "mkdirat",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "memfd_create",  # an inode of the kernel's own tmpfs, kept alive by a mapping after its descriptor is closed
    "memfd_secret",  # the same, of its own kind
)
# open(2) flags that make an inode: O_CREAT a named file, O_TMPFILE an unnamed one (O_TMPFILE is
# this bit with O_DIRECTORY, which alone opens a folder).
OPEN_FLAGS_THAT_CREATE = (os.O_CREAT, getattr(os, "O_TMPFILE", 0) & ~os.O_DIRECTORY)
RENAME_WHITEOUT = 4  # renameat2(2): leaves a "whiteout" device inode behind the file it moves


def _compile(rules) -> bytes:
    import pyseccomp as seccomp

    program = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for action, name, args in rules(seccomp):
        try:
            program.add_rule(action, name, *args)
        except (OSError, ValueError) as exc:  # not a call of this architecture: nothing to refuse
            # EEXIST: the same rule twice (a call refused by name and, where libseccomp knows it, by number)
            if getattr(exc, "errno", None) not in (errno.EDOM, errno.EFAULT, errno.EINVAL, errno.EEXIST, None):
                raise
    with tempfile.TemporaryFile() as out:
        program.export_bpf(out)
        out.seek(0)
        return out.read()


# Calls newer than some libseccomp releases, by number: the same on x86_64 and aarch64 (the table every
# architecture shares from Linux 5.1 on). Elsewhere a libseccomp too old to know them leaves them allowed.
SYSCALL_NUMBERS = {"setxattrat": 463}
SHARED_TABLE_MACHINES = ("x86_64", "aarch64")


def _sandbox_rules(seccomp):
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in REFUSED_IN_SANDBOX:
        yield refuse, name, ()
        if name in SYSCALL_NUMBERS and os.uname().machine in SHARED_TABLE_MACHINES:
            yield refuse, SYSCALL_NUMBERS[name], ()
    for flag in NAMESPACE_FLAGS.values():  # fork() and threads stay allowed; new namespaces do not
        yield refuse, "clone", (seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag),)
    # clone3 passes its flags in memory a filter cannot read: "not implemented" makes the C
    # library fall back to clone, whose flags the rules above check.
    yield seccomp.ERRNO(errno.ENOSYS), "clone3", ()


def _child_rules(seccomp):
    refuse = seccomp.ERRNO(errno.EPERM)
    for name in REFUSED_IN_CHILD:
        yield refuse, name, ()
    # Its own limits only (pid 0: the C library's setrlimit and getrlimit). Another pid with its uid is the
    # zygote: a security review lowered its open files to 6, and every later student of the job got 0.
    yield refuse, "prlimit64", (seccomp.Arg(0, seccomp.NE, 0),)
    # The kernel reads 32 bits of a command (unsigned int): compared whole, a high bit set passed the filter.
    for command in FCNTL_SIGNAL_OWNER.values():
        yield refuse, "fcntl", (seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32_BITS, command),)
    for request in IOCTL_SIGNAL_OWNER.values():
        yield refuse, "ioctl", (seccomp.Arg(1, seccomp.MASKED_EQ, LOW_32_BITS, request),)
    # clone without CLONE_THREAD makes a process; with it, a thread (numpy's and the code's own).
    yield refuse, "clone", (seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0),)
    yield seccomp.ERRNO(errno.ENOSYS), "clone3", ()
    for name in REFUSED_NAMES_IN_CHILD:
        yield refuse, name, ()
    for flag in filter(None, OPEN_FLAGS_THAT_CREATE):  # opening what exists stays allowed
        yield refuse, "open", (seccomp.Arg(1, seccomp.MASKED_EQ, flag, flag),)
        yield refuse, "openat", (seccomp.Arg(2, seccomp.MASKED_EQ, flag, flag),)
    # openat2 passes its flags in memory, as clone3 does: the C library falls back to openat.
    yield seccomp.ERRNO(errno.ENOSYS), "openat2", ()
    yield refuse, "renameat2", (seccomp.Arg(4, seccomp.MASKED_EQ, RENAME_WHITEOUT, RENAME_WHITEOUT),)


@functools.cache
def sandbox_program() -> bytes:
    return _compile(_sandbox_rules)


@functools.cache
def child_program() -> bytes:
    return _compile(_child_rules)


def as_memfd(program: bytes) -> int:
    """A descriptor holding ``program`` from its start, to hand to ``bwrap --seccomp``."""
    fd = os.memfd_create("labkit-seccomp", 0)  # not close-on-exec: bubblewrap inherits it
    os.write(fd, program)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd

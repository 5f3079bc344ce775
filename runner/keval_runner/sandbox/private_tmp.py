"""Private temp folders for a sandboxed job (root only, in mount and IPC namespaces of its own).

Every folder any uid may write lets a job leave files on the machine for later jobs (answers
written by one submission and read by the next, outputs cached across the correctness and
timing jobs). The child gets empty mounts instead: tmpfs over /tmp, /dev/shm, /var/tmp and
/run/lock, a fresh mqueue over /dev/mqueue, and an IPC namespace of its own (SysV shared
memory, semaphores and message queues, POSIX message queues). The folders the job needs that
lie below them (its work folder, saved outputs, the task, the runner itself when the checkout is
under /tmp) are bound back at the same paths. Everything else is made read-only
(read_only_mounts.py) but the folders the job writes. Abstract Unix sockets need nothing here:
they belong to the network namespace, and each job has its own (sandbox.isolate_network).
"""

import ctypes
import os

from . import read_only_mounts
from .linux_calls import errno_reason, libc, unshare

CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
# Folders every uid may write (`find / -perm -0002 -type d`, /proc and /sys left out, on
# Debian and Ubuntu hosts); /var/lock is a link to /run/lock there.
TEMP_ROOTS = ("/tmp", "/dev/shm", "/var/tmp", "/run/lock", "/var/lock")
MQUEUE_ROOT = "/dev/mqueue"


def _mount(source, target, fstype, flags, data=None) -> int:
    c = libc()
    encode = lambda s: None if s is None else os.fsencode(s)
    if c.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)) == 0:
        return 0
    return ctypes.get_errno() or -1


def _outermost(paths) -> list:
    """The paths not below another one of them (a bind of the outer covers the inner)."""
    ordered = sorted(set(paths))
    kept = []
    for path in ordered:
        if not any(path == k or path.startswith(k + os.sep) for k in kept):
            kept.append(path)
    return kept


def temp_roots() -> list:
    """The temp folders present here, as real paths (a link such as /var/lock counts once)."""
    roots = []
    for root in TEMP_ROOTS:
        real = os.path.realpath(root)
        if os.path.isdir(real) and real not in roots:
            roots.append(real)
    return roots


def make_private(needed_paths, warnings: list, hidden=(), writable=()) -> bool:
    """Replaces the temp folders with empty mounts, keeping `needed_paths` reachable; then
    covers each of `hidden` (folders the job must not read: the suite, the other jobs') the same
    way, again keeping the needed paths below it; then makes every other mount read-only but
    `writable` (the job's folder, its caches)."""
    if unshare(CLONE_NEWNS) != 0:
        warnings.append("temp folders shared: no mount namespace")
        return False
    ipc_private = unshare(CLONE_NEWIPC) == 0
    if not ipc_private:
        warnings.append("SysV IPC and POSIX message queues shared: no IPC namespace")
    error = _mount(None, "/", None, MS_REC | MS_PRIVATE)
    if error:
        warnings.append(f"temp folders shared: cannot make mounts private ({errno_reason(error)})")
        return False
    real = [os.path.realpath(p) for p in needed_paths if p and os.path.exists(p)]
    private = []
    for root in temp_roots():
        if _cover(root, real, "mode=1777,size=2g", warnings):
            private.append(root)
    if ipc_private and os.path.isdir(MQUEUE_ROOT) and not os.path.islink(MQUEUE_ROOT):
        error = _mount("mqueue", MQUEUE_ROOT, "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        if error:
            warnings.append(f"{MQUEUE_ROOT} shared: mqueue mount failed ({errno_reason(error)})")
        else:
            private.append(MQUEUE_ROOT)
    for root in _outermost(os.path.realpath(p) for p in hidden if p and os.path.isdir(p)):
        if not any(root == t or root.startswith(t + os.sep) for t in private):  # already private
            if _cover(root, real, "mode=0755,size=1m", warnings):
                private.append(root)
    writable_real = _outermost(os.path.realpath(p) for p in writable if p and os.path.isdir(p))
    kept = read_only_mounts.keep_writable(writable_real, _mount, warnings)
    read_only_mounts.make_read_only(_mount, set(kept) | set(private), private, warnings)
    return True


def _cover(root: str, needed: list, options: str, warnings: list) -> bool:
    """An empty tmpfs over root; the needed paths below it bound back at the same places.
    False when root could not be covered."""
    inside = _outermost(p for p in needed if p.startswith(root + os.sep))
    handles = [(path, os.open(path, os.O_PATH)) for path in inside]
    try:
        error = _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, options)
        if error:
            warnings.append(f"{root} not covered: tmpfs mount failed ({errno_reason(error)})")
            return False
        for path, fd in handles:
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(path, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "a").close()
            error = _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
            if error:
                warnings.append(f"{path} unreachable below the covered {root} ({errno_reason(error)})")
    finally:
        for _, fd in handles:
            os.close(fd)
    return True


def needed_paths(request: dict, caches: list) -> list:
    """Everything a job reads or writes that may lie below a temp folder (`caches`: the
    compile caches it writes)."""
    import sys

    paths = [request.get("work_dir"), request.get("outputs_dir"), request.get("task_dir"),
             os.path.dirname(request.get("code_file") or ""),
             os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),  # the runner package's root
             *caches, sys.prefix, sys.base_prefix]
    paths += [os.path.dirname(b.get("code_file") or "") for b in request.get("baselines") or []]
    paths += [os.path.dirname(v.get("code_file") or "") for v in request.get("variants") or []]  # a sweep job
    paths += list(request.get("readable_paths") or [])  # a peer's glue files, below a hidden folder
    paths += [p for p in sys.path if p]
    return [p for p in paths if p]


def writable_paths(request: dict, caches: list) -> list:
    """What the job writes: its folder (HOME and TMPDIR are in it), saved outputs, its caches."""
    return [p for p in (request.get("work_dir"), request.get("outputs_dir"), *caches) if p]

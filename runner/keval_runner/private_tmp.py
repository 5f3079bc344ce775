"""A private /tmp and /dev/shm for a sandboxed job (root only, in a mount namespace of its own).

Shared temp folders let a job leave files on the machine and pass data to later jobs (outputs
cached across the correctness and timing jobs, say). The child gets empty tmpfs mounts instead;
the folders the job needs that lie below them (its work folder, saved outputs, the task, the
runner itself when the checkout is under /tmp) are bind-mounted back at the same paths.
"""

import ctypes
import os

from .linux_calls import errno_reason, libc, unshare

CLONE_NEWNS = 0x00020000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
TEMP_ROOTS = ("/tmp", "/dev/shm")


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


def make_private(needed_paths, warnings: list, hidden=()) -> bool:
    """Replaces /tmp and /dev/shm with empty tmpfs mounts, keeping `needed_paths` reachable;
    then covers each of `hidden` (folders the job must not read: the suite, the other jobs')
    the same way, again keeping the needed paths below it."""
    if unshare(CLONE_NEWNS) != 0:
        warnings.append("temp folders shared: no mount namespace")
        return False
    error = _mount(None, "/", None, MS_REC | MS_PRIVATE)
    if error:
        warnings.append(f"temp folders shared: cannot make mounts private ({errno_reason(error)})")
        return False
    real = [os.path.realpath(p) for p in needed_paths if p and os.path.exists(p)]
    for root in TEMP_ROOTS:
        if os.path.isdir(root) and not os.path.islink(root):
            _cover(root, real, "mode=1777,size=2g", warnings)
    for root in _outermost(os.path.realpath(p) for p in hidden if p and os.path.isdir(p)):
        if not any(root == t or root.startswith(t + os.sep) for t in TEMP_ROOTS):  # already private
            _cover(root, real, "mode=0755,size=1m", warnings)
    return True


def _cover(root: str, needed: list, options: str, warnings: list) -> None:
    """An empty tmpfs over root; the needed paths below it bound back at the same places."""
    inside = _outermost(p for p in needed if p.startswith(root + os.sep))
    handles = [(path, os.open(path, os.O_PATH)) for path in inside]
    try:
        error = _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, options)
        if error:
            warnings.append(f"{root} not covered: tmpfs mount failed ({errno_reason(error)})")
            return
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


def needed_paths(request: dict, caches: list) -> list:
    """Everything a job reads or writes that may lie below a temp folder (`caches`: the
    compile caches it writes)."""
    import sys

    paths = [request.get("work_dir"), request.get("outputs_dir"), request.get("task_dir"),
             os.path.dirname(request.get("code_file") or ""),
             os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # the runner package's root
             *caches, sys.prefix, sys.base_prefix]
    paths += [os.path.dirname(b.get("code_file") or "") for b in request.get("baselines") or []]
    paths += [os.path.dirname(v.get("code_file") or "") for v in request.get("variants") or []]  # a sweep job
    paths += list(request.get("readable_paths") or [])  # a peer's glue files, below a hidden folder
    paths += [p for p in sys.path if p]
    return [p for p in paths if p]

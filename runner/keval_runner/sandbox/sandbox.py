"""The job child's sandbox, and the zygote's clean-up after a job.

Child side (`apply`, right after fork, before any task or candidate code runs): a network
namespace of its own, resource limits, ownership of the job's folders handed to the slot's uid,
a scrubbed environment, then the switch to that uid (so root-owned files, the store and the
task files are not writable from the job). Each step that cannot be taken becomes a warning in
the `sandbox` message; only a failed uid switch stops the job (SandboxError).

When switching uid, the uid's compile caches are emptied first (by descriptors: a guest can
leave trees no path reaches), so each job of a slot starts from the same clean state.

Zygote side (`kill_leftovers`, leftover_processes.py): after the child has exited, every thread
left in its process group, every orphan handed to the zygote (it is a child subreaper) and, when
a uid was given, every thread of that uid is killed, so fork bombs, setsid'd grandchildren and
threads of an exited leader die with the job.
"""

import os
import signal

from ..protocol import request_check
from . import tree_by_descriptor
from .leftover_processes import kill_leftovers, reap_children  # noqa: F401  (the zygote's clean-up)
from .linux_calls import errno_reason, libc, unshare
from ..protocol.request_check import DEFAULT_STDOUT_CAP_BYTES

try:
    import resource
except ImportError:  # not on Linux: no limits
    resource = None

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

# Variables kept from the runner's environment (the rest is dropped; sandbox.env is added).
# The last four are toolchain settings Triton's compiler may need on a GPU machine.
ENV_WHITELIST = ("PATH", "LANG", "LC_ALL", "TRITON_INTERPRET", "TRITON_CACHE_DIR", "CUDA_VISIBLE_DEVICES",
                 "PYTORCH_NVML_BASED_CUDA_CHECK", "PYTHONHASHSEED",
                 "LD_LIBRARY_PATH", "TRITON_LIBCUDA_PATH", "TRITON_PTXAS_PATH", "CC")

RLIMIT_NAMES = ("cpu_s", "fsize_bytes", "nofile", "nproc", "as_bytes")


class SandboxError(Exception):
    """The sandbox could not be set up as asked (e.g. the uid switch failed)."""


def _rlimit_constants() -> dict:
    if resource is None:
        return {}
    return {"cpu_s": resource.RLIMIT_CPU, "fsize_bytes": resource.RLIMIT_FSIZE,
            "nofile": resource.RLIMIT_NOFILE, "nproc": resource.RLIMIT_NPROC, "as_bytes": resource.RLIMIT_AS}


# -- the request field ------------------------------------------------------------------

def settings_problem(sandbox) -> str:
    """Why a request's `sandbox` field is unusable, or "" (absent counts as fine)."""
    return request_check.sandbox_problem(sandbox)


def settings_from(request: dict):
    """The request's sandbox settings as a dict, or None when absent or disabled. The zygote
    checked the request's types (request_check.py) before any of this runs."""
    sandbox = request.get("sandbox")
    if not isinstance(sandbox, dict) or not sandbox.get("enabled"):
        return None
    uid, gid = sandbox.get("uid"), sandbox.get("gid")
    rlimits = sandbox.get("rlimits") or {}
    cap = sandbox.get("stdout_cap_bytes")
    return {"uid": uid, "gid": gid if gid is not None else uid, "isolate_network": bool(sandbox.get("isolate_network")),
            "rlimits": {name: rlimits.get(name) for name in RLIMIT_NAMES},
            "stdout_cap_bytes": DEFAULT_STDOUT_CAP_BYTES if cap is None else cap, "env": dict(sandbox.get("env") or {})}


def stdout_cap(request: dict):
    """Bytes of stdout (and of stderr) kept for a job; None = no cap (sandbox off)."""
    settings = settings_from(request)
    return None if settings is None else settings["stdout_cap_bytes"]


def switched_uid(request: dict):
    """The uid the job's child switches to, when this process can switch (root), else None."""
    settings = settings_from(request)
    if settings is None or settings["uid"] is None:
        return None
    uid = settings["uid"]
    if os.geteuid() != 0 or uid == 0 or uid == os.getuid():
        return None
    return uid


# -- child side ---------------------------------------------------------------------------

def set_parent_death_signal(signal_number: int = signal.SIGKILL) -> None:
    """`signal_number` to this process when its parent (the zygote, for a job) dies. A
    credential change clears it, so it is set again after the uid switch."""
    try:
        libc().prctl(PR_SET_PDEATHSIG, int(signal_number), 0, 0, 0)
    except Exception:
        pass


def become_subreaper() -> bool:
    """Orphaned descendants of our children are re-parented to us (Linux >= 3.4)."""
    try:
        return libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except Exception:
        return False


def _write_file(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _map_own_ids(uid: int, gid: int) -> None:
    """After CLONE_NEWUSER: keep our uid/gid visible as themselves inside the namespace."""
    try:
        _write_file("/proc/self/setgroups", "deny")
    except OSError:
        pass
    _write_file("/proc/self/uid_map", f"{uid} {uid} 1")
    _write_file("/proc/self/gid_map", f"{gid} {gid} 1")


def isolate_network(switching_uid: bool, warnings: list) -> bool:
    """A network namespace of our own (only a down loopback in it): True when it worked."""
    error = unshare(CLONE_NEWNET)
    if error == 0:
        return True
    if switching_uid:
        warnings.append(f"network not isolated: unshare(CLONE_NEWNET) failed ({errno_reason(error)})")
        return False
    uid, gid = os.getuid(), os.getgid()
    error_user = unshare(CLONE_NEWUSER | CLONE_NEWNET)
    if error_user != 0:
        warnings.append("network not isolated: unshare(CLONE_NEWNET) and unshare(CLONE_NEWUSER|CLONE_NEWNET) failed "
                        f"({errno_reason(error)}; {errno_reason(error_user)})")
        return False
    try:
        _map_own_ids(uid, gid)
    except OSError as exc:
        warnings.append(f"network isolated in a user namespace without an id map ({exc})")
    return True


def apply_rlimits(limits: dict, warnings: list) -> dict:
    """Sets soft = hard = min(value, current hard) for each non-null limit; returns the applied ones."""
    applied = {name: None for name in RLIMIT_NAMES}
    constants = _rlimit_constants()
    for name in RLIMIT_NAMES:
        value = limits.get(name)
        if value is None:
            continue
        if name not in constants:
            warnings.append(f"rlimit {name} not supported here")
            continue
        try:
            _, hard = resource.getrlimit(constants[name])
            new = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(constants[name], (new, new))
            applied[name] = new
        except (OSError, ValueError) as exc:
            warnings.append(f"rlimit {name}={value} not applied: {exc}")
    if applied["fsize_bytes"] is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG, no kill
    return applied


def chown_tree(root: str, uid: int, gid: int) -> None:
    """chown -R by directory descriptors, without following links or handing over files with
    several hard links (tree_by_descriptor.py)."""
    tree_by_descriptor.chown_tree(root, uid, gid)


def cache_dirs(settings: dict) -> list:
    """The compile caches the job writes: Triton's (from the request, else the runner's
    environment) and Inductor's when the controller names one."""
    env = settings.get("env") or {}
    triton = env.get("TRITON_CACHE_DIR") or os.environ.get("TRITON_CACHE_DIR")
    return [d for d in (triton, env.get("TORCHINDUCTOR_CACHE_DIR")) if d]


def scrub_environment(settings: dict, home: str, tmpdir: str, uid: int) -> None:
    kept = {name: os.environ[name] for name in ENV_WHITELIST if name in os.environ}
    user = f"keval-{uid}"  # getpass.getuser() (torch.profiler, caches) then needs no passwd entry
    kept.update({"HOME": home, "TMPDIR": tmpdir, "PYTHONDONTWRITEBYTECODE": "1", "USER": user, "LOGNAME": user})
    kept.update(settings["env"])
    os.environ.clear()  # also unsets them at the C level
    os.environ.update(kept)


def switch_user(uid: int, gid: int) -> None:
    try:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    except OSError as exc:
        raise SandboxError(f"could not switch to uid {uid} / gid {gid}: {exc}") from exc
    if os.getuid() != uid or os.geteuid() != uid:
        raise SandboxError(f"uid switch to {uid} did not take (uid {os.getuid()}, euid {os.geteuid()})")
    try:
        os.setuid(0)
    except OSError:
        return
    raise SandboxError("after the uid switch the child could become root again")


def apply(settings: dict, request: dict) -> dict:
    """Sandboxes this (child) process; returns the facts of the `sandbox` message. A folder or
    cache that cannot be made or handed over is a SandboxError: the machine's fault or keval's,
    found before any code of the submission runs, so never the submission's verdict."""
    try:
        return _apply(settings, request)
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        raise SandboxError(f"{type(exc).__name__}: {exc.strerror or exc}{where}") from exc


def _apply(settings: dict, request: dict) -> dict:
    import tempfile

    warnings = []
    root = os.geteuid() == 0
    uid = settings["uid"]
    switching = uid is not None and root and uid != os.getuid()
    if uid is not None and not root:
        warnings.append("running as the invoking user: files writable by that user are not protected")

    network = isolate_network(uid is not None, warnings) if settings["isolate_network"] else False

    work_dir = request.get("work_dir")
    home = work_dir or "/"
    tmpdir = os.path.join(work_dir, "tmp") if work_dir else tempfile.gettempdir()
    if work_dir:
        os.makedirs(tmpdir, exist_ok=True)
    caches = cache_dirs(settings)
    for cache in caches:
        os.makedirs(cache, exist_ok=True)
    if switching:
        gid = settings["gid"]
        keep = {os.path.join(work_dir, n) for n in ("stdout.txt", "stderr.txt")} if work_dir else set()
        # outputs_dir stays the warden's (root's): the files the verdict reads
        for cache in caches:  # the uid's own: each job starts from an empty one, whatever is left
            tree_by_descriptor.empty_folder(cache)
        for folder in (work_dir, *caches):
            if not folder:
                continue
            os.makedirs(folder, exist_ok=True)
            chown_tree(folder, uid, gid)
        for path in keep:  # written by the zygote: they stay root's
            if os.path.lexists(path) and not os.path.islink(path):
                os.chown(path, 0, 0, follow_symlinks=False)

    private_temp = False
    if switching:  # mounts need root, so before the uid switch
        from .private_tmp import make_private, needed_paths, writable_paths
        private_temp = make_private(needed_paths(request, caches), warnings, request.get("hidden_paths") or (),
                                    writable_paths(request, caches))
    applied = apply_rlimits(settings["rlimits"], warnings)
    scrub_environment(settings, home, tmpdir, uid if switching else os.getuid())
    tempfile.tempdir = None
    if switching:
        parent = os.getppid()
        switch_user(uid, settings["gid"])
        set_parent_death_signal()
        if os.getppid() != parent:  # the zygote died before the signal was set again
            os._exit(9)
    return {"uid": os.getuid(), "network_isolated": network, "private_tmp": private_temp,
            "rlimits": applied, "warnings": warnings}


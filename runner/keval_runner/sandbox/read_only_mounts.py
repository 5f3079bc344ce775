"""Every mount of a sandboxed job's namespace read-only, but the places the job must write.

The temp folders a job may write are its own empty mounts (private_tmp.py). Any other folder its
uid could write (a world-writable folder some package made, a folder an earlier run handed to
that uid) would let one job leave answers for the next, so every other storage mount of the job's
mount namespace is remounted read-only, per mount (MS_BIND | MS_REMOUNT: the namespace's copy,
never the filesystem the host and the other jobs see). Its work folder and compile caches are
bound onto themselves first and stay writable. Kernel interface filesystems (/proc, /sys, cgroup,
devpts, mqueue) are left as they are: their files carry their own permissions, and a device node
is writable on a read-only mount anyway (/dev/null stays usable).
"""

import os
import re

from .linux_calls import errno_reason

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND = 32, 4096
# per-mount options a remount must keep (leaving one out would loosen the mount)
KEPT_OPTIONS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "nosymfollow": 256,
                "noatime": 1024, "nodiratime": 2048, "relatime": 1 << 21, "strictatime": 1 << 24}
INTERFACE_FILESYSTEMS = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "nsfs", "binfmt_misc",
                         "autofs", "securityfs", "debugfs", "tracefs", "bpf", "pstore", "configfs",
                         "fusectl", "efivarfs", "selinuxfs", "rpc_pipefs"}
_ESCAPE = re.compile(rb"\\([0-7]{3})")


def _unescape(field: bytes) -> str:
    return os.fsdecode(_ESCAPE.sub(lambda m: bytes([int(m.group(1), 8)]), field))


def mounts() -> list:
    """(mount point, per-mount options, filesystem type) of this namespace, in mount order."""
    found = []
    with open("/proc/self/mountinfo", "rb") as f:
        for line in f:
            fields = line.split()
            try:
                tail = fields.index(b"-")
                found.append((_unescape(fields[4]), fields[5].decode().split(","), fields[tail + 1].decode()))
            except (ValueError, IndexError):
                continue
    return found


def _below(path: str, roots) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def keep_writable(paths, mount, warnings: list) -> list:
    """Binds each path onto itself (its own mount, which the read-only pass leaves alone);
    returns those bound."""
    bound = []
    for path in paths:
        error = mount(path, path, None, MS_BIND)
        if error:
            warnings.append(f"{path} may be read-only to the job: bind failed ({errno_reason(error)})")
        else:
            bound.append(path)
    return bound


def make_read_only(mount, keep, private_roots, warnings: list) -> int:
    """Remounts read-only every storage mount but those at `keep`; returns how many. A mount
    below one of `private_roots` that is no longer there (covered by the private mount) is
    skipped quietly."""
    done = 0
    top = {point: (options, fstype) for point, options, fstype in mounts()}  # the last at a point is reached
    for point, (options, fstype) in top.items():
        if point in keep or fstype in INTERFACE_FILESYSTEMS or "ro" in options:
            continue
        flags = MS_BIND | MS_REMOUNT | MS_RDONLY
        for option in options:
            flags |= KEPT_OPTIONS.get(option, 0)
        error = mount(None, point, None, flags)
        if not error:
            done += 1
        elif not _below(point, private_roots):
            warnings.append(f"{point} left writable: read-only remount failed ({errno_reason(error)})")
    return done

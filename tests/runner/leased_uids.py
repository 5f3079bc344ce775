"""Uids for tests that run code as another user: each leased by the lock file keval's own runs
lease theirs with (src/engine/slots/uid_lease.cc), held until the test process ends.

A test kills every process of its uid (a job's leftovers); two test runs on one machine (a
busy CI host, scripts/ci-busy.sh) with the same fixed uid killed each other's processes."""

import fcntl
import functools
import os

LOCK_DIR = "/var/tmp/keval-uids"
FIRST, COUNT = 47100, 900  # below keval's own range (61000 on)
_held = []  # the lock files' descriptors: closing one would free its uid


def lease_uid() -> int:
    """A uid of [FIRST, FIRST + COUNT) that no other process on this machine holds (without root
    nothing runs as it, and FIRST is as good as any)."""
    if os.geteuid() != 0:
        return FIRST
    os.makedirs(LOCK_DIR, exist_ok=True)
    for uid in range(FIRST, FIRST + COUNT):
        fd = os.open(os.path.join(LOCK_DIR, f"{uid}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        _held.append(fd)
        return uid
    raise RuntimeError(f"{LOCK_DIR}: every uid of {FIRST}..{FIRST + COUNT - 1} is held by another process")


@functools.lru_cache(maxsize=None)
def uid_for(purpose: str) -> int:
    """One leased uid per purpose for this test process (a module's own uid)."""
    return lease_uid()

"""What a finished job left running, found thread by thread and killed (the zygote, as root).

A job's leftovers are every task (thread) in its process group, every child handed to the
zygote (a child subreaper), and every task of the slot's uid. The scan reads /proc/<pid>/task/*,
not /proc/<pid> alone: a process whose leader thread has exited shows a zombie leader in
/proc/<pid>/stat while its other threads still run (and can kill the next job of the uid), so
a process counts as alive when any of its threads is. Each is killed by its thread group id
and each live thread by its own id, until a scan finds none (bounded).
"""

import ctypes
import os
import signal
import time

from .guest_cgroup import thaw_every_parked

from .linux_calls import libc

_GONE_STATES = ("Z", "X", "x")


def _stat_fields(path: str):
    """(state, ppid, pgrp) from a /proc stat file, or None when gone."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    try:
        return fields[0], int(fields[1]), int(fields[2])
    except (IndexError, ValueError):
        return None


def _uids(path: str):
    """Real, effective, saved and filesystem uids from a /proc status file, or None."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("Uid:"):
                    return {int(v) for v in line.split()[1:]}
    except (OSError, ValueError):
        return None
    return None


def _tasks(pid: int) -> list:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task") if t.isdigit()]
    except OSError:
        return []


def leftover_tasks(pgid, uid=None) -> dict:
    """{tgid: [live tids]} of the live threads in group pgid, of children of this process, or
    (uid given) of that uid."""
    me = os.getpid()
    found = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        leader = _stat_fields(f"/proc/{pid}/stat")
        for tid in _tasks(pid):
            where = f"/proc/{pid}/task/{tid}"
            stat = _stat_fields(f"{where}/stat")
            if stat is None or stat[0] in _GONE_STATES:
                continue
            ours = stat[2] == pgid or (leader is not None and (leader[2] == pgid or leader[1] == me))
            if not ours and uid is not None:
                uids = _uids(f"{where}/status")
                ours = bool(uids) and uid in uids
            if ours:
                found.setdefault(pid, []).append(tid)
    return found


def _kill_thread(tgid: int, tid: int) -> None:
    try:
        if libc().tgkill(ctypes.c_int(tgid), ctypes.c_int(tid), ctypes.c_int(int(signal.SIGKILL))) != 0:
            pass  # gone already, or not ours to signal: the group kill covers it
    except AttributeError:  # a libc without tgkill (glibc < 2.30)
        pass


def reap_children() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_leftovers(pgid, uid=None, rounds: int = 200) -> int:
    """SIGKILLs what a finished job left behind until a scan finds nothing; returns how many
    processes. pgid None: only the uid's tasks and this process's children."""
    if uid is not None and (uid == 0 or uid == os.getuid()):
        uid = None  # never sweep our own uid
    thaw_every_parked()  # a process a warden parked (frozen) would not die
    killed = set()
    for _ in range(rounds):
        victims = leftover_tasks(pgid, uid)
        if not victims:
            break
        for tgid, tids in victims.items():
            try:
                os.kill(tgid, signal.SIGKILL)
                killed.add(tgid)
            except (ProcessLookupError, PermissionError):
                pass
            for tid in tids:
                _kill_thread(tgid, tid)
        reap_children()
        time.sleep(0.002)
    reap_children()
    return len(killed)

"""The guest's own cgroup: every process it starts stays in it, so the warden can see them all,
freeze them and end them, whatever they did to their session, group or parent.

While the guest is timed, any other process of its is parked: moved into a frozen sibling
cgroup (`<name>-parked`), where it cannot run again until the job ends (then it is thawed, so
that the zygote's SIGKILL takes: a task frozen by cgroup v1 does not die).

A processes' cgroup file is root's: the guest's uid cannot move out. cgroup v1's freezer
hierarchy or cgroup v2's unified one, whichever this machine lets root write; None without
either (not root, or no cgroup file system): then only the guest's own process is watched.
"""

import os
import signal
import time

V1_FREEZER = "/sys/fs/cgroup/freezer"
V2_ROOTS = ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
FREEZE_WAIT_S = 5.0
PARKED_SUFFIX = "-parked"


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _remove_empty_siblings(path: str) -> None:
    """Cgroups of earlier jobs whose warden ended without removing them (rmdir takes only
    empty ones; a live warden's are left alone: it may have made one and not filled it yet)."""
    parent = os.path.dirname(path)
    for name in os.listdir(parent):
        sibling = os.path.join(parent, name)
        if sibling != path and os.path.isdir(sibling) and not _warden_alive(name):
            try:
                os.rmdir(sibling)
            except OSError:
                pass


def _warden_alive(name: str) -> bool:
    """Whether the warden a cgroup is named after (its pid, or its pid and the parked suffix)
    still runs."""
    warden = name[: -len(PARKED_SUFFIX)] if name.endswith(PARKED_SUFFIX) else name
    return warden.isdigit() and os.path.exists(f"/proc/{warden}")


def thaw_every_parked(roots=None) -> None:
    """Thaws the parked cgroups of wardens that have ended (the zygote, before it sweeps a uid):
    a warden that died before releasing them would leave their processes frozen, which no
    SIGKILL ends. A live warden's stay frozen: its job may be timing."""
    for root, v2 in roots if roots is not None else [(V1_FREEZER, False)] + [(r, True) for r in V2_ROOTS]:
        folder = os.path.join(root, "keval")
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.endswith(PARKED_SUFFIX) and not _warden_alive(name):
                try:
                    GuestCgroup(os.path.join(folder, name), v2).thaw()
                except OSError:
                    pass


class GuestCgroup:
    def __init__(self, path: str, v2: bool):
        self.path, self.v2 = path, v2

    @classmethod
    def create(cls, name: str, roots=None):
        """A new cgroup `keval/<name>` under the first hierarchy that takes it, or None."""
        candidates = roots if roots is not None else [(V1_FREEZER, False)] + [(r, True) for r in V2_ROOTS]
        for root, v2 in candidates:
            if not os.path.isfile(os.path.join(root, "cgroup.procs")):
                continue
            if v2 and not os.path.isfile(os.path.join(root, "cgroup.subtree_control")):
                continue
            path = os.path.join(root, "keval", name)
            try:
                os.makedirs(path, exist_ok=True)
                _remove_empty_siblings(path)
                if not os.path.isfile(os.path.join(path, "cgroup.freeze" if v2 else "freezer.state")):
                    os.rmdir(path)
                    continue
            except OSError:
                continue
            return cls(path, v2)
        return None

    @property
    def parked_path(self) -> str:
        return self.path + PARKED_SUFFIX

    def park(self, pids: list) -> None:
        """Moves `pids` into the frozen parked cgroup (made on first use)."""
        parked = GuestCgroup(self.parked_path, self.v2)
        os.makedirs(parked.path, exist_ok=True)
        parked.freeze()
        for pid in pids:
            try:
                _write(os.path.join(parked.path, "cgroup.procs"), str(pid))
            except OSError:  # it ended meanwhile
                pass
        parked.freeze()

    def release_parked(self) -> None:
        """Thaws what was parked, for the zygote's sweep to kill, and removes the parked cgroup
        once empty."""
        parked = GuestCgroup(self.parked_path, self.v2)
        if os.path.isdir(parked.path):
            try:
                parked.thaw()
            except OSError:
                pass
            parked.remove()

    def add(self, pid: int) -> bool:
        """Puts `pid` in it; whether that took (a cgroup removed under us, or a kernel that
        refuses, leaves the job without one rather than failing it)."""
        for _ in range(3):
            try:
                os.makedirs(self.path, exist_ok=True)
                _write(os.path.join(self.path, "cgroup.procs"), str(pid))
                return True
            except OSError:
                continue
        return False

    def pids(self) -> list:
        """Every process in it (thread-group ids)."""
        try:
            return [int(line) for line in _read(os.path.join(self.path, "cgroup.procs")).split()]
        except (OSError, ValueError):
            return []

    def others(self, pid: int) -> list:
        """The processes in it beside the guest's own."""
        return [p for p in self.pids() if p != pid]

    def _frozen(self) -> bool:
        if self.v2:
            return "frozen 1" in _read(os.path.join(self.path, "cgroup.events"))
        return _read(os.path.join(self.path, "freezer.state")).strip() == "FROZEN"

    def freeze(self) -> bool:
        """Freezes every process in it; whether the kernel confirmed it in time."""
        if self.v2:
            _write(os.path.join(self.path, "cgroup.freeze"), "1")
        else:
            _write(os.path.join(self.path, "freezer.state"), "FROZEN")
        deadline = time.monotonic() + FREEZE_WAIT_S
        while not self._frozen():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.0005)
        return True

    def thaw(self) -> None:
        if self.v2:
            _write(os.path.join(self.path, "cgroup.freeze"), "0")
        else:
            _write(os.path.join(self.path, "freezer.state"), "THAWED")

    def kill_all(self, rounds: int = 50) -> None:
        """Every process in it killed (frozen first, so none forks meanwhile), then the cgroup
        removed once empty."""
        for _ in range(rounds):
            pids = self.pids()
            if not pids:
                break
            try:
                self.freeze()
            except OSError:
                pass
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                self.thaw()  # a frozen process cannot die
            except OSError:
                pass
            time.sleep(0.01)
        self.remove()

    def remove(self) -> None:
        """The cgroup removed, if empty."""
        try:
            os.rmdir(self.path)
        except OSError:
            pass

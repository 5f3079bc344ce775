"""Stopping and resuming the guest around the warden's timed calls.

A timed call's clock stops only once the guest is stopped (SIGSTOP, confirmed by waitpid):
work it leaves for after its answer is still inside the sample, and nothing of it runs while
the warden reads its outputs or samples the baselines. SIGSTOP stops every thread of the
guest's thread group and cannot be caught or ignored; it took about 7 µs (median) on this
project's 2-core CPU machine, against 165 µs for a cgroup v1 freeze of an idle process.
Processes the guest started are not stopped by it: GuestProcesses counts them.
"""

import os
import signal


class GuestDied(Exception):
    """The guest ended instead of stopping; `status` is its wait status."""

    def __init__(self, status: int):
        super().__init__("the guest ended")
        self.status = status


def stop(pid: int) -> None:
    """Stops the guest and waits until every thread of it has stopped."""
    os.kill(pid, signal.SIGSTOP)
    while True:
        found, status = os.waitpid(pid, os.WUNTRACED)
        if found != pid:
            continue
        if os.WIFSTOPPED(status):
            return
        raise GuestDied(status)


def resume(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass

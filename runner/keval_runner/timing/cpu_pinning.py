"""The warden and the guest on one CPU core while they take turns measuring.

The baselines are timed in the warden and the submission in the guest: two processes, sample
by sample in turn. Free to run anywhere, each wakes on whatever core the scheduler gives it,
and a call whose time is mostly the host's (glue, a call that waits for the GPU inside it)
reads that core's state, not the code's: on the H200, KernelBenchX's bitwise_and_binomial
timed against itself read 0.60x to 1.48x. On one core the two see the same core
(bench/process_pinning.py on a 2-core CPU machine: a host-bound call's A/A p95 over process
pairs 2.0-2.9% on one core, 18-46% free). Only the calling thread is pinned
(sched_setaffinity of pid 0): threads started before keep their cores, and work hidden on any
thread still shows as a host gap.
"""

import contextlib
import os


def current_cpu() -> int:
    """The core this thread runs on now (field 39 of /proc/thread-self/stat)."""
    with open("/proc/thread-self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[36])  # fields after the command start at field 3


def pin(cpus) -> None:
    """This thread on `cpus` (a collection of core numbers)."""
    os.sched_setaffinity(0, set(cpus))


def chosen_cpu() -> int:
    """The core the warden runs on, when it may stay there; else its lowest allowed one."""
    allowed = os.sched_getaffinity(0)
    try:
        cpu = current_cpu()
    except (OSError, ValueError, IndexError):
        cpu = -1
    return cpu if cpu in allowed else min(allowed)


@contextlib.contextmanager
def one_core(pin_guest):
    """The warden's thread and, through `pin_guest(cpus)` (None: back to the guest's own
    set), the guest's on one core for the block, each put back after. A guest that cannot
    follow (`pin_guest` returns False) leaves both free."""
    before = os.sched_getaffinity(0)
    cpu = chosen_cpu()
    pinned = pin_guest([cpu])
    if pinned:
        try:
            pin({cpu})
        except OSError:  # the warden cannot follow (its cores changed under it): both free
            pin_guest(None)
            pinned = False
    try:
        yield
    finally:
        if pinned:
            pin(before)
            pin_guest(None)

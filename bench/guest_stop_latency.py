"""How long stopping an idle guest takes, by SIGSTOP (what the warden's clock includes after
each timed call, guest_stop.py) against a cgroup freeze of its whole cgroup (guest_cgroup.py).

Usage: python bench/guest_stop_latency.py [--rounds N]   (root for the cgroup half)
Prints the median and the largest of each, in µs.
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runner"))

from keval_runner.guest import guest_stop  # noqa: E402
from keval_runner.sandbox.guest_cgroup import GuestCgroup  # noqa: E402


def idle_child():
    """A process blocked reading, as a guest is between requests."""
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)


def summary(name: str, times_us: list) -> str:
    times_us.sort()
    return f"{name}: median {times_us[len(times_us) // 2]:.1f} us, max {times_us[-1]:.1f} us over {len(times_us)}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=200)
    rounds = parser.parse_args().rounds
    child = idle_child()
    time.sleep(0.3)
    try:
        stops = []
        for _ in range(rounds):
            start = time.perf_counter()
            guest_stop.stop(child.pid)
            stops.append((time.perf_counter() - start) * 1e6)
            guest_stop.resume(child.pid)
        print(summary("SIGSTOP, confirmed by waitpid", stops))
        cgroup = GuestCgroup.create(f"bench-{os.getpid()}")
        if cgroup is None:
            print("cgroup freeze: no writable cgroup (not root?)")
            return
        cgroup.add(child.pid)
        freezes = []
        for _ in range(rounds):
            start = time.perf_counter()
            cgroup.freeze()
            freezes.append((time.perf_counter() - start) * 1e6)
            cgroup.thaw()
            time.sleep(0.001)
        print(summary("cgroup freeze, confirmed FROZEN", freezes))
        child.kill()
        child.wait()
        cgroup.remove()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


if __name__ == "__main__":
    main()

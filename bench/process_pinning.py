"""Does a host-bound call read the same in two processes? A/A across processes, pinned or not.

In a timing job the baselines run in the warden and the submission in the guest: two
processes. A call whose time is mostly the host's (Python glue, a call that waits for the GPU
inside it, as KernelBenchX's bitwise_and_binomial, whose A/A ratio ranged 0.60x-1.48x on the
H200) reads what its own process's core and state give it. This bench times the same call in
a parent and a fresh child, sample by sample in turn over a socket (as the warden and the
guest take turns), and prints the spread of the child/parent median ratio over many pairs:
each process free to run on any core, each pinned to a core of its own, and both pinned to
one core.

    python bench/process_pinning.py [--pairs 30] [--samples 60] [--numel 4096]
"""

import argparse
import os
import socket
import statistics
import sys
import time

import torch


def binomial_call(numel: int):
    """KernelBenchX bitwise_and_binomial's reference on CPU tensors: host-bound glue."""
    x = torch.randint(0, 2, (numel,), dtype=torch.int32)
    total, probs = torch.tensor(10, dtype=torch.int32), torch.rand(numel) * 0.5 + 0.25

    def call():
        x & x
        return torch.distributions.Binomial(total_count=total, probs=probs).sample()
    return call


def timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def child_loop(sock: socket.socket, numel: int, cpus) -> None:
    os.sched_setaffinity(0, cpus)
    torch.manual_seed(0)
    call = binomial_call(numel)
    while sock.recv(1) == b"g":
        sock.sendall(repr(timed(call)).encode().ljust(32))
    os._exit(0)


def one_pair(numel: int, samples: int, parent_cpus: set, child_cpus: set) -> float:
    """Median child time over median parent time, the two sampling in turn."""
    os.sched_setaffinity(0, parent_cpus)
    parent_end, child_end = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        parent_end.close()
        child_loop(child_end, numel, child_cpus)
    child_end.close()
    torch.manual_seed(0)
    call = binomial_call(numel)
    mine, theirs = [], []
    for k in range(samples + 5):  # 5 warm-up calls each
        parent_end.sendall(b"g")
        child_time = float(parent_end.recv(32).decode())
        own_time = timed(call)
        if k >= 5:
            mine.append(own_time)
            theirs.append(child_time)
    parent_end.sendall(b"q")
    os.waitpid(pid, 0)
    return statistics.median(theirs) / statistics.median(mine)


def spread(ratios: list) -> str:
    off = sorted(abs(r - 1) for r in ratios)
    p95 = off[min(len(off) - 1, int(0.95 * len(off)))]
    return (f"median ratio {statistics.median(ratios):.4f}x, median |ratio-1| {100 * statistics.median(off):.2f}%, "
            f"p95 {100 * p95:.2f}%, worst {100 * off[-1]:.2f}%")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=30)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--numel", type=int, default=4096)
    args = parser.parse_args()
    torch.set_num_threads(1)
    every = sorted(os.sched_getaffinity(0))
    modes = {"free": (set(every), set(every)), "apart": ({every[0]}, {every[-1]}),
             "one core": ({every[-1]}, {every[-1]})}
    results = {mode: [] for mode in modes}
    for _ in range(args.pairs):  # the modes in turn, so a drift of the machine hits each
        for mode, (parent_cpus, child_cpus) in modes.items():
            results[mode].append(one_pair(args.numel, args.samples, parent_cpus, child_cpus))
    print(f"{os.cpu_count()} cpus; {args.pairs} process pairs per mode, {args.samples} samples each, numel {args.numel}")
    for mode, ratios in results.items():
        print(f"{mode:9} {spread(ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What it costs to hand a call's outputs from the guest to the warden, by each way the runner
has: sealed memfds (the default) and payload bytes over the socket (the fallback).

usage: python bench/output_handoff.py [--mib 256] [--repeats 5]

Each repeat forks a guest that makes the output, hands it over and exits; the warden times from
its request to holding CPU tensors it can save (for bytes, each output copied out of the
payload, as the runner does). Prints the median seconds of each way.
"""
import argparse
import os
import statistics
import sys
import time

from common import REPO

sys.path.insert(0, str(REPO / "runner"))
import torch  # noqa: E402

from keval_runner.guest.guest_channel import Channel  # noqa: E402
from keval_runner.handoff.output_files import plain_cpu_copy  # noqa: E402
from keval_runner.handoff.sealed_outputs import open_sealed_outputs, seal_outputs  # noqa: E402
from keval_runner.handoff.shared_args import output_payload, outputs_from_payload  # noqa: E402


def hand_over(way: str, elements: int) -> float:
    warden, guest = Channel.pair()
    pid = os.fork()
    if pid == 0:
        warden.close()
        torch.set_num_threads(1)  # the parent's thread pool does not survive the fork
        output = torch.ones(elements)
        guest.receive()  # the request
        if way == "sealed":
            described, fds = seal_outputs([output])
            guest.send({"outputs": described}, fds=fds)
        else:
            described, chunks = output_payload([plain_cpu_copy(output)])
            guest.send({"outputs": described}, chunks)
        os._exit(0)
    guest.close()
    started = time.perf_counter()
    warden.send({"op": "call"})
    header, payload, fds = warden.receive()
    if way == "sealed":
        outputs = open_sealed_outputs(header["outputs"], fds)
    else:
        outputs = [t.clone() for t in outputs_from_payload(header["outputs"], payload)]
    seconds = time.perf_counter() - started
    for fd in fds:
        os.close(fd)
    os.waitpid(pid, 0)
    assert float(outputs[0][-1]) == 1.0
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    elements = args.mib * (1 << 20) // 4
    for way in ("sealed", "bytes"):
        times = [hand_over(way, elements) for _ in range(args.repeats)]
        print(f"{way:<7} {args.mib} MiB: median {statistics.median(times):.3f} s "
              f"(min {min(times):.3f}, max {max(times):.3f}, {args.repeats} repeats)")


if __name__ == "__main__":
    main()

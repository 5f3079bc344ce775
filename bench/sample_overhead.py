"""What one CUDA timing sample costs beyond its call, step by step, in one process: where the
time cap's wall seconds go for a kernel of a few µs (on the H200, TritonBench-T's 6 µs cases
got 30 to 70 samples in their 0.25 s cap).

    python bench/sample_overhead.py [--reps 200] [--numel 1048576]

Prints the mean µs of each step of Sampler.take's loop, then whole interleaved samples of two
contenders with and without the SM clock and persisting-L2 reads. Needs a GPU.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runner"))

import torch  # noqa: E402

from keval_runner.timing.interleaved_timing import Contender, Sampler, measure_interleaved  # noqa: E402
from keval_runner.timing.l2_persistence import L2Persistence  # noqa: E402
from keval_runner.timing.sm_clock import SmClock  # noqa: E402


def mean_us(step, reps: int) -> float:
    for _ in range(10):  # a kernel's first launch loads its module (lazy loading)
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(reps):
        step()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / reps * 1e6


def interleaved_us(call, settings: dict, reps: int, **opened) -> float:
    """Wall µs per sample of two contenders of `call` sampled in turn, `reps` samples each."""
    contenders = [Contender(who, lambda k: call) for who in ("candidate", "golden")]
    start = time.perf_counter()
    measure_interleaved(contenders, torch.device("cuda"), settings, **opened)
    return (time.perf_counter() - start) / (2 * reps) * 1e6


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--numel", type=int, default=1 << 20)
    args = parser.parse_args(argv)
    device = torch.device("cuda")
    x, y = torch.randn(args.numel, device=device), torch.randn(args.numel, device=device)
    out = torch.empty_like(x)

    def call():
        return torch.add(x, y, out=out)

    settings = {"warmup": 3, "min_samples": args.reps, "max_samples": args.reps, "max_seconds": 1e9,
                "target_rel_stdev": 0.0}
    sampler = Sampler(device, settings)
    clock, l2 = SmClock.open(device), L2Persistence.open()
    steps = {
        "the call alone, synchronized": lambda: (call(), torch.cuda.synchronize()),
        "synchronize on an idle GPU": torch.cuda.synchronize,
        "L2 flush (zero 2x L2) + synchronize": lambda: (sampler.flush.zero_(), torch.cuda.synchronize()),
        "placement pads": sampler.placement_pads,
        "launch cover (base) + synchronize": lambda: (sampler.cover.start(), torch.cuda.synchronize()),
        "SM clock read (NVML)": (clock.current_mhz if clock else (lambda: None)),
        "persisting-L2 read and reset": (l2.reset if l2 else (lambda: None)),
        "Sampler.take of the call": lambda: sampler.take(call),
    }
    print(f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}, {args.numel} floats, "
          f"{args.reps} reps; mean µs per step:")
    for name, step in steps.items():
        print(f"  {name:40s} {mean_us(step, args.reps):9.1f}")
    print("interleaved, two contenders, µs per sample:")
    print(f"  {'as the timing job runs it':40s} {interleaved_us(call, settings, args.reps):9.1f}")
    print(f"  {'without the SM clock':40s} {interleaved_us(call, settings, args.reps, clock=None):9.1f}")
    print(f"  {'without the SM clock and L2 reset':40s} "
          f"{interleaved_us(call, settings, args.reps, clock=None, l2=None):9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Calibration: a Triton kernel that spins for a known time must be timed within 2%.

The kernel reads the GPU's %globaltimer (nanoseconds) and spins until `duration` has passed;
keval's CUDA timing (cold L2, events) of one launch must match the duration the kernel itself
measured. GPU only. usage: python bench/calibration.py
"""
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "runner"))

import torch
import triton
import triton.language as tl

from keval_runner.timing.interleaved_timing import measure


@triton.jit
def _now(dummy):
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l,r", [dummy],
                                     dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def _spin_kernel(out_ptr, duration_ns):
    dummy = tl.zeros([1], dtype=tl.int32)
    start = tl.sum(_now(dummy), axis=0)
    elapsed = start - start
    while elapsed < duration_ns:
        elapsed = tl.sum(_now(dummy), axis=0) - start
    tl.store(out_ptr + tl.arange(0, 1), tl.zeros([1], dtype=tl.int64) + elapsed)


def main():
    if not torch.cuda.is_available():
        raise SystemExit("calibration needs a GPU")
    out = torch.zeros(1, dtype=torch.int64, device="cuda")
    settings = {"warmup": 3, "min_samples": 10, "max_samples": 50, "max_seconds": 2.0}
    worst = 0.0
    print(f"{'target':>10} {'kernel says':>12} {'keval median':>13} {'error':>7}")
    for micros in (100, 500, 2000, 10000):
        ns = micros * 1000
        call = lambda: _spin_kernel[(1,)](out, ns)
        timing = measure(lambda k: call, torch.device("cuda"), settings)
        spun_ms = out.item() / 1e6
        median = statistics.median(timing["samples_ms"])
        error = (median - spun_ms) / spun_ms
        worst = max(worst, abs(error))
        print(f"{micros / 1000:>8.3f}ms {spun_ms:>10.4f}ms {median:>11.4f}ms {100 * error:>6.2f}%")
    print(f"worst |error| {100 * worst:.2f}% (target <= 2%) on {torch.cuda.get_device_name()}")
    return 0 if worst <= 0.02 else 1


if __name__ == "__main__":
    sys.exit(main())

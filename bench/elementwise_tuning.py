"""Why the suite's elementwise goldens run at 0.80-0.90x of eager PyTorch on the H200 (STATUS.md,
session 4): one elementwise kernel (relu, float32, the suite's 16384x8192 case) in variants of
its launch (block size, warps, 32- or 64-bit offsets) beside torch.relu, and the float32 ->
bfloat16 cast with the conversion instruction beside the golden's bit-pattern rounding and
torch's. Cold L2 before each sample (triton.testing.do_bench). Then the suite's relu golden
and torch.relu under keval's own timing loop, with and without the launch cover (the host's
launch latency inside the sample or not). CUDA only.

    python bench/elementwise_tuning.py
"""
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "runner"))

import torch
import triton
import triton.language as tl
from triton.testing import do_bench

from common import task_module


@triton.jit
def _relu(x_ptr, out_ptr, n, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    if WIDE:
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _cast_instruction(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.bfloat16), mask=mask)


def ms(fn) -> float:
    return do_bench(fn, warmup=25, rep=200)


def keval_ms(fn, cover) -> float:
    """Median of keval's samples of fn (cold L2, events), with or without the launch cover."""
    from keval_runner.timing.interleaved_timing import Contender, measure_interleaved
    from keval_runner.timing.launch_cover import LaunchCover

    settings = {"warmup": 3, "min_samples": 20, "max_samples": 200, "max_seconds": 1.0, "min_seconds": 0.3}
    contender = Contender("x", lambda k: fn)
    opened = LaunchCover.open(torch.device("cuda"), settings) if cover else None
    if cover and opened is None:
        raise SystemExit("the launch cover did not open")
    measure_interleaved([contender], torch.device("cuda"), settings, cover=opened)
    return statistics.median(contender.samples)


def keval_method(x) -> None:
    relu = task_module("relu", "golden").relu
    for cover in (False, True):
        ours, eager = keval_ms(lambda: relu(x), cover), keval_ms(lambda: torch.relu(x), cover)
        print(f"keval timing {'with' if cover else 'without'} the launch cover: relu golden {ours:.4f} ms, "
              f"torch.relu {eager:.4f} ms: golden {eager / ours:.2f}x eager")


def main() -> None:
    x = torch.randn(16384, 8192, device="cuda")
    out = torch.empty_like(x)
    n = x.numel()
    keval_method(x)
    gbytes = 2 * x.numel() * x.element_size() / 1e9
    eager = ms(lambda: torch.relu(x))
    print(f"relu float32 {tuple(x.shape)}: torch.relu {eager:.4f} ms ({gbytes / eager:.0f} GB/s)")
    rows = []
    for wide in (True, False):
        for block in (1024, 2048, 4096, 8192):
            for warps in (4, 8, 16):
                t = ms(lambda: _relu[(triton.cdiv(n, block),)](x, out, n, BLOCK=block, WIDE=wide, num_warps=warps))
                rows.append((t, wide, block, warps))
    for t, wide, block, warps in sorted(rows):
        print(f"  {'int64' if wide else 'int32'} offsets, BLOCK {block:5d}, {warps:2d} warps: {t:.4f} ms "
              f"({gbytes / t:.0f} GB/s, {eager / t:.2f}x eager)")
    c = torch.randn(268435459, device="cuda")
    y = torch.empty(c.shape, dtype=torch.bfloat16, device="cuda")
    nc = c.numel()
    eager = ms(lambda: c.to(torch.bfloat16))
    print(f"cast float32 -> bfloat16, {nc} elements: torch {eager:.4f} ms")
    for block in (2048, 4096, 8192):
        for warps in (4, 8):
            t = ms(lambda: _cast_instruction[(triton.cdiv(nc, block),)](c, y, nc, BLOCK=block, num_warps=warps))
            print(f"  conversion instruction, BLOCK {block}, {warps} warps: {t:.4f} ms ({eager / t:.2f}x torch)")
    same = torch.equal(y.view(torch.int16), c.to(torch.bfloat16).view(torch.int16))
    print(f"  conversion instruction gives torch's bits on these inputs: {same}")


if __name__ == "__main__":
    main()

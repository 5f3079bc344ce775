"""Measured hardware ceilings of the GPU in use: copy bandwidth and matrix throughput per dtype.

Efficiency is reported against what this GPU actually reaches, not a datasheet: a large
device-to-device copy (bytes read + written over time) and large matrix products through
PyTorch (cuBLAS) on random data, each the median of several timed repetitions after warm-up.
"""

import torch

COPY_BYTES = 2 * 1024**3       # 2 GiB: far beyond L2
MATMUL_SIZE = 8192
REPEATS = 10


def _median_ms(fn, repeats=REPEATS, warmup=3) -> float:
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def copy_bandwidth_gbps() -> float:
    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device="cuda").random_()
    dst = torch.empty_like(src)
    ms = _median_ms(lambda: dst.copy_(src))
    return 2 * COPY_BYTES / (ms / 1e3) / 1e9


def matmul_tflops(dtype: torch.dtype, allow_tf32: bool = False) -> float:
    n = MATMUL_SIZE
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(n, n, device="cuda", generator=gen).to(dtype)
    b = torch.randn(n, n, device="cuda", generator=gen).to(dtype)
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    try:
        ms = _median_ms(lambda: a @ b)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous
    return 2 * n**3 / (ms / 1e3) / 1e12


def measure() -> dict:
    """The `ceilings` message fields."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {
        "gpu_name": props.name,
        "copy_gbps": copy_bandwidth_gbps(),
        "matmul_tflops": {
            "bfloat16": matmul_tflops(torch.bfloat16),
            "float16": matmul_tflops(torch.float16),
            "float32": matmul_tflops(torch.float32, allow_tf32=True),  # Triton's tl.dot default
            "float32_ieee": matmul_tflops(torch.float32, allow_tf32=False),
        },
        "method": f"median of {REPEATS} CUDA-event timings after 3 warm-ups; copy of "
                  f"{COPY_BYTES >> 20} MiB counting read + write; {MATMUL_SIZE}^3 matmul, random data",
    }

"""Timing samples of one call, with the controller's stopping rule.

CUDA: each sample first overwrites a buffer twice the L2 size (so the call starts with a
cold L2, and the flush is outside the timed region), then CUDA events bracket one call.
The host time from the call's launch to a device-wide synchronize is kept beside each
sample: work the events miss (side streams) shows up there.
CPU (Triton interpreter): time.perf_counter around each call.
"""

import statistics
import time

import torch

DEFAULT_TARGET_REL_STDEV = 0.005
FALLBACK_L2_BYTES = 64 * 1024 * 1024


def relative_stdev(samples: list) -> float:
    if len(samples) < 2:
        return float("inf")
    mean = statistics.fmean(samples)
    if mean <= 0:
        return float("inf")
    return statistics.stdev(samples) / mean


def stop_reason(samples: list, elapsed_s: float, settings: dict):
    """'converged', 'time_cap', 'sample_cap', or None to keep sampling."""
    n = len(samples)
    enough = n >= int(settings.get("min_samples", 1))
    target = float(settings.get("target_rel_stdev", DEFAULT_TARGET_REL_STDEV))
    if enough and elapsed_s >= float(settings.get("min_seconds", 0.0)) and relative_stdev(samples) <= target:
        return "converged"
    if enough and elapsed_s >= float(settings.get("max_seconds", 1.0)):
        return "time_cap"
    if n >= int(settings.get("max_samples", 100)):
        return "sample_cap"
    return None


def _l2_bytes(device: torch.device) -> int:
    props = torch.cuda.get_device_properties(device)
    return int(getattr(props, "L2_cache_size", 0) or FALLBACK_L2_BYTES)


def time_cuda(call, device: torch.device, settings: dict) -> dict:
    flush = torch.empty(2 * _l2_bytes(device), dtype=torch.uint8, device=device)
    for _ in range(int(settings.get("warmup", 0))):
        call()
    torch.cuda.synchronize(device)

    samples, host_samples = [], []
    start_event = torch.cuda.Event(enable_timing=True)
    end_event = torch.cuda.Event(enable_timing=True)
    began = time.perf_counter()
    while True:
        flush.zero_()
        host_start = time.perf_counter()
        start_event.record()
        call()
        end_event.record()
        torch.cuda.synchronize()  # every stream of the device, not only the current one
        host_samples.append((time.perf_counter() - host_start) * 1e3)
        samples.append(start_event.elapsed_time(end_event))
        reason = stop_reason(samples, time.perf_counter() - began, settings)
        if reason:
            break
    return {"method": "cuda_event_cold_l2", "samples_ms": samples,
            "host_samples_ms": host_samples, "stop_reason": reason}


def time_cpu(call, settings: dict) -> dict:
    for _ in range(int(settings.get("warmup", 0))):
        call()
    samples = []
    began = time.perf_counter()
    while True:
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1e3)
        reason = stop_reason(samples, time.perf_counter() - began, settings)
        if reason:
            break
    return {"method": "wall_clock", "samples_ms": samples, "host_samples_ms": None, "stop_reason": reason}


def measure(call, device: torch.device, settings: dict) -> dict:
    if device.type == "cuda":
        return time_cuda(call, device, settings)
    return time_cpu(call, settings)

"""Timing samples of one call, with the controller's stopping rule (the sampling loop itself
is interleaved_timing.py's, shared with the timing job's interleaved baselines).

CUDA: each sample first overwrites a buffer twice the L2 size (so the call starts with a
cold L2, and the flush is outside the timed region), then CUDA events bracket one call.
The host time from the call's launch to a device-wide synchronize is kept beside each
sample: work the events miss (side streams) shows up there.
CPU (Triton interpreter): time.perf_counter around each call.
Both: the caller's `prepare(k)` readies the k-th call outside the timed region (it rotates the
input sets) and `observe(i, output)` sees each timed call's output after the sample.
"""

import math
import time

import torch

from ..protocol.request_check import timing_setting
from .sample_stats import median, relative_stdev

# The clock, bound at import (in the zygote): a candidate replacing time.perf_counter does not
# reach the samples (and the tampering check names the replacement).
_clock = time.perf_counter
_Event = torch.cuda.Event
_synchronize = torch.cuda.synchronize

FALLBACK_L2_BYTES = 64 * 1024 * 1024
MEDIAN_ERROR_FACTOR = math.sqrt(math.pi / 2)  # the median's standard error over the mean's


def stop_reason(samples: list, elapsed_s: float, settings: dict):
    """'converged', 'time_cap', 'sample_cap', or None to keep sampling. The rule's figures are
    the controller's, from the request (defaults: protocol/request.schema.json).

    Converged: the samples' stdev over their mean is at most target_rel_stdev at min_samples,
    and at most target_rel_stdev * sqrt(n / min_samples) after n samples. The median's standard
    error falls as 1/sqrt(n), so that bound keeps it at what min_samples samples at the target
    give: a kernel whose samples spread 0.6% is as well measured at 14 samples as one at 0.5%
    at 10, where a fixed bound ran it to the time cap (most of the H200's timed cases). Or at
    most spread_target's bound, where the harness's own spread makes more samples pointless."""
    n = len(samples)
    least = int(timing_setting(settings, "min_samples"))
    enough = n >= least
    target = float(timing_setting(settings, "target_rel_stdev")) * math.sqrt(n / max(1, least))
    if enough and n:
        target = max(target, spread_target(median(samples), n, settings))
    if (enough and elapsed_s >= float(timing_setting(settings, "min_seconds"))
            and relative_stdev(samples) <= target):
        return "converged"
    if enough and elapsed_s >= float(timing_setting(settings, "max_seconds")):
        return "time_cap"
    if n >= int(timing_setting(settings, "max_samples")):
        return "sample_cap"
    return None


def spread_target(median_ms: float, n: int, settings: dict) -> float:
    """The stdev over the mean at which the median's standard error (about 1.2533 stdev /
    sqrt(n) for samples near normal) is spread_error's at `median_ms`; 0 when off."""
    return spread_error(median_ms, settings) * math.sqrt(n) / MEDIAN_ERROR_FACTOR


def spread_error(median_ms: float, settings: dict) -> float:
    """`spread_share` of the harness's spread at `median_ms` (the request's `spread_bands`,
    src/judge/harness_spread.h): a median's relative standard error small enough beside it."""
    share = float(timing_setting(settings, "spread_share"))
    spread = 0.0
    for from_ms, band_spread in timing_setting(settings, "spread_bands"):
        if median_ms >= from_ms:
            spread = band_spread
    return share * spread


def check_interval(settings: dict) -> int:
    """N: every N-th timed call is checked, so that at least 5 checks happen (fewer samples: all)."""
    least = min(int(timing_setting(settings, "min_samples")), int(timing_setting(settings, "max_samples")))
    return max(1, least // 5)


def l2_bytes(device: torch.device) -> int:
    props = torch.cuda.get_device_properties(device)
    return int(getattr(props, "L2_cache_size", 0) or FALLBACK_L2_BYTES)

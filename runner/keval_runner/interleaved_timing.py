"""Several callables timed sample by sample in turn: the submission and its baselines.

Alternating each sample keeps clock, thermal and background drift alike on both sides of a
speedup. Each contender has its own input rotation and its own stopping rule (timing.py's);
the loop runs until every contender has stopped. CUDA samples: L2 flush and input rotation
outside the timed region (finished before the sample starts), then a launch cover (launch_cover.py:
the start event waits behind it while the host enqueues the call, so the host's launch latency
stays out of the sample), CUDA events around one call, host time to a device-wide synchronize
beside it (less the cover). CPU samples: wall-clock.
"""

import statistics

import torch

from .l2_persistence import L2Persistence
from .launch_cover import LaunchCover
from .sm_clock import SmClock, too_slow
from .timing import _Event, _clock, _synchronize, l2_bytes, stop_reason


class Contender:
    """who: "candidate" or a baseline name; prepare(k) readies the k-th call; observe(i, out)."""

    def __init__(self, who: str, prepare, observe=None):
        self.who = who
        self.prepare = prepare
        self.observe = observe
        self.k = 0
        self.samples = []
        self.host_samples = []
        self.reason = None
        self.low_clock_discarded = 0  # samples dropped: SM clock under 75% of its default
        self.l2_persisting_bytes = 0  # largest persisting-L2 limit found before its samples
        self.cover_ms = []  # per sample: the launch cover's length (none without a cover)
        self.sm_mhz = []  # per kept sample: the SM clock read after it (dataset provenance)
        self.sm_default_mhz = None

    def next_call(self):
        call = self.prepare(self.k)
        self.k += 1
        return call


def measure_interleaved(contenders: list, device: torch.device, settings: dict, clock="open",
                        l2="open", cover="open") -> None:
    """Fills each contender's samples, host_samples and reason. `clock` reads the SM clock
    after each sample (default: NVML on CUDA, none on the CPU); a sample taken under 75% of the
    default SM clock is discarded. `l2` resets persisting L2 before each CUDA sample (default:
    the driver's, l2_persistence.py); the limit it finds is charged to the contender whose call
    came last (the one that could have raised it). `cover` runs before each CUDA sample's start
    event (default: a LaunchCover of settings' `launch_cover_us`; None: the start event fires on
    an idle GPU and the sample includes the launch latency)."""
    cuda = device.type == "cuda"
    if clock == "open":
        clock = SmClock.open(device) if cuda else None
    if l2 == "open":
        l2 = L2Persistence.open() if cuda else None
    if cover == "open":
        cover = LaunchCover.open(device, settings) if cuda else None
    last = None  # the contender whose call ran last

    def charge(contender) -> None:
        if l2 is not None:
            contender.l2_persisting_bytes = max(contender.l2_persisting_bytes, l2.reset())

    for contender in contenders:
        for _ in range(int(settings.get("warmup", 0))):
            contender.next_call()()
        charge(contender)
    if cuda:
        _synchronize(device)
        flush = torch.empty(2 * l2_bytes(device), dtype=torch.uint8, device=device)
        start_event, end_event = _Event(enable_timing=True), _Event(enable_timing=True)
    began = _clock()
    active = list(contenders)
    while active:
        for contender in list(active):
            call = contender.next_call()
            if last is not None:
                charge(last)
            if cuda:
                flush.zero_()
                # Host time must start on an idle device: the flush and prepare's input refill
                # (a 512 MiB copy takes 0.25 ms) are queued work that is not the call's.
                _synchronize(device)
                host_start = _clock()
                if cover is not None:
                    cover.start()
                start_event.record()
                output = call()
                end_event.record()
                _synchronize()  # every stream: work hidden from the events shows here
                host_ms = (_clock() - host_start) * 1e3
                if cover is not None:
                    contender.cover_ms.append(cover.elapsed_ms(start_event))
                    host_ms -= contender.cover_ms[-1]
                event_ms = start_event.elapsed_time(end_event)
            else:
                start = _clock()
                output = call()
                event_ms, host_ms = (_clock() - start) * 1e3, None
            mhz = clock.current_mhz() if clock is not None else None
            if clock is not None and too_slow(mhz, clock.default_mhz):
                contender.low_clock_discarded += 1
            else:
                contender.samples.append(event_ms)
                if mhz:
                    contender.sm_mhz.append(mhz)
                    contender.sm_default_mhz = clock.default_mhz
                if host_ms is not None:
                    contender.host_samples.append(host_ms)
            if contender.observe is not None:
                contender.observe(len(contender.samples) - 1, output)
            output = None
            last = contender
            contender.reason = stop_reason(contender.samples, _clock() - began, settings)
            if contender.reason:
                active.remove(contender)
    if last is not None:
        charge(last)


def timing_fields(contender: Contender, device: torch.device) -> dict:
    cuda = device.type == "cuda"
    return {"who": contender.who, "method": "cuda_event_cold_l2" if cuda else "wall_clock",
            "samples_ms": contender.samples,
            "host_samples_ms": contender.host_samples if cuda else None,
            "stop_reason": contender.reason, "low_clock_discarded": contender.low_clock_discarded,
            "l2_persisting_bytes": contender.l2_persisting_bytes,
            "launch_cover_ms": statistics.median(contender.cover_ms) if contender.cover_ms else 0.0,
            "sm_clock_mhz": statistics.median(contender.sm_mhz) if contender.sm_mhz else None,
            "sm_clock_default_mhz": contender.sm_default_mhz}

"""Several callables timed sample by sample in turn: the submission and its baselines.

Alternating each sample keeps clock, thermal and background drift alike on both sides of a
speedup. Each contender has its own input rotation and its own stopping rule (timing.py's);
every contender samples each round until the last has stopped (the first to stop keeps its
reason and goes on sampling, so no side is ever sampled alone). CUDA samples: L2 flush and
input rotation outside the timed region (finished before the sample starts), then a launch
cover (launch_cover.py: the start event waits behind it while the host enqueues the call, so
the host's launch latency stays out of the sample; fitted to each contender's call after its
warm-up), CUDA events around one call, host time to a device-wide synchronize beside it (less
the cover). CPU samples: wall-clock.

Each CUDA sample holds two placement pads of random sizes while its call runs: a kernel of a few
µs read up to 8% faster or slower by where its buffers lay (H200, session 14), and the caching
allocator gives a call's outputs the same place every time, so without them each side kept one
placement, luck of the draw, for all its samples. The pads move them sample by sample, alike on
both sides: sample i of the candidate (in the guest) and of each baseline (in the warden) holds
pads of the sizes drawn for i, whatever the case and whatever came before (a guest that drew
from one stream for all its cases gave each later case other sizes than the warden's, moved
by how many samples the earlier ones took).
"""

import gc
import random

import torch

from .l2_persistence import L2Persistence
from .launch_cover import RETAKES, LaunchCover
from ..protocol import phases
from ..protocol.request_check import timing_setting
from .sample_stats import median
from .sm_clock import SmClock, too_slow
from .timing import _Event, _clock, _synchronize, l2_bytes, stop_reason

PLACEMENT_SEED = 0x5EED  # sample i's pad sizes: drawn from PLACEMENT_SEED + i


class Sampler:
    """Takes one sample of a call in this process: the flush, the launch cover, the events and
    the host time around it. The guest takes its candidate's samples with one of its own."""

    def __init__(self, device: torch.device, settings: dict, l2="open", cover="open"):
        self.device = device
        self.cuda = device.type == "cuda"
        self.l2 = (L2Persistence.open() if self.cuda else None) if l2 == "open" else l2
        self.cover = (LaunchCover.open(device, settings) if self.cuda else None) if cover == "open" else cover
        self.enqueue_ms = 0.0  # the last CUDA sample's: from before its cover to its end event, on the host
        if self.cuda:
            _synchronize(device)
            self.flush = torch.empty(2 * l2_bytes(device), dtype=torch.uint8, device=device)
            self.start_event, self.end_event = _Event(enable_timing=True), _Event(enable_timing=True)

    def placement_pads(self, index: int) -> list:
        """Two allocations, one from each of the caching allocator's pools (blocks up to 1 MiB,
        and larger), of sizes drawn anew for each sample (512-byte steps, the allocator's):
        drawn from the sample's index, so sample i of every contender, in the warden or the
        guest, in any case and run, has pads of the same sizes."""
        draw = random.Random(PLACEMENT_SEED + index)
        small = draw.randrange(512, 1 << 20, 512)
        large = (1 << 20) + draw.randrange(512, 2 << 20, 512)
        return [torch.empty(size, dtype=torch.uint8, device=self.device) for size in (small, large)]

    def reset_l2(self) -> int:
        """The persisting-L2 limit found since the last reset (0 without the driver's calls)."""
        return self.l2.reset() if self.l2 is not None else 0

    def fit_cover(self, next_call, cap_us=None):
        """The cover length (µs) for the calls next_call() readies, at most `cap_us`; None
        without a cover."""
        if self.cover is None:
            return None
        return self.cover.fit_us(next_call, _clock, lambda: _synchronize(self.device), cap_us)

    def fit_enqueues_us(self) -> list:
        """The host's enqueue of each probe call of the last fit (µs, rounded): a long cover
        read against what its fit saw."""
        return [round(us, 1) for us in self.cover.fit_enqueues_us] if self.cover is not None else []

    def take_covered(self, next_call, cover_us, cap_us=None, index: int = 0) -> tuple:
        """((event_ms, host_ms, cover_ms, output), cover_us) of the call next_call() readies, the
        contender's sample `index`: a sample whose enqueue outlasted a fitted cover is taken
        again behind a longer one (at most `cap_us`); the cover returned is the one the kept
        sample had."""
        for attempt in range(RETAKES + 1):
            sample = self.take(next_call(), cover_us, index)
            retakes_left = attempt < RETAKES and self.cover is not None and sample[2] is not None
            longer = self.cover.longer_us(cover_us, self.enqueue_ms, sample[2], cap_us) if retakes_left else None
            if longer is None:
                return sample, cover_us
            cover_us = longer

    def take(self, call, cover_us=None, index: int = 0) -> tuple:
        """(event_ms, host_ms or None, cover_ms or None, output) of one call; `cover_us`: the
        launch cover's length (default: the settings'); `index`: the contender's sample number
        (its placement pads)."""
        # A collection inside a sample is the process's, not the call's: it differs between the
        # warden and the guest, and would bias one side.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._take(call, cover_us, index)
        finally:
            if collecting:
                gc.enable()

    def _take(self, call, cover_us, index):
        if not self.cuda:
            start = _clock()
            output = call()
            return (_clock() - start) * 1e3, None, None, output
        _pads = self.placement_pads(index)  # held until the sample is read, freed on return
        self.flush.zero_()
        # Host time must start on an idle device: the flush and prepare's input refill
        # (a 512 MiB copy takes 0.25 ms) are queued work that is not the call's.
        _synchronize(self.device)
        host_start = _clock()
        if self.cover is not None:
            self.cover.start(cover_us)
        self.start_event.record()
        output = call()
        self.end_event.record()
        self.enqueue_ms = (_clock() - host_start) * 1e3
        _synchronize()  # every stream: work hidden from the events shows here
        host_ms = (_clock() - host_start) * 1e3
        cover_ms = None
        if self.cover is not None:
            cover_ms = self.cover.elapsed_ms(self.start_event)
            host_ms -= cover_ms
        return self.start_event.elapsed_time(self.end_event), host_ms, cover_ms, output


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
        self.low_clock_discarded = 0  # samples dropped: SM clock under low_clock_fraction of its default
        self.l2_persisting_bytes = 0  # largest persisting-L2 limit found before its samples
        self.cover_ms = []  # per sample: the launch cover's length (none without a cover)
        self.sm_mhz = []  # per kept sample: the SM clock read after it (dataset provenance)
        self.sm_default_mhz = None
        self.cover_us = None  # the launch cover fitted to this contender's call (None: the settings')
        self.fit_enqueues_us = []  # its fit's probe enqueues (µs)

    def next_call(self):
        call = self.prepare(self.k)
        self.k += 1
        return call

    def warm_up(self, count: int, sampler: Sampler, cover_cap_us=None) -> None:
        """`count` calls, then the launch cover fitted to the call (at most `cover_cap_us`)."""
        for _ in range(count):
            self.next_call()()
        self.cover_us = sampler.fit_cover(self.next_call, cover_cap_us)
        self.fit_enqueues_us = sampler.fit_enqueues_us()

    def sample(self, sampler: Sampler, cover_cap_us=None) -> tuple:
        """(event_ms, host_ms, cover_ms, output) of the next call, its cover lengthened (at most
        `cover_cap_us`) while its enqueue outlasts it."""
        sample, self.cover_us = sampler.take_covered(self.next_call, self.cover_us, cover_cap_us,
                                                     index=len(self.samples))
        return sample

    def charge_l2(self, sampler: Sampler) -> None:
        """The limit a call of this contender may have raised, read (and reset) after it."""
        self.l2_persisting_bytes = max(self.l2_persisting_bytes, sampler.reset_l2())

    def record(self, sample, kept: bool, mhz=None, default_mhz=None) -> None:
        event_ms, host_ms, cover_ms, output = sample
        if cover_ms is not None:
            self.cover_ms.append(cover_ms)
        if not kept:
            self.low_clock_discarded += 1
        else:
            self.samples.append(event_ms)
            if mhz:
                self.sm_mhz.append(mhz)
                self.sm_default_mhz = default_mhz
            if host_ms is not None:
                self.host_samples.append(host_ms)
        if self.observe is not None:
            self.observe(len(self.samples) - 1, output)


def measure_interleaved(contenders: list, device: torch.device, settings: dict, clock="open",
                        l2="open", cover="open") -> None:
    """Fills each contender's samples, host_samples and reason. `clock` reads the SM clock
    after each sample (default: NVML on CUDA, none on the CPU); a sample taken under the
    settings' `low_clock_fraction` of the default SM clock is discarded. `l2` resets
    persisting L2 before each CUDA sample (default:
    the driver's, l2_persistence.py); the limit it finds is charged to the contender whose call
    came last (the one that could have raised it). `cover` runs before each CUDA sample's start
    event (default: a LaunchCover of settings' `launch_cover_us`; None: the start event fires on
    an idle GPU and the sample includes the launch latency). A contender in another process
    (the guest's candidate) takes its samples there and charges its own context's limit."""
    cuda = device.type == "cuda"
    if clock == "open":
        clock = SmClock.open(device) if cuda else None
    sampler = Sampler(device, settings, l2, cover)
    last = None  # the contender whose call ran last
    low_clock = float(timing_setting(settings, "low_clock_fraction"))

    # The baselines first: the candidate's cover may outlast its enqueue only as long as theirs
    # do, so host work of its own (say, the answer computed on the CPU) stays in its samples.
    # A candidate timed alone keeps the settings' cover.
    def candidates_cap(contender):
        """The longest cover a baseline has now (covers only lengthen), for the candidate."""
        if contender.who != "candidate":
            return None
        return max([float(timing_setting(settings, "launch_cover_us"))]
                   + [c.cover_us for c in contenders if c.who != "candidate" and c.cover_us])

    for contender in sorted(contenders, key=lambda c: c.who == "candidate"):
        contender.warm_up(int(timing_setting(settings, "warmup")), sampler, candidates_cap(contender))
        contender.charge_l2(sampler)
    began = _clock()
    # Every contender takes a sample each round until all have stopped, those stopped
    # included: a side left sampling alone read its call 2-4% faster than while the sides took
    # turns (KernelBenchX A/A, calls under 50 us, H200), so its later samples biased the ratio.
    # Where a round's time goes (phases, beside the job's other figures): each side's samples,
    # and the loop's own reads between them.
    while any(contender.reason is None for contender in contenders):
        for contender in contenders:
            start = _clock()
            if last is not None:
                last.charge_l2(sampler)
            charged = _clock()
            sample = contender.sample(sampler, candidates_cap(contender))
            sampled = _clock()
            mhz = clock.current_mhz() if clock is not None else None
            kept = clock is None or not too_slow(mhz, clock.default_mhz, low_clock)
            contender.record(sample, kept, mhz, clock.default_mhz if clock is not None else None)
            sample = None
            last = contender
            if contender.reason is None:
                contender.reason = stop_reason(contender.samples, _clock() - began, settings)
            phases.add("sample_l2", charged - start)
            phases.add("sample_candidate" if contender.who == "candidate" else "sample_baselines", sampled - charged)
            phases.add("sample_record", _clock() - sampled)
    if last is not None:
        last.charge_l2(sampler)


def timing_fields(contender: Contender, device: torch.device) -> dict:
    cuda = device.type == "cuda"
    return {"who": contender.who, "method": "cuda_event_cold_l2" if cuda else "wall_clock",
            "samples_ms": contender.samples,
            "host_samples_ms": contender.host_samples if cuda else None,
            "stop_reason": contender.reason, "low_clock_discarded": contender.low_clock_discarded,
            "l2_persisting_bytes": contender.l2_persisting_bytes,
            "launch_cover_ms": median(contender.cover_ms) if contender.cover_ms else 0.0,
            "cover_fit_enqueues_us": contender.fit_enqueues_us,
            "sm_clock_mhz": median(contender.sm_mhz) if contender.sm_mhz else None,
            "sm_clock_default_mhz": contender.sm_default_mhz}


def measure(prepare, device: torch.device, settings: dict, observe=None) -> dict:
    """prepare(k) readies the k-th call (warm-ups included) and returns it as a callable that
    returns the call's output; observe(i, output) runs after the i-th sample, untimed."""
    return measure_contender(Contender("candidate", prepare, observe), device, settings)


def measure_contender(contender, device: torch.device, settings: dict) -> dict:
    """The `timing` fields of one contender timed alone."""
    measure_interleaved([contender], device, settings)
    fields = timing_fields(contender, device)
    del fields["who"]
    return fields

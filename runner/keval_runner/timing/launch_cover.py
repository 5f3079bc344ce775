"""A launch cover: the GPU kept busy for a fixed stretch before each timed call's start event.

Without it, a sample starts on an idle GPU: the start event fires at once and the call's first
kernel only when the host has launched it, so the sample includes the host's launch latency
(Triton's Python launcher takes tens of µs, eager PyTorch's a few): a 300 µs kernel measured
5-15% slow, and against eager PyTorch unfairly so. With the cover, the start event waits
behind a spin kernel long enough for the host to enqueue the call, so the sample starts with
the call's first kernel, as in a busy stream.

The spin kernel fills every thread slot of every SM (all its blocks resident at once), so no
other stream's kernel can run beside it: work a submission hides on a side stream starts after
the cover, inside the host-time window, and the host/event cross-check still sees it.
The cover's own length (an event before it to the start event) is taken off the host time.

The cover is fitted to each call (`fit_us`): eager PyTorch code and peer glue (KernelBenchX's
perf template reseeds, flattens and checks its outputs on every call) can take longer to
enqueue than a fixed cover lasts, and then the GPU idles inside the sample while the host
catches up. Such a sample measured the host, not the kernels: two copies of one reference,
one in the guest and one in the warden, differed by up to 1.8x on the H200. A call that waits
for the GPU itself (a `.item()`, a synchronize) gets the plain cover: no cover can hide it.

A few probes can miss the enqueue's usual length (KernelBenchX's glue took 0.4 to 1.2 ms on one
call): a sample whose enqueue outlasted its fitted cover is taken again behind a longer one
(`longer_us`), so the kept samples are the covered ones, on both sides alike.
"""

import functools

import torch

from ..protocol.request_check import timing_setting

_Event = torch.cuda.Event

_THREADS_PER_BLOCK = 1024
# The longest cover a call can get. A call that takes longer than this to enqueue is measured
# with its host gaps in (and is host-bound anyway).
MAX_COVER_US = 5_000
# A call's enqueue is probed behind a cover this long first (three probes per contender and
# timed case, GPU time the device is held alone for): behind MAX_COVER_US only when it lasted
# nearly as long, to tell a slow enqueue from a call that waits for the GPU.
PROBE_COVER_US = 1_000
_FIT_PROBES = 3
MOST_FIT_PROBES = 2 * _FIT_PROBES  # two rounds at most: behind PROBE_COVER_US, then MAX_COVER_US
# A sample whose enqueue outlasted its cover is taken again at most this many times.
RETAKES = 3


@functools.lru_cache(maxsize=None)
def _spin_kernel():
    """One kernel object per process: Triton keeps its compiled binaries per object.

    Triton compiles a kernel again for an int argument that is, or is not, a multiple of 16
    (or is 1): fitted lengths are seldom multiples of 16 ns, so a process's first fitted cover
    would load a second binary inside a timed sample, whose enqueue then outlasts its cover
    and gets it lengthened for the rest of the case. One binary serves every length."""
    import triton
    import triton.language as tl

    @triton.jit(do_not_specialize=["duration_ns"])
    def _keval_launch_cover(duration_ns):
        start = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                                          is_pure=False, pack=1)
        now = start
        while now - start < duration_ns:
            now = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                                            is_pure=False, pack=1)

    return _keval_launch_cover


class LaunchCover:
    failure = None  # why the last open() gave None (for diagnostics and tests)

    def __init__(self, kernel, blocks: int, duration_ns: int):
        self._kernel, self._blocks, self._duration_ns = kernel, blocks, duration_ns
        self._begin = _Event(enable_timing=True)
        self.fit_enqueues_us = []  # the last fit's probe enqueues, every round's (diagnostics)

    @property
    def base_us(self) -> float:
        return self._duration_ns / 1000

    @classmethod
    def open(cls, device: torch.device, settings: dict):
        """A compiled cover for `device`, or None (cover off, or it cannot run here)."""
        cover_us = float(timing_setting(settings, "launch_cover_us"))
        if device.type != "cuda" or cover_us <= 0:
            cls.failure = "off"
            return None
        try:
            props = torch.cuda.get_device_properties(device)
            per_sm = int(getattr(props, "max_threads_per_multi_processor", 2048) or 2048)
            blocks = props.multi_processor_count * max(1, per_sm // _THREADS_PER_BLOCK)
            cover = cls(_spin_kernel(), blocks, int(cover_us * 1000))
            cover.start()  # compiles it
            torch.cuda.synchronize(device)
            cls.failure = None
            return cover
        except Exception as exc:
            cls.failure = f"{type(exc).__name__}: {exc}"
            return None

    def start(self, us=None) -> None:
        """Queues the cover on the current stream (an event first, to time it); `us`: its length
        (default: the settings' launch_cover_us)."""
        self._begin.record()
        duration_ns = self._duration_ns if us is None else int(us * 1000)
        self._kernel[(self._blocks,)](duration_ns, num_warps=_THREADS_PER_BLOCK // 32)

    def fit_us(self, next_call, clock, synchronize, cap_us=None) -> float:
        """The cover `next_call()`'s calls need: half as long again as the slowest of a few
        enqueues behind a probing cover (PROBE_COVER_US, then the longest when one lasted about
        as long), never under the base length nor over `cap_us`. The base length when an
        enqueue lasted as long as the longest cover: the call waits for the GPU."""
        self.fit_enqueues_us = []
        for probe_us in (max(PROBE_COVER_US, self.base_us), MAX_COVER_US):
            enqueues = self._enqueues_us(next_call, clock, synchronize, probe_us)
            self.fit_enqueues_us += enqueues
            slowest = max(enqueues)
            if slowest < 0.9 * probe_us:
                break
        if slowest >= 0.9 * MAX_COVER_US:
            return self.base_us
        return min(max(self.base_us, 1.5 * slowest + 20), self._longest_us(cap_us))

    def _longest_us(self, cap_us) -> float:
        """The longest cover a call may get: MAX_COVER_US, or `cap_us` within [base, MAX]."""
        return MAX_COVER_US if cap_us is None else max(self.base_us, min(cap_us, MAX_COVER_US))

    def _enqueues_us(self, next_call, clock, synchronize, probe_us: float) -> list:
        enqueues = []
        for _ in range(_FIT_PROBES):
            call = next_call()
            synchronize()
            self.start(probe_us)
            began = clock()
            call()
            enqueues.append((clock() - began) * 1e6)
            synchronize()
        return enqueues

    def longer_us(self, cover_us, enqueue_ms: float, cover_ms: float, cap_us=None):
        """The cover the next try needs when a sample's enqueue (host, from before the cover to
        the end event) outlasted its cover (GPU, to the start event), or None: it did not, the
        cover is the plain one (a quick call, or one that waits for the GPU), or it is already
        as long as it may be (`cap_us`, MAX_COVER_US)."""
        if cover_us is None or cover_us <= self.base_us or enqueue_ms <= cover_ms:
            return None
        longest = self._longest_us(cap_us)
        if cover_us >= longest:
            return None
        return min(longest, max(1.5 * enqueue_ms * 1e3 + 20, 1.25 * cover_us))

    def elapsed_ms(self, start_event) -> float:
        """From the cover's start to `start_event` (recorded right after it); after a sync."""
        return self._begin.elapsed_time(start_event)

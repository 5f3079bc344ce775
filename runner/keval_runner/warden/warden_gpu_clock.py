"""The warden's clock for a process it times on CUDA: its own events around a gate it opens and
a `done` it waits for, both words in host memory the two processes share (clock_words.py).

One timed call: the warden sends `go n`; the timed process enqueues, on its stream, a wait for
the gate to reach n, its call, copies of its outputs into the warden's output slots and a write
of n into `done`, then answers. Only then does the warden enqueue, on its own stream: the fresh
inputs written into the buffers the call reads (so no work of the process can start on them
earlier), the L2 flush and its start event; then it opens the gate, waits for `done`, records
its end event and copies the slots into its own memory. The sample is the two events' interval
less what a call that does nothing costs this way (the calibration). A call that waits for the
GPU itself (a `.item()`, a synchronize) cannot answer while its work waits behind the gate:
after `GATE_WAIT_S` the warden opens the gate first and the call's host time is then in its
samples.

Who opens the gate and sees `done` (KEVAL_CLOCK_GATE): `host`, the warden's host,
once its start event has run, and by a spin on the word before the end event is recorded, so no
stream ever waits on another context's work; `stream` (the default), the warden's own stream (a
write after the start event, a wait before the end event), which adds no host latency to the
sample but needs the GPU to run the warden's context while the other waits (it does on an H100:
its A/A spread about half the host gate's, bench/runs/2026-12-05-session-31.md and -33.md).

Why a process cannot shorten its sample: the inputs exist only from just before the start
event; the clock stops at `done`, and the slots are copied by the warden's next kernels, so
work left for after `done` is not in them (a mismatch). Two processes' contexts take the GPU's
compute engine in turns (time-slicing, no MPS), so none of the timed process's kernels runs
between the warden's end event and its copies. The copies in both directions are kernels, not
copy-engine transfers, for the same reason: a copy engine runs beside the other context's
kernels.
"""

import os
import time

import torch

from ..device import stream_flags
from ..device.clock_words import DONE, GATE, ClockWords
from ..guest.guest_process import GuestMisbehaved
from ..timing.timing import l2_bytes

GATE_WAIT_S = 0.25  # longer than any call takes to enqueue unless it waits for the GPU
GATE_BY = os.environ.get("KEVAL_CLOCK_GATE") or "stream"  # "stream" or "host" (the module says how)
_POLL_S = 50e-6
_SPIN_S = 0.05  # the host spins on `done` this long before it sleeps between looks
_INT_OF_SIZE = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def copy_by_kernel(target: torch.Tensor, value: torch.Tensor) -> None:
    """target[...] = value by an elementwise kernel (never the copy engine, see the module)."""
    as_int = _INT_OF_SIZE.get(target.element_size())
    if as_int is None or target.dtype != value.dtype:
        target.copy_(value)
        return
    torch.bitwise_or(value.view(as_int), 0, out=target.view(as_int))


class GpuClock:
    """The clock words, events and flush buffer for one timed process."""

    def __init__(self, device: torch.device, done_wait_s: float, gate_by: str = GATE_BY):
        if gate_by not in ("host", "stream"):
            raise ValueError(f"KEVAL_CLOCK_GATE is {gate_by!r}: host or stream")
        self.device = device
        self.done_wait_s = done_wait_s  # the longest a timed call may run before its process is judged stuck
        self.gate_by = gate_by
        self.n = 0
        self.stream = torch.cuda.current_stream(device)
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.finished = torch.cuda.Event()
        self.flush = torch.empty(2 * l2_bytes(device), dtype=torch.uint8, device=device)
        self.words = ClockWords()  # registered with the context the flush buffer made current
        self.gate = self.words.register()
        self.done = self.gate + 4

    def gate_request(self) -> tuple:
        """(header, fds) that maps the words in the timed process."""
        return self.words.gate_request()

    def next_number(self) -> int:
        self.n += 1
        return self.n

    def open(self, n: int, before=None, flush: bool = True) -> None:
        """The inputs' writing (`before`), the flush, the start event, then the gate's n-th
        opening: by the host once the start event has run, or enqueued after it."""
        with torch.cuda.stream(self.stream):
            if before is not None:
                before()
            if flush:
                self.flush.zero_()
            self.start.record()
            if self.gate_by == "stream":
                stream_flags.write(self.stream, self.gate, n)
                return
        self.start.synchronize()
        self.words.set(GATE, n)

    def release(self, n: int) -> None:
        """Opens the gate with no clock (a call that failed: its stream must not stay blocked)."""
        self.words.set(GATE, n)

    def close(self, n: int, after=None) -> None:
        """`done` = n awaited (by the host, or enqueued), then the end event and the slots'
        copies (`after`)."""
        if self.gate_by == "host":
            self._await_done(n)
        with torch.cuda.stream(self.stream):
            if self.gate_by == "stream":
                stream_flags.wait_at_least(self.stream, self.done, n)
            self.end.record()
            if after is not None:
                after()
            self.finished.record()

    def _await_done(self, n: int) -> None:
        """Spins, then polls, until `done` reaches n; a process that never writes it is stuck
        or cheating."""
        started = time.monotonic()
        while not self.words.reached(DONE, n):
            waited = time.monotonic() - started
            if waited > self.done_wait_s:
                self._never_done(n)
            if waited > _SPIN_S:
                time.sleep(_POLL_S)

    def _never_done(self, n: int) -> None:
        gate, done = self.words.read()
        self.words.set(GATE, max(gate, n))  # a process still waiting at the gate goes on
        self.words.set(DONE, n)  # the warden's stream, if it waits on it, goes on
        self.finished.synchronize()
        raise GuestMisbehaved(f"a timed call's end (done {n}) never came; the words read gate {gate}, done {done}")

    def elapsed_ms(self, n: int) -> float:
        """The n-th call's interval, once the copies after it are done."""
        deadline = time.monotonic() + self.done_wait_s
        while not self.finished.query():
            if time.monotonic() > deadline:
                self._never_done(n)
            time.sleep(_POLL_S)
        return self.start.elapsed_time(self.end)

    def close_words(self) -> None:
        self.stream.synchronize()
        self.words.close()

"""The warden's clock for a process it times on CUDA: its own events around a gate it opens and
a `done` it waits for, both words in its memory (stream_flags.py).

One timed call: the warden sends `go n`; the timed process enqueues, on its stream, a wait for
the gate to reach n, its call, copies of its outputs into the warden's output slots and a write
of n into `done`, then answers. Only then does the warden enqueue, on its own stream: the fresh
inputs written into the buffers the call reads (so no work of the process can start on them
earlier), the L2 flush, its start event, the gate opened, a wait for `done`, its end event, and
copies of the slots into its own memory. The sample is the two events' interval less what a
call that does nothing costs this way (the calibration). A call that waits for the GPU itself
(a `.item()`, a synchronize) cannot answer while its work waits behind the gate: after
`GATE_WAIT_S` the warden opens the gate first and the call's host time is then in its samples.

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

from . import stream_flags
from .guest_process import GuestMisbehaved
from .shared_call import SharedCall
from .timing import l2_bytes

GATE_WAIT_S = 0.25  # longer than any call takes to enqueue unless it waits for the GPU
DONE_WAIT_S = float(os.environ.get("KEVAL_DONE_WAIT_S") or 120.0)  # the longest a timed call may run before its process is judged stuck
_POLL_S = 50e-6
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

    def __init__(self, device: torch.device):
        self.device = device
        self.words = SharedCall((torch.zeros(2, dtype=torch.int32, device=device),), 0)
        address = self.words.args[0].data_ptr()
        self.gate, self.done = address, address + 4
        self.n = 0
        self.stream = torch.cuda.current_stream(device)
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.finished = torch.cuda.Event()
        self.flush = torch.empty(2 * l2_bytes(device), dtype=torch.uint8, device=device)
        self.synchronizing = False  # the last call waited for the GPU before answering

    def gate_request(self) -> tuple:
        """(header, fds) that maps the words in the timed process."""
        return {"op": "gate", "args": self.words.fields}, self.words.fds

    def next_number(self) -> int:
        self.n += 1
        return self.n

    def open(self, n: int, before=None, flush: bool = True) -> None:
        """Enqueues the inputs' writing (`before`), the flush, the start event and the gate's
        n-th opening."""
        with torch.cuda.stream(self.stream):
            if before is not None:
                before()
            if flush:
                self.flush.zero_()
            self.start.record()
            stream_flags.write(self.stream, self.gate, n)

    def release(self, n: int) -> None:
        """Opens the gate with no clock (a call that failed: its stream must not stay blocked)."""
        stream_flags.write(self.stream, self.gate, n)

    def close(self, n: int, after=None) -> None:
        """Enqueues the wait for `done` = n, the end event and the slots' copies (`after`)."""
        with torch.cuda.stream(self.stream):
            stream_flags.wait_at_least(self.stream, self.done, n)
            self.end.record()
            if after is not None:
                after()
            self.finished.record()

    def elapsed_ms(self, n: int) -> float:
        """The n-th call's interval, once the copies after it are done. A process that never
        writes `done` is stuck or cheating: the warden's stream is released and it misbehaved."""
        deadline = time.monotonic() + DONE_WAIT_S
        while not self.finished.query():
            if time.monotonic() > deadline:
                words = self.read_words()
                side = torch.cuda.Stream(self.device)
                stream_flags.write(side, self.done, n)
                self.finished.synchronize()
                raise GuestMisbehaved(f"a timed call's end (done {n}) never came; the words read gate "
                                      f"{words[0]}, done {words[1]}")
            time.sleep(_POLL_S)
        return self.start.elapsed_time(self.end)

    def read_words(self) -> list:
        """The gate and done words as they are now, read on a stream of their own (the clock's
        may be waiting)."""
        side = torch.cuda.Stream(self.device)
        host = torch.empty(2, dtype=torch.int32, pin_memory=True)
        with torch.cuda.stream(side):
            host.copy_(self.words.args[0], non_blocking=True)
        side.synchronize()
        return host.tolist()

    def close_words(self) -> None:
        self.words.close()

"""A process the warden times on CUDA: each timed call clocked by the warden's events around the
gate it opens (warden_gpu_clock.py), the process stopped once it has answered.

A call that waits for the GPU inside itself cannot answer while its work waits behind the gate;
a key whose calls twice in a row did not answer within GATE_WAIT_S gets its gate opened before
the answer from then on (its samples then hold its host time), the first calls' compiles and
autotuning aside.
"""

import torch

from ..guest.guest_process import GuestMisbehaved
from ..protocol.errors import DeviceError
from ..protocol.request_check import timing_setting
from .warden_gpu_clock import GATE_WAIT_S, GpuClock
from .warden_timed_candidate import CALIBRATION_CALLS, TimedGuest

SLOW_ANSWERS_TO_OPEN_FIRST = 2
CALIBRATION_WAIT_S = 20.0  # a null call's round trip, before the submission loads


class GpuTimedGuest(TimedGuest):
    def __init__(self, guest, device, settings: dict, cgroup=None, clock=None):
        super().__init__(guest, cgroup)
        self.clock = clock or GpuClock(device, float(timing_setting(settings, "done_wait_s")))
        header, fds = self.clock.gate_request()
        if not guest.ask(header, fds)[0].get("ok"):
            raise GuestMisbehaved("the clock's words were refused")
        self.slow_answers = {}  # key -> timed calls in a row that answered only after the gate
        self.opened_first = set()  # keys whose gate opens before their answer

    def round_trip(self, key: str, who=None, before=None, after=None, flush: bool = False) -> tuple:
        """(reply, ms) of one call clocked on the GPU; ms is None when the call failed.
        `before` writes the call's inputs (enqueued once the process has answered), `after`
        copies its outputs out of the slots."""
        self.resume()
        n = self.clock.next_number()
        header = {"op": "go", "key": key, "n": n}
        if who is not None:
            header["who"] = who
        self.guest.send_request(header)
        first = key in self.opened_first or not self.guest.replied_within(GATE_WAIT_S)
        if first:
            self.clock.open(n, before, flush)
        reply, _, _ = self.guest.reply_to("go")
        self.stop()
        self.parked_last = self.park_others()
        self._count_answer(key, first)
        if not reply.get("ok"):
            if not first:
                self.clock.release(n)
            return reply, None
        if not first:
            self.clock.open(n, before, flush)
        self.clock.close(n, after)
        return reply, self.clock.elapsed_ms(n)

    def calibrate(self, calls: int = CALIBRATION_CALLS) -> float:
        """As TimedGuest's, each round trip given CALIBRATION_WAIT_S: only keval's code has run in
        the process yet, so a gate that never answers is this device's fault, not a submission's
        (a DeviceError naming the way back to the guest's clock)."""
        wait, self.clock.done_wait_s = self.clock.done_wait_s, min(self.clock.done_wait_s, CALIBRATION_WAIT_S)
        try:
            return super().calibrate(calls)
        except GuestMisbehaved as exc:
            raise DeviceError("WardenClock", f"the warden's CUDA clock got no answer through its {self.clock.gate_by} "
                              f"gate on this device ({exc}); KEVAL_CLOCK_GATE=host, or KEVAL_CUDA_CLOCK=guest "
                              "(the request's cuda_clock), times without it") from exc
        finally:
            self.clock.done_wait_s = wait

    def calibration_argument(self):
        """On the GPU: the calibration's call launches one kernel there (null_call), so the
        switch of the GPU to the timed process's context, which every call needs and a call of
        stream operations alone does not (290 us against 16 us on an H100), is calibrated out."""
        return torch.zeros(1, device=self.clock.device)

    def _count_answer(self, key: str, slow: bool) -> None:
        self.slow_answers[key] = self.slow_answers.get(key, 0) + 1 if slow else 0
        if self.slow_answers[key] >= SLOW_ANSWERS_TO_OPEN_FIRST:
            self.opened_first.add(key)

    def opens_first(self, key: str) -> bool:
        return key in self.opened_first

    def close(self) -> None:
        self.clock.close_words()

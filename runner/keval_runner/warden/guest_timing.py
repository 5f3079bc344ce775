"""The candidate as a contender of the interleaved timing loop, its samples taken in the guest.

The warden runs the loop: its baselines' samples are its own, the candidate's are asked of the
guest one at a time, so both sides still alternate sample by sample. The SM clock check and
the stopping rule are the warden's; the candidate's event and host times, its timed-output
checks and its persisting-L2 limit are what the guest reports (evidence: docs/trust.md).
"""

import math

from ..protocol import phases
from ..timing.interleaved_timing import Contender
from ..timing.launch_cover import MOST_FIT_PROBES


class GuestCallFailed(Exception):
    """The guest reported a failed call while timing (reply: its `error` fields)."""

    def __init__(self, reply: dict):
        super().__init__("the candidate failed while timed")
        self.reply = reply


def _time(value, name: str, optional: bool = False):
    """A time the guest reported (ms or µs): a finite number of 0 or more, else it misbehaved."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        from ..guest.guest_process import GuestMisbehaved
        raise GuestMisbehaved(f"sample field {name} is not a time: {str(value)[:50]}")
    return float(value)


def guest_count(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


class GuestContender(Contender):
    def __init__(self, job, key: str, shared_sets: list, where: dict):
        super().__init__("candidate", prepare=None)
        self.job, self.key, self.shared_sets, self.where = job, key, shared_sets, where
        self.checks = self.mismatches = 0

    def _ask(self, header: dict) -> dict:
        reply, _, _ = self.job.ask(header, stage="timing", where=self.where)
        if not reply["ok"]:
            raise GuestCallFailed(reply)
        self.l2_persisting_bytes = max(self.l2_persisting_bytes, guest_count(reply.get("l2_persisting_bytes")))
        return reply

    def warm_up(self, count: int, sampler, cover_cap_us=None) -> None:
        """The guest warms its call up, then fits its launch cover to it (kept for its samples)."""
        reply = self._ask({"op": "warm_up", "key": self.key, "count": count, "cover_cap_us": cover_cap_us})
        enqueues = reply.get("fit_enqueues_us")
        # the guest's word, shown beside its cover (kept only when it is a few times)
        if isinstance(enqueues, list) and len(enqueues) <= MOST_FIT_PROBES:
            self.fit_enqueues_us = [_time(us, "fit_enqueues_us") for us in enqueues]

    def sample(self, sampler, cover_cap_us=None) -> tuple:
        reply = self._ask({"op": "sample", "key": self.key, "k": self.k, "index": len(self.samples),
                           "cover_cap_us": cover_cap_us})
        self.k += 1
        self.checks, self.mismatches = guest_count(reply.get("checks")), guest_count(reply.get("mismatches"))
        # the guest's word on its part of the round trip: diagnostics only
        phases.add("guest_sample", (_time(reply.get("handler_ms"), "handler_ms", optional=True) or 0.0) / 1e3)
        phases.add("guest_check", (_time(reply.get("check_ms"), "check_ms", optional=True) or 0.0) / 1e3)
        # The reported cover is not checked against the cap: its measured length includes any
        # other process's kernels queued before it (47 ms beside the hostile suite's busy jobs).
        return (_time(reply.get("event_ms"), "event_ms"),
                _time(reply.get("host_ms"), "host_ms", optional=True),
                _time(reply.get("cover_ms"), "cover_ms", optional=True), None)

    def charge_l2(self, sampler) -> None:
        """The guest resets its own context's limit before each sample and reports it."""

    def inputs(self) -> list:
        return [t for _, shared in self.shared_sets for t in shared.inputs]

    def check_fields(self) -> dict:
        return {"timed_output_checks": self.checks, "timed_output_mismatches": self.mismatches,
                "input_sets": len(self.shared_sets)}

    def release(self) -> None:
        for _, shared in self.shared_sets:
            shared.close()

"""The candidate timed by the warden's clock, its timed outputs checked by the warden (CPU mode;
on CUDA through the warden's gate, gpu_timed_guest.py).

Each sample: the warden draws a fresh input set for each of the sample's calls (timed_calls.py)
from seeds the guest has never seen (drawn from this job's secret stream), writes them into the
buffers the guest has mapped, then times one round trip: `go` sent, the answer read, the guest
stopped (guest_stop.py). The sample is that round trip less the round trip of a call that does
nothing (`calibrate`, before the submission loaded; `recalibrate`, beside the samples), over
the calls. With the guest stopped, the warden reads each call's outputs out of the guest's
memory (guest_memory.py) and compares them with the reference's on the same set within the
case's tolerance, checks the inputs unchanged, and counts the processes the guest has beside
itself. Nothing the guest says is a time or a check: it only says where its outputs lie.

What the guest can still gain: the round trip's fixed cost, if it answers faster than keval's
own handler (tens of µs: docs/trust.md).
"""

import pickle
import secrets
import time

import torch

from ..guest import guest_stop
from ..protocol import phases
from ..checks.checks import map_tensors, span_elements
from ..compare.compare import tensors_identical, within_tolerance
from ..handoff.guest_memory import GuestMemoryUnreadable, read_into
from ..guest.guest_process import GuestGone, GuestMisbehaved
from ..guest.guest_timed_call import CALIBRATION_KEY
from .guest_timing import GuestCallFailed
from ..inputs.inputs import _draw, draws_on_device, tensors_in, to_device
from ..timing.interleaved_timing import Contender
from ..protocol.request_check import timing_setting
from ..timing.sample_stats import median
from ..handoff.shared_call import SharedCall
from ..handoff.shared_args import dtype_from_name
from .timed_calls import calls_per_sample
from .warden_gpu_clock import copy_by_kernel

_clock = time.perf_counter
CALIBRATION_CALLS = 31
FLOOR_MS = 1e-3  # a sample is never below 1 µs: a ratio to 0 would be infinite


class TimedGuest:
    """The guest as the warden times it: one `go` round trip up to the guest stopped, and the
    guest resumed before anything else is asked of it."""

    def __init__(self, guest, cgroup=None):
        self.guest, self.cgroup = guest, cgroup
        self.stopped = False
        self.overhead_ms = 0.0
        self.parked_last = 0  # processes parked after the last round trip

    def resume(self) -> None:
        if self.stopped:
            if self.cgroup is not None:
                self.cgroup.thaw()
            guest_stop.resume(self.guest.pid)
            self.stopped = False

    def ask(self, header: dict, fds=()) -> dict:
        """A request other than a timed call (the process resumed first): its reply."""
        self.resume()
        return self.guest.ask(header, fds)[0]

    def round_trip(self, key: str, who=None) -> tuple:
        """(reply, milliseconds from `go` to the guest stopped)."""
        self.resume()
        header = {"op": "go", "key": key} if who is None else {"op": "go", "key": key, "who": who}
        start = _clock()
        reply, _, _ = self.guest.ask(header)
        self.stop()
        elapsed = (_clock() - start) * 1e3
        self.parked_last = self.park_others()
        return reply, elapsed

    def stop(self) -> None:
        """The process stopped (it has answered): nothing of it runs until it is resumed."""
        try:
            guest_stop.stop(self.guest.pid)
        except guest_stop.GuestDied as exc:
            self.guest.reaped_status = exc.status
            raise GuestGone("the guest ended after a timed call") from exc
        self.stopped = True

    def park_others(self) -> int:
        """Parks every process of the guest's beside itself (guest_cgroup.py): none runs again
        while the job times, so none can work after the guest's answer or beside a baseline.
        How many it found."""
        if self.cgroup is None:
            return 0
        found = self.cgroup.others(self.guest.pid)
        if found:
            self.cgroup.park(found)
        return len(found)

    def calibration_argument(self) -> torch.Tensor:
        return torch.zeros(1)

    def calibrate(self, calls: int = CALIBRATION_CALLS) -> float:
        """The median round trip of a call that does nothing, before the submission loads: what
        each sample's round trip costs beside its call."""
        self.overhead_ms = self._null_round_trips(calls)
        return self.overhead_ms

    def recalibrate(self, calls: int = CALIBRATION_CALLS) -> float:
        """The null round trip again, where the samples are taken (the device alone, the cores
        pinned as for them), and the smaller of the two kept: the first could run while another
        job's work shared the device, and each µs it took too many comes off every sample. A
        submission that slows these calls on purpose only keeps the first figure; one that
        makes them quicker than keval's handler takes less off its own samples."""
        self.overhead_ms = min(self.overhead_ms, self._null_round_trips(calls))
        return self.overhead_ms

    def _null_round_trips(self, calls: int) -> float:
        shared = SharedCall((self.calibration_argument(),), 0)
        try:
            reply = self.ask({"op": "arm", "key": CALIBRATION_KEY, "args": shared.fields}, shared.fds)
            if not reply["ok"]:
                raise GuestMisbehaved("the calibration's buffers were refused")
            times = []
            for _ in range(calls):
                reply, elapsed = self.round_trip(CALIBRATION_KEY)
                if not reply["ok"]:
                    raise GuestMisbehaved("the calibration's call failed")
                times.append(elapsed)
            self.ask({"op": "drop", "key": CALIBRATION_KEY})
        finally:
            shared.close()
        return median(times)


def read_output(pid: int, described, like: torch.Tensor, span_factor: float):
    """The output the guest says lies at described["address"], read from its memory, shaped as
    it says; None when the description does not fit the reference's output `like` (another
    dtype, shape or device, strides out of range) or cannot be read."""
    try:
        dtype = dtype_from_name(described["dtype"])
        shape, stride, address = list(described["shape"]), list(described["stride"]), int(described["address"])
    except (KeyError, TypeError, ValueError):
        return None
    if described.get("device") != "cpu" or dtype != like.dtype or shape != list(like.shape):
        return None
    if len(stride) != len(shape) or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in stride):
        return None
    elements = span_elements(shape, stride)
    if elements > span_factor * max(1, like.numel()):
        return None
    size = torch.empty(0, dtype=dtype).element_size()
    raw = bytearray(elements * size)
    if raw:
        try:
            read_into(pid, address, raw)
        except GuestMemoryUnreadable:
            return None
    flat = torch.frombuffer(raw, dtype=torch.uint8).view(dtype) if raw else torch.empty(0, dtype=dtype)
    return flat.as_strided(shape, stride)


def slot_copy_ms(slots: list, calls: int = 11) -> float:
    """The median time (ms, the warden's events) of copying outputs of the slots' layout into
    them, as the timed process does in each timed call."""
    sources = [torch.zeros_like(slot) for slot in slots]
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(calls):
        start.record()
        for slot, source in zip(slots, sources):
            slot.copy_(source)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return median(times)


def retime_slot_copies(contenders: list, calls: int = 21, timer=slot_copy_ms) -> None:
    """One case's output copy timed where its samples are taken (the device alone), one figure
    for every contender the warden times on CUDA. A figure per contender, taken as the case was
    prepared, could share the device with another slot's work, and its error came off all that
    contender's samples (the likeliest source of A/A offsets of up to 2.6% a case on an H100,
    session 35). They copy the same layout (the reference's) with the same code, so one figure
    is both the truer and the same on every side."""
    timed = [c for c in contenders if isinstance(c, WardenTimedContender) and c.gpu and c.slot_like]
    if not timed:
        return
    ms = timer(timed[0].slot_like, calls)
    for contender in timed:
        contender.slot_copy_ms = ms


def _bytes_of(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors_in(tuple(tensors)))


def _plain_values(args) -> bytes:
    """What of a call's arguments is not a tensor (tensors left out), as bytes to compare."""
    return pickle.dumps(map_tensors(args, lambda t: None))


class BaselineCallFailed(Exception):
    """A baseline failed in its own process while timed."""


class WardenTimedContender(Contender):
    """One contender of one case, sampled by the warden as the module says: fresh inputs each
    call, written into the buffers its process maps, a round trip up to that process stopped,
    less the round trip calibrated before anything untrusted ran there. A sample holds
    `calls` calls on sets of their own (timed_calls.py), its time theirs over that count."""

    def __init__(self, who: str, job, timed: TimedGuest, case: dict, key: str, arm, inplace: bool = False):
        super().__init__(who, prepare=None)
        self.reference, self.inplace = job.reference_fn, inplace
        self.checking = bool(job.checks["timed_output_check"])
        self.drawn = 0  # fresh input sets drawn, one a call
        self.side = "candidate" if who == "candidate" else "baseline"  # its phases' prefix
        self.job, self.timed, self.case, self.key = job, timed, case, key
        self.settings = job.request.get("timing") or {}
        self.seeds = secrets.SystemRandom()
        self.arm, self.shared = arm, None
        # CUDA: the outputs' slots (the reference's layout), one set a call, the warden's copies
        self.gpu = getattr(timed, "clock", None) is not None
        self.slot_like, self.snapshots, self.slot_copy_ms = [], [], 0.0
        first = self._fresh()
        expected = self._expected(first)
        self.calls = calls_per_sample(_bytes_of(first) + _bytes_of(expected), self.settings)
        if self.gpu:
            self._shape_slots(expected)
        self._arm([first] + [self._fresh() for _ in range(self.calls - 1)])

    def _arm(self, sets: list) -> None:
        """Buffers of the sets' layout that its process maps, one set a call, their values in
        them (on CUDA zeros: a call's values are written only once its process has answered,
        and each call's output slots)."""
        if self.shared is not None:
            self.shared.close()
        self.plains, self.arg_count = [_plain_values(fresh) for fresh in sets], len(sets[0])
        values = tuple(value for fresh in sets for value in fresh)
        if self.gpu:
            slots = tuple(torch.empty_like(like) for _ in sets for like in self.slot_like)
            values = tuple(map_tensors(values, torch.zeros_like)) + slots
        self.shared = SharedCall(values, 0)
        header = {"op": "arm", "key": self.key, "args": self.shared.fields}
        if self.gpu:
            header["slots"] = len(self.slot_like) * len(sets)
        if len(sets) > 1:
            header["calls"] = len(sets)
        reply = self.arm(header, self.shared.fds)
        if not reply["ok"]:
            self.shared.close()
            self.failed(reply)

    def _shape_slots(self, expected: list) -> None:
        """Slots of the reference's output layout (dense) and the warden's copies of each call's;
        what copying one call's outputs costs is timed with the device alone, right before the
        samples (retime_slot_copies)."""
        self.slot_like = [torch.empty(ref.shape, dtype=ref.dtype, device=ref.device) for ref in expected]
        self.snapshots = [torch.empty_like(slot) for _ in range(self.calls) for slot in self.slot_like]

    def call_args(self, call: int = 0) -> tuple:
        return tuple(self.shared.args[call * self.arg_count:(call + 1) * self.arg_count])

    def failed(self, reply: dict):
        raise BaselineCallFailed(f"{self.who}: {str((reply.get('error') or {}).get('message', ''))[:300]}")

    def _fresh(self) -> tuple:
        """A set drawn from a seed nobody else holds; where the job draws (on its device in
        keval's own format: a GPU draws a 1 GiB set in milliseconds, a CPU in seconds)."""
        seed = self.seeds.randrange(1 << 31)
        self.drawn += 1
        where = self.job.device if draws_on_device(self.job.request) else None
        return tuple(to_device(arg, self.job.device, fresh=True)
                     for arg in _draw(self.job.make_inputs, self.case, seed, where))

    def _refill(self, sets: list) -> None:
        for call, fresh in enumerate(sets):
            targets, values = tensors_in(self.call_args(call)), tensors_in(fresh)
            if [(t.shape, t.stride(), t.dtype) for t in targets] != [(v.shape, v.stride(), v.dtype) for v in values]:
                raise ValueError("make_inputs gave this case's seeds different layouts")
            with torch.no_grad():
                for target, value in zip(targets, values):
                    if self.gpu:
                        copy_by_kernel(target, value)
                    else:
                        target.copy_(value)

    def _snapshot(self) -> None:
        """The slots copied into the warden's memory (enqueued right after its end event)."""
        for snapshot, slot in zip(self.snapshots, self.shared.args[self.arg_count * self.calls:]):
            copy_by_kernel(snapshot, slot)

    def _call(self) -> tuple:
        """(reply, ms) of one sample's calls, each on a fresh set, and the sets."""
        start = _clock()
        sets = [self._fresh() for _ in range(self.calls)]
        who = None if self.who == "candidate" else self.who
        if [_plain_values(fresh) for fresh in sets] != self.plains:  # a value that is no tensor
            self._arm(sets)  # changed (TritonBench's inputs are a seed): armed anew
        elif not self.gpu:
            self._refill(sets)
        phases.add(f"{self.side}_prepare", _clock() - start)
        if self.gpu:  # the values written only once the process has answered
            reply, elapsed = self.timed.round_trip(self.key, who, before=lambda: self._refill(sets),
                                                   after=self._snapshot, flush=True)
        else:
            reply, elapsed = self.timed.round_trip(self.key, who)
        if not reply["ok"]:
            self.failed(reply)
        phases.add(f"{self.side}_round_trip", elapsed / 1e3)
        return reply, elapsed, sets

    def warm_up(self, count: int, sampler, cover_cap_us=None) -> None:
        for _ in range(count):
            self._call()

    def sample(self, sampler, cover_cap_us=None) -> tuple:
        reply, elapsed, sets = self._call()
        self.k += 1
        if self.checking:
            start = _clock()
            self.after_call(reply, sets)
            phases.add(f"{self.side}_check", _clock() - start)
        calls_ms = elapsed - self.timed.overhead_ms - self.calls * self.slot_copy_ms
        return max(calls_ms / self.calls, FLOOR_MS), None, None, None

    def after_call(self, reply: dict, sets: list) -> list:
        """Whether each call's outputs agree with the reference's on its fresh inputs (read with
        its process stopped) and its inputs are unchanged. Every contender is checked alike:
        the warden's work between two calls is then the same before each side's call (a check
        after the candidate's calls only had slowed the baselines' by 18%, KernelBenchX's
        fixture on this project's CPU machine)."""
        expected = [self._expected(fresh) for fresh in sets]
        outputs = self._outputs(reply.get("outputs"), expected)
        return [outs is not None and self._outputs_agree(outs, exp) and self._inputs_unchanged(call, fresh)
                for call, (outs, exp, fresh) in enumerate(zip(outputs, expected, sets))]

    def _expected(self, fresh: tuple) -> list:
        from ..compare.compare import as_output_list
        with torch.no_grad():
            private = tuple(to_device(arg, self.job.device, fresh=True) for arg in fresh)
            return [t.detach() for t in as_output_list(self.reference(*private))]

    def _outputs(self, described, expected: list) -> list:
        """Each call's outputs (None for a call whose outputs cannot be had): on CUDA the slots
        as the warden copied them right after its end event, on the CPU read out of the
        stopped process where the answer says they lie."""
        counts = [len(exp) for exp in expected]
        flat = None
        if self.gpu:
            if described == "slots" and sum(counts) == len(self.snapshots):
                flat = list(self.snapshots)
        elif isinstance(described, list) and len(described) == sum(counts) and all(isinstance(d, dict) for d in described):
            span = float(timing_setting(self.settings, "timed_output_span_factor"))
            likes = [ref for exp in expected for ref in exp]
            flat = [read_output(self.timed.guest.pid, item, ref, span) for item, ref in zip(described, likes)]
        if flat is None:
            return [None] * len(expected)
        calls, at = [], 0
        for count in counts:
            calls.append(flat[at:at + count])
            at += count
        return calls

    def _outputs_agree(self, outputs: list, expected: list) -> bool:
        # the correctness calls apply the tolerance itself; here an output made for other inputs
        # (a cache, a replay, work not done by the time the clock stopped) is far outside it
        factor = float(timing_setting(self.settings, "timed_output_tolerance_factor"))
        atol = factor * float(self.case.get("atol") or 0.0)
        rtol = factor * float(self.case.get("rtol") or 0.0)
        for out, ref in zip(outputs, expected):
            if out is None or out.shape != ref.shape or out.dtype != ref.dtype:
                return False
            if not within_tolerance(out, ref, atol, rtol):
                return False
        return True

    def _inputs_unchanged(self, call: int, fresh: tuple) -> bool:
        if self.inplace:
            return True
        return all(tensors_identical(t, v) for t, v in zip(tensors_in(self.call_args(call)), tensors_in(fresh)))

    def clock_fields(self) -> dict:
        """What the warden's clock took off and shared out in this contender's samples: beside
        the other side's, where an A/A offset between the two processes comes from."""
        return {"timed_by": "warden", "round_trip_overhead_ms": self.timed.overhead_ms, "calls_per_sample": self.calls}

    def charge_l2(self, sampler) -> None:
        """On CUDA every persisting L2 line made normal again before the next sample (the
        warden's context's call; the lines are the device's): the flush then evicts them too.
        No persisting L2 on the CPU."""
        if self.gpu and getattr(sampler, "l2", None) is not None:
            sampler.l2.reset()

    def inputs(self) -> list:
        return self.shared.inputs

    def release(self) -> None:
        self.timed.ask({"op": "drop", "key": self.key})
        self.shared.close()


class WardenTimedCandidate(WardenTimedContender):
    """The candidate: each timed call's outputs read out of its stopped guest and compared with
    the reference's on the same fresh inputs, its inputs checked unchanged, its processes
    beside it counted."""

    def __init__(self, job, timed: TimedGuest, case: dict, key: str, where: dict, inplace: bool):
        self.checks = self.mismatches = 0
        self.beside = 0  # the most processes of the guest's parked after one timed call
        super().__init__("candidate", job, timed, case, key,
                         lambda header, fds: job.ask(header, fds, stage="timing", where=where)[0], inplace)

    def failed(self, reply: dict):
        raise GuestCallFailed(reply)

    def after_call(self, reply: dict, sets: list) -> list:
        self.beside = max(self.beside, self.timed.parked_last)
        agreeing = super().after_call(reply, sets)
        self.checks += len(agreeing)
        self.mismatches += agreeing.count(False)
        return agreeing

    def release(self) -> None:
        self.timed.resume()  # the job drops the candidate's case itself
        self.shared.close()

    def check_fields(self) -> dict:
        fields = {"timed_output_checks": self.checks, "timed_output_mismatches": self.mismatches,
                  "input_sets": self.drawn, "processes_beside": self.beside, **self.clock_fields()}
        if self.gpu:
            fields["slot_copy_ms"] = self.slot_copy_ms
            fields["host_synchronizing"] = self.timed.opens_first(self.key)
        return fields

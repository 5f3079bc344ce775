"""A `timing` job: the submission timed interleaved with its baselines, after it passed.

Baselines: "golden" (the task's golden.py), "eager" (reference.py's `reference`), "compile"
(torch.compile of it). They load and run in the warden, which never loads the submission; the
submission runs in the guest, which never sees the baselines' files. So the submission can
neither slow its baselines down nor read the golden. Every contender rotates its own input sets
built from the same seeds (a baseline of a case with large sets uses the first seed's alone:
one_set_inputs); the submission's timed outputs are checked against its first outputs
for the same inputs (in the guest), its kernel profile taken on CUDA, and last, on CUDA, an
ablation: one more call with the submission's own kernels suppressed, whose outputs must differ
from its first (else the kernels did not do the work).

Cases are prepared one after another while the job shares the device (first outputs, input
sets), then measured together in one stretch with the device alone (`device_gate.alone`), in
batches of at most BATCH_BYTES held on the device (or one larger case alone): each stretch
makes the other slots' jobs pause, so one per job rather than one per case and dtype. A batch
is measured and freed, its cached blocks given back, before the case that would take it over
is prepared: prepared beside it, a large case had doubled what the job held. The warden and
the guest measure on one CPU core (cpu_pinning.py).
"""


import torch

from ..guest import baseline_guest
from ..timing import cpu_pinning
from ..device import device_gate
from .candidate_job import CandidateJob
from ..handoff.shared_call import SharedCall
from ..compare.compare import tensors_identical
from ..protocol.errors import describe
from ..guest.guest_process import GuestGone
from ..warden.guest_timing import GuestCallFailed, guest_count

from ..timing.interleaved_timing import Contender, measure_interleaved, timing_fields
from ..timing.l2_persistence import L2Persistence
from ..timing.launch_cover import LaunchCover
from ..inputs.baseline_loading import load_baselines
from ..warden.gpu_timed_guest import GpuTimedGuest
from ..protocol.phases import phase
from ..timing.rotation import InputRotation, rotation_bytes, rotation_set_count
from ..warden.warden_timed_candidate import BaselineCallFailed, TimedGuest, WardenTimedContender, retime_slot_copies


# Prepared cases measured in one stretch hold at most this much on the device (or one larger
# case alone): each holds every contender's input sets and their buffers.
BATCH_BYTES = 12 << 30


class PreparedCase:
    def __init__(self, case, seed, candidate, contenders, held_bytes, first_outputs, shared=()):
        self.case, self.seed, self.candidate, self.contenders = case, seed, candidate, contenders
        self.held_bytes = held_bytes
        self.first_outputs = first_outputs  # the first seed's outputs, for the ablation (or None)
        self.shared = list(shared)  # the baselines' SharedCalls, their input sets' memory

    def release(self) -> None:
        """Frees the input sets once measured (the profile draws its own inputs)."""
        self.candidate.release()
        for contender in self.contenders or []:
            if contender is not self.candidate and isinstance(contender, WardenTimedContender):
                contender.release()
        self.contenders = None  # the baselines' rotations, before the memory they use goes
        for call in self.shared:
            call.close()
        self.shared = []


class TimingJob(CandidateJob):
    def __init__(self, request: dict, writer, guest, baseline_process=None):
        super().__init__(request, writer, guest)
        # on CUDA with the warden's clock: the baselines' own process, forked before the
        # warden's context existed (child.run_with_guest); it loads them when asked
        self.baseline_process = baseline_process

    def load_baselines(self) -> list:
        """(name, callable) of each baseline that loads (the callable None when they load in
        their own CUDA process); a failure is an `error`, stage "baseline"."""
        if self.baseline_process is None:
            return load_baselines(self.request, self.writer)
        reply, _, _ = self.baseline_process.ask({"op": "load"})
        for error in reply.get("errors") or []:
            self.writer.error(error.pop("stage"), **error)
        return [(name, None) for name in reply.get("names") or []]

    def ablating(self) -> bool:
        return self.checks["profile_kernels"] and self.device.type == "cuda"

    def prepare_case(self, case, baselines: list, held_bytes: int):
        """Everything before measuring one case, sharing the device: the submission's first
        outputs (kept in the guest, on the device, for the timed-output checks), each
        contender's input rotation. None when the case cannot be timed (its failure reported)."""
        seeds = list(case.get("seeds") or [])
        key = self.case_key(case)
        first_outputs = None
        for seed in seeds:
            args = self._inputs(case, seed, read_only=True)
            if args is None:
                return None
            keep = self.ablating() and seed == seeds[0]
            shared = SharedCall(args, 0)
            try:
                reply, outputs = self.guest_call(shared, self._where(case, seed), keep_as=key, seed=seed,
                                                 return_outputs=keep)
            finally:
                shared.close()
            if outputs is None:
                self.guest_error("call", reply, **self._where(case, seed))
                return None
            if keep:
                first_outputs = outputs
        candidate = self.candidate_contender(case, seeds, key)
        if candidate is None:
            return None
        contenders, shared = [candidate], []
        if self.timed_baselines is not None:  # on the CPU, in their own process (baseline_guest.py)
            try:
                contenders += [WardenTimedContender(name, self, self.timed_baselines, case, f"{key}/{name}",
                                                    self.timed_baselines.ask, bool(self.request.get("inplace")))
                               for name, _ in baselines]
            except BaselineCallFailed as exc:
                candidate.release()
                for contender in contenders[1:]:
                    contender.release()
                self.writer.error("timing", **describe(exc), **self._where(case, seeds[0]))
                return None
            return PreparedCase(case, seeds[0], candidate, contenders, held_bytes, first_outputs)
        buffers = self.rotation_buffers(self._input_bytes(case, seeds[0]))
        for name, fn in baselines:
            # Each baseline's sets lie in memory made as the candidate's (one driver mapping a
            # set), not in the caching allocator's blocks: both sides read their inputs from the
            # same kind of memory, whatever a few-us call makes of where it lies.
            if buffers == 1:
                rotation = self.one_set_inputs(case, seeds[0], fn, shared)
                if rotation is None:
                    return None
                contenders.append(Contender(name, rotation.prepare))
                continue
            sets = self.rotation_sets(case, seeds, share=True)
            for _, call in sets:
                call.keep_private()
                shared.append(call)
            rotation = InputRotation(fn, [(seed, call.args) for seed, call in sets], {}, buffers=buffers)
            contenders.append(Contender(name, rotation.prepare))
        return PreparedCase(case, seeds[0], candidate, contenders, held_bytes, first_outputs, shared)

    def one_set_inputs(self, case, seed, fn, shared: list):
        """A baseline's rotation of the seed's set alone, for a case whose sets are large: the
        candidate's rotation keeps the values behind its buffers changing, so an output cache
        keyed on addresses gives itself away, and holds every seed's set and a copy for that. A
        baseline is keval's own code, with no cache to catch, and a set this large leaves
        placement and the L2 no seed to favour: its buffers, refilled before each call from the
        drawn set (the memo's own tensors, or a draw of its own), two sets where it held one
        more than the case has seeds. The buffers are appended to `shared`; None when drawing
        fails (reported)."""
        drawn = self._inputs(case, seed, read_only=True)
        if drawn is None:
            return None
        call = SharedCall(drawn, 0)
        call.keep_private()
        shared.append(call)
        return InputRotation(fn, [(seed, call.args)], {}, buffers=1, values=drawn)

    def measure_cases(self, cases: list, baselines: list) -> list:
        """Prepares and measures `cases` in batches of at most the budget's bytes held on the
        device, or one larger case alone; the measured PreparedCases. A batch is measured and
        freed before the case that would take it over the budget is prepared."""
        budget = int(self.request.get("timing_batch_bytes") or BATCH_BYTES)
        batch, measured = [], []
        for case in cases:
            if not case.get("seeds"):
                continue
            device_gate.pause_point(self.request, self.writer, self.device)
            with phase("timing"):
                held = self.held_bytes(case, len(baselines))
            if held is None:
                continue
            if batch and sum(p.held_bytes for p in batch) + held > budget:
                with phase("timing"):
                    self.measure_batch(batch)
                measured += batch
                batch = []
            with phase("timing"):
                prepared = self.prepare_case(case, baselines, held)
            if prepared is not None:
                batch.append(prepared)
        if batch:
            with phase("timing"):
                self.measure_batch(batch)
            measured += batch
        return measured

    def held_bytes(self, case, baselines: int):
        """What a case's inputs will hold on the device: the submission's rotation (every set,
        and a copy of each set with buffers of its own) and each baseline's (the same, or
        one_set_inputs': a set and its drawn values), from its first set's size (drawn, not copied
        to the device); None when its inputs fail (reported). The set stays in the memo for
        prepare_case."""
        size = self._input_bytes(case, case["seeds"][0])
        if size is None:
            return None
        sets = rotation_set_count(len(case["seeds"]), size, self.rotation_target())
        buffers = self.rotation_buffers(size)
        candidate = rotation_bytes([size] * sets, buffers)
        return candidate + baselines * (2 * size if buffers == 1 else candidate)

    def measure_batch(self, batch: list) -> None:
        """The prepared cases measured in one stretch with the device alone (one drain of the
        other slots' jobs instead of one per case), then reported."""
        settings = self.request.get("timing") or {}
        failed = set()
        with device_gate.alone(self.request, self.writer), cpu_pinning.one_core(self.pin_guest):
            self.recalibrate()
            with phase("calibrate"):
                for prepared in batch:
                    retime_slot_copies(prepared.contenders)
            for index, prepared in enumerate(batch):
                where = self._where(prepared.case, prepared.seed)
                try:
                    with torch.no_grad():
                        measure_interleaved(prepared.contenders, self.device, settings, l2=self.l2,
                                            cover=self.cover)
                except GuestCallFailed as exc:
                    failed.add(index)
                    self.guest_error("timing", exc.reply, **where)
                except (Exception, SystemExit) as exc:  # a baseline's own failure
                    failed.add(index)
                    self.writer.error("timing", **describe(exc), **where)
        for prepared in batch:
            # the guest's own persisting-L2 limit, read as its case is dropped: under the
            # warden's clock only ever its confession (the warden resets every persisting
            # line before each sample whatever it says)
            reply, _, _ = self.ask({"op": "drop", "key": self.case_key(prepared.case)}, stage="timing")
            candidate = prepared.candidate
            confessed = guest_count(reply.get("l2_persisting_bytes"))
            candidate.l2_persisting_bytes = max(candidate.l2_persisting_bytes, confessed)
        for index, prepared in enumerate(batch):
            if index in failed:
                continue
            for contender in prepared.contenders:
                if contender is prepared.candidate:
                    extra = contender.check_fields()
                else:  # a baseline the warden timed: its clock's figures, beside the candidate's
                    extra = contender.clock_fields() if isinstance(contender, WardenTimedContender) else {}
                self.send("timing", **self._where(prepared.case, prepared.seed),
                          **timing_fields(contender, self.device), **extra)
        for prepared in batch:
            prepared.release()
        if self.device.type == "cuda":
            # The next batch's sets seldom fit these blocks: cached, they would stay this
            # process's while the guest (or another slot's job) runs out of memory.
            torch.cuda.empty_cache()

    def recalibrate(self) -> None:
        """Each process the warden times gets its null round trip measured again beside the
        samples (TimedGuest.recalibrate)."""
        with phase("calibrate"):
            for timed in (self.timed_guest, self.timed_baselines):
                if timed is not None:
                    timed.recalibrate()

    def ablate(self, prepared) -> None:
        """One call with the submission's own kernels suppressed (memory poisoned first): outputs
        identical to its first outputs mean its kernels did not make them. A guest lost in this
        call (garbage from skipped kernels can fault the device) settles nothing."""
        case, seed = prepared.case, prepared.seed
        where = self._where(case, seed)
        args = self._inputs(case, seed, read_only=True)
        if args is None:
            return
        shared = SharedCall(args, 0)
        try:
            reply, outputs = self.guest_call(shared, where, poison=True, ablate=True)
        finally:
            shared.close()
        own, _ = self.own_and_other(reply.get("kernels"))
        first = prepared.first_outputs
        unchanged = outputs is not None and len(outputs) == len(first) and all(
            tensors_identical(a.cpu(), b) for a, b in zip(outputs, first))
        self.send("ablation", **where, outputs_unchanged=unchanged, suppressed=own)

    def open_l2(self):
        """The persisting-L2 limit in our charge before any baseline runs."""
        if self.device.type != "cuda":
            return None
        torch.zeros(1, device=self.device)  # the context the limit belongs to
        return L2Persistence.open()

    def pin_guest(self, cpus) -> bool:
        """The guest's and, on the CPU, the baselines' process's measuring thread on `cpus`."""
        pinned = super().pin_guest(cpus)
        if self.timed_baselines is not None:
            pinned = self.timed_baselines.ask({"op": "pin", "cpus": cpus}).get("ok") is True and pinned
        return pinned

    def start_baselines(self, baselines: list) -> None:
        """The baselines' own process, timed as the candidate's guest is: forked here on the
        CPU, already running on CUDA (None there when the guest's clock times the candidate)."""
        if not baselines:
            return
        if self.device.type != "cuda":
            self.baseline_process = baseline_guest.start(baselines)
            self.timed_baselines = TimedGuest(self.baseline_process)
        elif self.baseline_process is not None:
            self.timed_baselines = GpuTimedGuest(self.baseline_process, self.device, self.request.get("timing") or {})

    def calibrate(self) -> None:
        if self.timed_baselines is not None:
            with phase("calibrate"), cpu_pinning.one_core(self.pin_guest):
                self.timed_baselines.calibrate()
        super().calibrate()

    def run(self) -> None:
        self.l2 = self.open_l2()
        self.cover = LaunchCover.open(self.device, self.request.get("timing") or {})
        with phase("load_baselines"):
            baselines = self.load_baselines()
        self.timed_baselines = None
        self.start_baselines(baselines)
        try:
            self.measure(baselines)
        finally:
            if self.timed_baselines is not None:
                self.timed_baselines.resume()
            if self.baseline_process is not None:
                self.baseline_process.end()

    def measure(self, baselines: list) -> None:
        self.calibrate()
        with phase("load"):
            loaded = self.load()
        if not loaded:
            return
        measured = self.measure_cases(self.request.get("cases", []), baselines)
        if self.checks["profile_kernels"] and self.device.type == "cuda":
            for prepared in measured:
                device_gate.pause_point(self.request, self.writer, self.device)
                with phase("profile"):
                    self.profile_case(prepared.case, prepared.seed)
        if self.ablating():
            with phase("ablation"):
                try:
                    for prepared in measured:
                        if prepared.first_outputs is not None:
                            # a timing job waiting for the device waits for one call, not all
                            device_gate.pause_point(self.request, self.writer, self.device)
                            self.ablate(prepared)
                except GuestGone:
                    self.send("ablation", outputs_unchanged=False, suppressed=[], guest_lost=True)

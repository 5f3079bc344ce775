"""A `timing` job: the submission timed interleaved with its baselines, after it passed.

Baselines: "golden" (the task's golden.py, loaded before the submission so the submission
never runs before it is set up), "eager" (reference.py's `reference`), "compile"
(torch.compile of it). Every contender rotates its own input sets built from the same seeds;
the submission's timed outputs are checked against its first outputs for the same inputs, its
kernel profile taken on CUDA, and the tamper watch checked after timing.

Cases are prepared one after another while the job shares the device (first outputs, input
sets), then measured together in one stretch with the device alone (`device_gate.alone`), in
batches of at most BATCH_BYTES held on the device: each stretch makes the other slots' jobs
pause, so one per job rather than one per case and dtype.
"""

import torch

from . import device_gate, kernel_tracking
from .candidate_job import CandidateJob
from .compare import as_output_list
from .errors import describe
from .interleaved_timing import Contender, measure_interleaved, timing_fields
from .l2_persistence import L2Persistence
from .launch_cover import LaunchCover
from .loading import find_entry, load_module
from .output_files import plain_copy
from .phases import phase
from .rotation import InputRotation, input_bytes
from .task_files import load_reference_module
from . import timing


# Prepared cases measured in one stretch hold at most this much on the device (beyond one
# case): each holds every contender's input sets twice (the sets and their saved contents).
BATCH_BYTES = 12 << 30


class PreparedCase:
    def __init__(self, case, seed, rotation, contenders, held_bytes):
        self.case, self.seed, self.rotation, self.contenders = case, seed, rotation, contenders
        self.held_bytes = held_bytes

    def release(self) -> None:
        """Frees the input sets once measured (the profile draws its own inputs)."""
        self.rotation = self.contenders = None


class TimingJob(CandidateJob):
    def load_baselines(self) -> list:
        """(name, callable) of each baseline that loads; a failure is an `error`, stage "baseline"."""
        reference = None
        loaded = []
        for baseline in self.request.get("baselines") or []:
            name = baseline.get("name")
            try:
                if name == "golden":
                    module = load_module(baseline["code_file"], "keval_baseline_golden")
                    loaded.append((name, find_entry(module, self.request.get("entry", ""))[1]))
                    continue
                if reference is None:
                    reference = load_reference_module(self.request["task_dir"], self.writer)
                if name == "eager":
                    loaded.append((name, reference.reference))
                elif name == "compile":
                    loaded.append((name, torch.compile(reference.reference)))
                else:
                    raise ValueError(f"unknown baseline {name!r}")
            except Exception as exc:
                self.writer.error("baseline", **describe(exc), baseline=name)
        return loaded

    def prepare_case(self, case, baselines: list):
        """Everything before measuring one case, sharing the device: the submission's first
        outputs (untimed: what timed calls must repeat, kept on the device so each timed-output
        check compares there), each contender's input rotation. None when the case cannot be
        timed (its failure is reported)."""
        seeds = list(case.get("seeds") or [])
        first = {}
        for seed in seeds:
            args = self._inputs(case, seed)
            if args is None:
                return None
            try:
                with torch.no_grad():
                    first[seed] = [plain_copy(o) for o in as_output_list(self.entry(*args))]
            except (Exception, SystemExit) as exc:
                self.tamper_check("timing", case, seed)
                self.writer.error("call", **describe(exc, self.code_file, self.module), **self._where(case, seed))
                self._check_device()
                return None
        self.tamper_check("timing", case, seeds[0] if seeds else None)
        settings = self.request.get("timing") or {}
        sets = self._rotation_sets(case, first)
        rotation = InputRotation(self.entry, sets, first)
        observe = rotation.observer(timing.check_interval(settings)) if self.checks["timed_output_check"] else None
        contenders = [Contender("candidate", rotation.prepare, observe)]
        for name, fn in baselines:
            contenders.append(Contender(name, InputRotation(fn, self._rotation_sets(case, first), {}).prepare))
        try:
            with torch.no_grad():
                rotation.record_first_outputs()
        except (Exception, SystemExit) as exc:
            self.tamper_check("timing", case, seeds[0])
            self.writer.error("timing", **describe(exc, self.code_file, self.module), **self._where(case, seeds[0]))
            self._check_device()
            return None
        # what it holds on the device: every contender's sets and their saved contents
        held = 2 * len(contenders) * sum(input_bytes(args) for _, args in sets)
        return PreparedCase(case, seeds[0], rotation, contenders, held)

    def measure_batch(self, batch: list) -> None:
        """The prepared cases measured in one stretch with the device alone (one drain of the
        other slots' jobs instead of one per case), then reported."""
        settings = self.request.get("timing") or {}
        failed = set()
        with device_gate.alone(self.request, self.writer):
            for index, prepared in enumerate(batch):
                try:
                    with torch.no_grad():
                        measure_interleaved(prepared.contenders, self.device, settings, l2=self.l2,
                                            cover=self.cover)
                except (Exception, SystemExit) as exc:
                    failed.add(index)
                    self.tamper_check("timing", prepared.case, prepared.seed)
                    self.writer.error("timing", **describe(exc, self.code_file, self.module),
                                      **self._where(prepared.case, prepared.seed))
                    self._check_device()
        for index, prepared in enumerate(batch):
            if index in failed:
                continue
            self.tamper_check("timing", prepared.case, prepared.seed)
            for contender in prepared.contenders:
                extra = {}
                if contender.who == "candidate":
                    extra = {"timed_output_checks": prepared.rotation.checks,
                             "timed_output_mismatches": prepared.rotation.mismatches,
                             "input_sets": len(prepared.rotation)}
                self.send("timing", **self._where(prepared.case, prepared.seed),
                          **timing_fields(contender, self.device), **extra)
        for prepared in batch:
            prepared.release()

    def open_l2(self):
        """The persisting-L2 limit in our charge before any baseline or submission code runs."""
        if self.device.type != "cuda":
            return None
        torch.zeros(1, device=self.device)  # the context the limit belongs to
        return L2Persistence.open()

    def run(self) -> None:
        kernel_tracking.install()
        self.l2 = self.open_l2()
        # compiled before the submission loads (and before the device is held alone)
        self.cover = LaunchCover.open(self.device, self.request.get("timing") or {})
        with phase("load_baselines"):
            baselines = self.load_baselines()  # before the submission is imported
        with phase("load"):
            loaded = self.load()
        if not loaded:
            return
        budget = int(self.request.get("timing_batch_bytes") or BATCH_BYTES)
        batch, measured = [], []
        for case in self.request.get("cases", []):
            if not case.get("seeds"):
                continue
            device_gate.pause_point(self.request, self.writer, self.device)
            with phase("timing"):
                prepared = self.prepare_case(case, baselines)
            if prepared is None:
                continue
            if batch and sum(p.held_bytes for p in batch) + prepared.held_bytes > budget:
                with phase("timing"):
                    self.measure_batch(batch)
                measured += batch
                batch = []
            batch.append(prepared)
        if batch:
            with phase("timing"):
                self.measure_batch(batch)
            measured += batch
        if self.checks["profile_kernels"] and self.device.type == "cuda":
            for prepared in measured:
                device_gate.pause_point(self.request, self.writer, self.device)
                with phase("profile"):
                    self.profile_case(prepared.case, prepared.seed)

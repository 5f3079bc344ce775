"""A `timing` job: the submission timed interleaved with its baselines, after it passed.

Baselines: "golden" (the task's golden.py, loaded before the submission so the submission
never runs before it is set up), "eager" (reference.py's `reference`), "compile"
(torch.compile of it). Every contender rotates its own input sets built from the same seeds;
the submission's timed outputs are checked against its first outputs for the same inputs, its
kernel profile taken on CUDA, and the tamper watch checked after timing.
"""

import torch

from . import device_gate, kernel_tracking
from .candidate_job import CandidateJob
from .compare import as_output_list
from .errors import describe
from .interleaved_timing import Contender, measure_interleaved, timing_fields
from .l2_persistence import L2Persistence
from .loading import find_entry, load_module
from .output_files import plain_copy
from .phases import phase
from .rotation import InputRotation
from .task_files import load_reference_module
from . import timing


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

    def time_case_interleaved(self, case, baselines: list) -> None:
        seeds = list(case.get("seeds") or [])
        settings = self.request.get("timing") or {}
        first = {}
        for seed in seeds:  # the submission's first outputs, untimed: what timed calls must repeat
            # (plain copies on the device: each timed-output check compares there, no host copy)
            args = self._inputs(case, seed)
            if args is None:
                return
            try:
                with torch.no_grad():
                    first[seed] = [plain_copy(o) for o in as_output_list(self.entry(*args))]
            except (Exception, SystemExit) as exc:
                self.tamper_check("timing", case, seed)
                self.writer.error("call", **describe(exc, self.code_file, self.module), **self._where(case, seed))
                self._check_device()
                return
        self.tamper_check("timing", case, seeds[0] if seeds else None)
        contenders = []
        rotation = InputRotation(self.entry, self._rotation_sets(case, first), first)
        observe = rotation.observer(timing.check_interval(settings)) if self.checks["timed_output_check"] else None
        contenders.append(Contender("candidate", rotation.prepare, observe))
        for name, fn in baselines:
            baseline_rotation = InputRotation(fn, self._rotation_sets(case, first), {})
            contenders.append(Contender(name, baseline_rotation.prepare))
        try:
            with torch.no_grad():
                rotation.record_first_outputs()
                with device_gate.alone(self.request, self.writer):
                    measure_interleaved(contenders, self.device, settings, l2=self.l2)
        except (Exception, SystemExit) as exc:
            self.tamper_check("timing", case, seeds[0])
            self.writer.error("timing", **describe(exc, self.code_file, self.module), **self._where(case, seeds[0]))
            self._check_device()
            return
        self.tamper_check("timing", case, seeds[0])
        for contender in contenders:
            extra = {}
            if contender.who == "candidate":
                extra = {"timed_output_checks": rotation.checks, "timed_output_mismatches": rotation.mismatches,
                         "input_sets": len(rotation)}
            self.send("timing", **self._where(case, seeds[0]), **timing_fields(contender, self.device), **extra)

    def open_l2(self):
        """The persisting-L2 limit in our charge before any baseline or submission code runs."""
        if self.device.type != "cuda":
            return None
        torch.zeros(1, device=self.device)  # the context the limit belongs to
        return L2Persistence.open()

    def run(self) -> None:
        kernel_tracking.install()
        self.l2 = self.open_l2()
        with phase("load_baselines"):
            baselines = self.load_baselines()  # before the submission is imported
        with phase("load"):
            loaded = self.load()
        if not loaded:
            return
        for case in self.request.get("cases", []):
            if not case.get("seeds"):
                continue
            device_gate.pause_point(self.request, self.writer, self.device)
            with phase("timing"):
                self.time_case_interleaved(case, baselines)
            if self.checks["profile_kernels"] and self.device.type == "cuda":
                device_gate.pause_point(self.request, self.writer, self.device)
                with phase("profile"):
                    self.profile_case(case, case["seeds"][0])

"""A `candidate` job: load the code, call it on every case and seed, report raw facts.

Per call it reports whether the call returned, which Triton kernels ran, whether inputs
changed, whether an output aliases an input or is not a plain tensor, whether the guard bands
around the inputs changed, and saves the outputs for the reference job. Then the optional
determinism re-run, timing (inputs rotated, timed outputs checked) and the kernel profile.
Tampering with watched functions is reported whenever it is seen. Judging is the controller's.
"""

import os
import sys
import time

import torch

from . import checks, device_gate, kernel_profile, kernel_tracking, timing
from .compare import NonTensorOutput, as_output_list, max_abs_diff, tensors_identical
from .errors import DeviceError, describe
from .inputs import build_inputs, draws_on_device, synchronize, tensors_in, torch_device
from .loading import CANDIDATE_MODULE, MissingEntry, find_entry, load_module
from .output_files import output_path, rerun_path, save_outputs
from .phases import phase
from .rotation import MAX_SETS, InputRotation, derived_seeds, input_bytes
from .task_files import load_reference_module

_clock = time.perf_counter  # bound at import, before any candidate can replace it


class CandidateJob:
    def __init__(self, request: dict, writer):
        self.request = request
        self.writer = writer
        self.send = writer.send  # bound before the candidate loads
        self.device = torch_device(request.get("device", "cpu"), request.get("gpu", 0))
        self.code_file = request["code_file"]
        self.checks = checks.settings_from(request)
        self.module = None
        self.entry = None
        self.make_inputs = None
        self.watch = None

    # -- setup -------------------------------------------------------------------------

    def load(self) -> bool:
        kernel_tracking.install()
        reference = load_reference_module(self.request["task_dir"], self.writer)
        if reference is None:
            return False
        self.make_inputs = reference.make_inputs
        if self.checks["tamper"]:
            self.watch = checks.TamperWatch(self.send)
        try:
            self.module = load_module(self.code_file, CANDIDATE_MODULE)
        except (Exception, SystemExit) as exc:
            self.tamper_check("import")
            self.writer.error("import", **describe(exc, self.code_file))
            return False
        self.tamper_check("import")
        try:
            name, self.entry = find_entry(self.module, self.request.get("entry", ""))
        except MissingEntry as exc:
            self.writer.error("entry", "MissingEntry", str(exc), error_class="MissingEntry")
            return False
        self.send("entry", name=name)
        return True

    def tamper_check(self, stage: str, case=None, seed=None) -> None:
        if self.watch is not None:
            where = self._where(case, seed) if case is not None else {}
            self.watch.check(stage, **where)

    # -- one call ----------------------------------------------------------------------

    def _where(self, case, seed) -> dict:
        return {"case": case["name"], "dtype": case["dtype"], "seed": seed}

    def _inputs(self, case, seed):
        try:
            with phase("inputs"):
                return build_inputs(self.make_inputs, case, seed, self.device,
                                    on_device=draws_on_device(self.request))
        except Exception as exc:
            fields = describe(exc)
            fields["line"] = None  # the fault is in the task's make_inputs, not the candidate
            self.writer.error("inputs", **fields, **self._where(case, seed))
            return None

    def _check_device(self) -> None:
        """After a failed call on CUDA: a sticky fault leaves the context unusable."""
        if self.device.type != "cuda":
            return
        try:
            torch.cuda.synchronize(self.device)
        except Exception as exc:
            raise DeviceError("DeviceLost", f"CUDA context lost after a failed call: {exc}") from exc

    def call_once(self, case, seed):
        """Runs one call and reports it; returns the saved CPU copies of the outputs or None."""
        saved = output_path(self.request["outputs_dir"], case["name"], case["dtype"], seed)
        if os.path.exists(saved):
            os.remove(saved)  # a failed call must never leave an older run's outputs behind
        args = self._inputs(case, seed)
        if args is None:
            return None
        guards = None
        if self.checks["guard_bytes"] > 0:
            try:
                guards = checks.GuardBands(args, self.checks["guard_bytes"])
                args = guards.args
            except Exception as exc:  # e.g. out of memory: the call runs on its plain inputs
                print(f"keval_runner: no guard bands for {case['name']}/{seed}: {exc!r}", file=sys.stderr)
        inputs = tensors_in(args)
        before = [t.clone() for t in inputs]
        poisoned = False
        if self.checks["poison_outputs"]:
            poisoned = checks.poison_memory(self.device, checks.poison_size(inputs))
        result, failure = None, None
        with kernel_tracking.tracking() as launched, torch.no_grad():
            started = _clock()
            try:
                result = self.entry(*args)
                synchronize(self.device)
            except (Exception, SystemExit) as exc:
                failure = exc
            wall_ms = (_clock() - started) * 1e3
        self.tamper_check("call", case, seed)  # first: the checks below use watched functions
        if failure is not None:
            self.writer.error("call", **describe(failure, self.code_file, self.module), **self._where(case, seed))
            self._check_device()

        outputs = None
        if failure is None:
            try:
                outputs = as_output_list(result)
            except NonTensorOutput as exc:
                self.writer.error("call", "NonTensorOutput", str(exc), error_class="NonTensorOutput",
                                  **self._where(case, seed))
        mutated = any(not tensors_identical(t, b) for t, b in zip(inputs, before))
        input_storages = {t.untyped_storage().data_ptr() for t in inputs if t.numel() > 0}
        aliased = outputs is not None and any(
            o.numel() > 0 and o.untyped_storage().data_ptr() in input_storages for o in outputs)
        violations = guards.violations() if guards is not None else []
        foreign = checks.foreign_output_types(outputs)
        copies = None
        if outputs is not None:
            try:
                with phase("save_outputs"):
                    copies = save_outputs(saved, outputs,
                                          writing=lambda: device_gate.idle(self.request, self.writer, self.device))
            except Exception as exc:  # e.g. a tensor subclass that cannot be copied or saved
                self.writer.error("call", **describe(exc, self.code_file, self.module), **self._where(case, seed))
                outputs = None

        own, other = kernel_tracking.split_by_module(launched, CANDIDATE_MODULE)
        self.send("call", **self._where(case, seed), ok=outputs is not None, kernels=own,
                  other_kernels=other, inputs_mutated=mutated, output_is_input=aliased,
                  n_outputs=len(outputs) if outputs is not None else None, wall_ms=wall_ms,
                  guard_violations=violations, poisoned=poisoned, foreign_output_types=foreign)
        return copies

    # -- determinism, timing, profile ----------------------------------------------------

    def check_determinism(self, case, seed, first_outputs) -> None:
        rerun = rerun_path(self.request["outputs_dir"], case["name"], case["dtype"], seed)
        if os.path.exists(rerun):
            os.remove(rerun)
        args = self._inputs(case, seed)
        if args is None:
            return
        try:
            with torch.no_grad():
                second = as_output_list(self.entry(*args))
                synchronize(self.device)
        except (Exception, SystemExit) as exc:
            self.tamper_check("call", case, seed)
            self.writer.error("call", **describe(exc, self.code_file, self.module), **self._where(case, seed),
                              rerun=True)
            self._check_device()
            return
        self.tamper_check("call", case, seed)
        same = len(first_outputs) == len(second) and all(
            tensors_identical(a, b) for a, b in zip(first_outputs, second))
        if not same and self.request.get("save_rerun_outputs"):
            with phase("save_outputs"):
                save_outputs(rerun, second)
        self.send("determinism", **self._where(case, seed), same=same,
                  max_abs_diff=max_abs_diff(first_outputs, second))

    def _rotation_sets(self, case, first_outputs: dict) -> list:
        """(seed, args): fresh inputs of the seeds whose calls succeeded, then, on CUDA, derived
        seeds until the inputs exceed twice the L2 size (at most MAX_SETS sets)."""
        sets = []
        for seed in first_outputs:
            args = self._inputs(case, seed)
            if args is not None:
                sets.append((seed, args))
        if self.device.type != "cuda" or not sets:
            return sets
        target = 2 * timing.l2_bytes(self.device)
        per_set = max(1, input_bytes(sets[0][1]))
        wanted = min(MAX_SETS, max(len(sets), -(-target // per_set) + 1))
        for seed in derived_seeds(list(case.get("seeds") or []), wanted - len(sets)):
            if sum(input_bytes(a) for _, a in sets) > target:
                break
            args = self._inputs(case, seed)
            if args is None:
                break
            sets.append((seed, args))
        return sets

    def time_case(self, case, first_outputs: dict) -> None:
        seed = next(iter(first_outputs))
        settings = self.request.get("timing") or {}
        sets = self._rotation_sets(case, first_outputs)
        if not sets:
            return
        rotation = InputRotation(self.entry, sets, first_outputs)
        observe = None
        if self.checks["timed_output_check"]:
            observe = rotation.observer(timing.check_interval(settings))
        try:
            with torch.no_grad():
                rotation.record_first_outputs()  # extra sets: their first output, untimed
                result = timing.measure(rotation.prepare, self.device, settings, observe)
        except (Exception, SystemExit) as exc:
            self.tamper_check("timing", case, seed)
            self.writer.error("timing", **describe(exc, self.code_file, self.module), **self._where(case, seed))
            self._check_device()
            return
        self.tamper_check("timing", case, seed)
        self.send("timing", **self._where(case, seed), **result, timed_output_checks=rotation.checks,
                  timed_output_mismatches=rotation.mismatches, input_sets=len(rotation))

    def profile_case(self, case, seed) -> None:
        """The `kernel_profile` of one call: the launch-event screen when its share settles it
        (at or above the request's `profile_screen_share`), else torch.profiler's."""
        args = self._inputs(case, seed)
        if args is None:
            return
        launched = []

        def call(timer=None):
            with kernel_tracking.tracking(timer) as seen, torch.no_grad():
                try:
                    self.entry(*args)
                finally:
                    launched.extend(seen)

        def own_names():
            return kernel_tracking.split_by_module(launched, CANDIDATE_MODULE)[0]

        threshold = float(self.request.get("profile_screen_share") or 0)
        try:
            facts = None
            if threshold > 0:
                screened = kernel_profile.screen_call(call, self.device, lambda k: k[1] == CANDIDATE_MODULE)
                if screened["own_share"] is not None and screened["own_share"] >= threshold:
                    facts = screened
            if facts is None:
                launched.clear()
                facts = kernel_profile.profile_call(call, self.device, own_names)
        except (Exception, SystemExit) as exc:
            self.tamper_check("timing", case, seed)
            self.writer.error("profile", **describe(exc, self.code_file, self.module), **self._where(case, seed))
            self._check_device()
            return
        self.tamper_check("timing", case, seed)
        self.send("kernel_profile", **self._where(case, seed), **facts)

    # -- the whole job -----------------------------------------------------------------

    def run(self) -> None:
        with phase("load"):
            loaded = self.load()
        if not loaded:
            return
        if self.device.type == "cuda" and self.request.get("device_hold"):
            kernel_tracking.idle_while_compiling(self.request, self.writer, self.device)
        os.makedirs(self.request["outputs_dir"], exist_ok=True)
        timed = []
        for case in self.request.get("cases", []):
            seeds = list(case.get("seeds") or [])
            first_outputs = {}  # seed -> saved outputs, in seed order
            for index, seed in enumerate(seeds):
                device_gate.pause_point(self.request, self.writer, self.device)
                with phase("calls"):
                    outputs = self.call_once(case, seed)
                if outputs is None:
                    continue
                first_outputs[seed] = outputs
                if index == 0 and self.request.get("check_determinism"):
                    with phase("determinism"):
                        self.check_determinism(case, seed, outputs)
            if seeds and seeds[0] in first_outputs:
                timed.append((case, first_outputs))
        timing_on = (self.request.get("timing") or {}).get("enabled")
        profile_on = self.checks["profile_kernels"] and self.device.type == "cuda"
        for case, first_outputs in timed:
            if timing_on:
                with phase("timing"):
                    self.time_case(case, first_outputs)
            if profile_on:
                with phase("profile"):
                    self.profile_case(case, next(iter(first_outputs)))

"""A `candidate` job: load the code, call it on every case and seed, report raw facts.

Per call it reports whether the call returned, which Triton kernels ran, whether inputs
changed, whether an output aliases an input, and saves the outputs for the reference job.
Then the optional determinism re-run and timing. Judging is the controller's.
"""

import os
import time

import torch

from . import kernel_tracking, timing
from .compare import NonTensorOutput, as_output_list, max_abs_diff, tensors_identical
from .errors import DeviceError, describe
from .inputs import build_inputs, synchronize, tensors_in, torch_device
from .loading import CANDIDATE_MODULE, MissingEntry, find_entry, load_module
from .output_files import output_path, save_outputs
from .task_files import load_reference_module


class CandidateJob:
    def __init__(self, request: dict, writer):
        self.request = request
        self.writer = writer
        self.device = torch_device(request.get("device", "cpu"), request.get("gpu", 0))
        self.code_file = request["code_file"]
        self.module = None
        self.entry = None
        self.make_inputs = None

    # -- setup -------------------------------------------------------------------------

    def load(self) -> bool:
        kernel_tracking.install()
        reference = load_reference_module(self.request["task_dir"], self.writer)
        if reference is None:
            return False
        self.make_inputs = reference.make_inputs
        try:
            self.module = load_module(self.code_file, CANDIDATE_MODULE)
        except (Exception, SystemExit) as exc:
            self.writer.error("import", **describe(exc, self.code_file))
            return False
        try:
            name, self.entry = find_entry(self.module, self.request.get("entry", ""))
        except MissingEntry as exc:
            self.writer.error("entry", "MissingEntry", str(exc), error_class="MissingEntry")
            return False
        self.writer.send("entry", name=name)
        return True

    # -- one call ----------------------------------------------------------------------

    def _where(self, case, seed) -> dict:
        return {"case": case["name"], "dtype": case["dtype"], "seed": seed}

    def _inputs(self, case, seed):
        try:
            return build_inputs(self.make_inputs, case, seed, self.device)
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
        """Runs one call and reports it; returns the outputs (list) or None on failure."""
        saved = output_path(self.request["outputs_dir"], case["name"], case["dtype"], seed)
        if os.path.exists(saved):
            os.remove(saved)  # a failed call must never leave an older run's outputs behind
        args = self._inputs(case, seed)
        if args is None:
            return None
        inputs = tensors_in(args)
        before = [t.clone() for t in inputs]
        result, failure = None, None
        with kernel_tracking.tracking() as launched, torch.no_grad():
            started = time.perf_counter()
            try:
                result = self.entry(*args)
                synchronize(self.device)
            except (Exception, SystemExit) as exc:
                failure = exc
            wall_ms = (time.perf_counter() - started) * 1e3
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
        if outputs is not None:
            save_outputs(saved, outputs)

        own, other = kernel_tracking.split_by_module(launched, CANDIDATE_MODULE)
        self.writer.send("call", **self._where(case, seed), ok=outputs is not None, kernels=own,
                         other_kernels=other, inputs_mutated=mutated, output_is_input=aliased,
                         n_outputs=len(outputs) if outputs is not None else None, wall_ms=wall_ms)
        return outputs

    # -- determinism and timing --------------------------------------------------------

    def check_determinism(self, case, seed, first_outputs) -> None:
        first = [t.detach().clone() for t in first_outputs]  # the call may reuse its buffers
        args = self._inputs(case, seed)
        if args is None:
            return
        try:
            with torch.no_grad():
                second = as_output_list(self.entry(*args))
                synchronize(self.device)
        except (Exception, SystemExit) as exc:
            self.writer.error("call", **describe(exc, self.code_file, self.module), **self._where(case, seed),
                              rerun=True)
            self._check_device()
            return
        same = len(first) == len(second) and all(tensors_identical(a, b) for a, b in zip(first, second))
        self.writer.send("determinism", **self._where(case, seed), same=same,
                         max_abs_diff=max_abs_diff(first, second))

    def time_case(self, case, seed) -> None:
        args = self._inputs(case, seed)
        if args is None:
            return

        def call():
            self.entry(*args)

        try:
            with torch.no_grad():
                result = timing.measure(call, self.device, self.request.get("timing") or {})
        except (Exception, SystemExit) as exc:
            self.writer.error("timing", **describe(exc, self.code_file, self.module), **self._where(case, seed))
            self._check_device()
            return
        self.writer.send("timing", **self._where(case, seed), **result)

    # -- the whole job -----------------------------------------------------------------

    def run(self) -> None:
        if not self.load():
            return
        os.makedirs(self.request["outputs_dir"], exist_ok=True)
        timed = []
        for case in self.request.get("cases", []):
            seeds = list(case.get("seeds") or [])
            for index, seed in enumerate(seeds):
                outputs = self.call_once(case, seed)
                if index == 0 and outputs is not None:
                    timed.append((case, seed))
                    if self.request.get("check_determinism"):
                        self.check_determinism(case, seed, outputs)
        if (self.request.get("timing") or {}).get("enabled"):
            for case, seed in timed:
                self.time_case(case, seed)

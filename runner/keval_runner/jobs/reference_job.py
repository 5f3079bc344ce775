"""A `reference` job: run the task's reference on the same inputs and compare with the
outputs the candidate job saved. Runs in its own child, so candidate code never shares a
process with the oracle.
"""

import sys

import torch

from ..device import device_gate
from ..checks.checks import FINITE_BYTE, POISON_MAX_BYTES, GuardBands, poison_memory
from ..compare.compare import (as_output_list, changed_elements, compare_outputs, differs_where_defined,
                               not_judged_where_undefined)
from ..protocol.errors import describe
from ..inputs.inputs import build_inputs, draws_on_device, synchronize, torch_device
from ..protocol.phases import phase
from ..compare.precision import lower_precision_errors
from ..handoff.output_files import load_outputs, output_path, rerun_path
from ..inputs.task_files import load_reference_module


class ReferenceJob:
    def __init__(self, request: dict, writer):
        self.request = request
        self.writer = writer
        self.device = torch_device(request.get("device", "cpu"), request.get("gpu", 0))
        self.on_device = draws_on_device(request)  # keval's format and inputs_on_device: drawn on self.device
        self.module = None

    def _task_error(self, stage, exc, where) -> None:
        fields = describe(exc, self.module.__file__ if self.module else None)
        self.writer.error(stage, **fields, **where)

    def compare_one(self, case, seed) -> None:
        where = {"case": case["name"], "dtype": case["dtype"], "seed": seed}
        defined_check = bool(self.request.get("check_reference_defined"))
        try:
            with phase("inputs"):
                args = build_inputs(self.module.make_inputs, case, seed, self.device, self.on_device)
                if defined_check:
                    args = self.surrounded(args, finite=True)
        except Exception as exc:
            self._task_error("inputs", exc, where)
            return
        try:
            # no default-device context: the candidate and timing jobs call without one, so a
            # factory without a device (a TritonBench test's torch.randn(...).cuda()) draws from
            # the same generator on both sides
            with phase("reference_calls"), torch.no_grad():
                if defined_check:
                    poison_memory(self.device, POISON_MAX_BYTES, FINITE_BYTE)
                refs = as_output_list(self.module.reference(*args))
                synchronize(self.device)
                undefined = None
                if defined_check:
                    undefined = self.undefined_elements(case, seed, refs)
        except (Exception, SystemExit) as exc:
            self._task_error("reference", exc, where)
            return

        path = output_path(self.request["outputs_dir"], case["name"], case["dtype"], seed)
        try:
            with phase("compare"):
                outs = load_outputs(path)
                if outs is None:
                    self.writer.send("compare", **where, missing=True, n_outputs=None,
                                     ref_n_outputs=len(refs), outputs=[])
                    return
                if undefined is not None:
                    outs = not_judged_where_undefined(outs, refs, undefined)
                facts = compare_outputs(outs, refs, case.get("atol", 0.0), case.get("rtol", 0.0))
                extra = {}
                if undefined is not None:
                    for fact in facts:
                        mask = undefined[fact["index"]] if fact["index"] < len(undefined) else None
                        fact["ref_undefined"] = int(mask.sum().item()) if mask is not None else 0
                    rerun = load_outputs(rerun_path(self.request["outputs_dir"], case["name"], case["dtype"], seed))
                    if rerun is not None:
                        extra["rerun_differs_where_defined"] = differs_where_defined(outs, rerun, refs, undefined)
        except Exception as exc:
            self.writer.error("compare", **describe(exc), **where)
            return
        if case.get("lower_precisions"):
            try:
                with phase("lower_precision"):
                    self.add_lower_precision_errors(case, seed, refs, facts)
            except (Exception, SystemExit) as exc:
                # a reference that refuses rounded inputs only leaves this call unchecked for precision
                print(f"keval_runner: the reference on lower-precision inputs failed: {exc!r}", file=sys.stderr)
        self.writer.send("compare", **where, missing=False, n_outputs=len(outs),
                         ref_n_outputs=len(refs), outputs=facts, **extra)

    def add_lower_precision_errors(self, case, seed, refs: list, facts: list) -> None:
        """Each float32 output's `lower_precision_err`: the reference's own error on fresh inputs
        rounded to each precision the case lists (precision.py), beside the candidate's
        `mean_rel_err`, for outputs whose shape and dtype match the reference's."""
        def fresh_args():
            return build_inputs(self.module.make_inputs, case, seed, self.device, self.on_device)

        errors = lower_precision_errors(self.module.reference, fresh_args, refs, case["lower_precisions"])
        synchronize(self.device)
        for fact in facts:
            measured = errors[fact["index"]] if fact["index"] < len(errors) else None
            if measured is not None and fact["shape"] == fact["ref_shape"] and fact["dtype"] == fact["ref_dtype"]:
                fact["lower_precision_err"] = measured

    def surrounded(self, args, finite: bool):
        """args between guard bands (reference_guard_bytes; none when 0), finite or NaN."""
        guard_bytes = int(self.request.get("reference_guard_bytes") or 0)
        return GuardBands(args, guard_bytes, finite).args if guard_bytes > 0 else args

    def undefined_elements(self, case, seed, refs: list) -> list:
        """The first call ran with free memory and the inputs' guard bands holding finite bytes;
        this one calls the reference again on fresh inputs with both holding NaN bytes (as a
        candidate's call does). Per output, a mask of the elements that changed (None where the
        two calls' outputs do not even have the same shape): those the reference never wrote
        or computed from memory it never initialised, an input's neighbours included. Two
        different fills, so an unwritten element cannot hold the same bytes by chance."""
        args = self.surrounded(build_inputs(self.module.make_inputs, case, seed, self.device, self.on_device),
                               finite=False)
        poison_memory(self.device, POISON_MAX_BYTES)
        again = as_output_list(self.module.reference(*args))
        synchronize(self.device)
        return [changed_elements(a, b) for a, b in zip(refs, again)] + [None] * (len(refs) - len(again))

    def run(self) -> None:
        with phase("load"):
            self.module = load_reference_module(self.request["task_dir"], self.writer)
        if self.module is None:
            return
        for case in self.request.get("cases", []):
            for seed in case.get("seeds") or []:
                device_gate.pause_point(self.request, self.writer, self.device)
                self.compare_one(case, seed)
        if self.request.get("warm_compile"):
            with phase("compile_warm"):
                self.warm_compile(self.request["warm_compile"])

    def warm_compile(self, timed: list) -> None:
        """Compiles torch.compile(reference) on the timed cases, in the timing job's order, so its
        caches (Inductor's and Triton's, per uid) hold the graphs: the timing job, which has the
        GPU alone, then loads them instead of compiling. A failure only costs that speed-up."""
        import time

        started = time.perf_counter()
        ok = True
        try:
            compiled = torch.compile(self.module.reference)
            for wanted in timed:
                case = next((c for c in self.request.get("cases", [])
                             if c["name"] == wanted.get("name") and c["dtype"] == wanted.get("dtype")), None)
                if case is None or not case.get("seeds"):
                    continue
                args = build_inputs(self.module.make_inputs, case, case["seeds"][0], self.device, self.on_device)
                with torch.no_grad():
                    compiled(*args)
                synchronize(self.device)
        except Exception as exc:
            ok = False
            print(f"keval_runner: torch.compile warm-up failed: {exc!r}", file=sys.stderr)
        self.writer.send("compile_warm_up", ok=ok, seconds=time.perf_counter() - started)

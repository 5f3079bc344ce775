"""A `sweep` job: many variants of one task's golden judged and timed in one process.

`keval sweep` makes the variants from keval's own goldens (only tuning constants differ), so
they are trusted code: they run in the job's process, without the warden/guest split of a
candidate. What one evaluation would spend on its own processes (fork, sandbox, guest,
imports, the reference's inputs and outputs) is spent once per task here; each variant costs
its compile and its samples. Per variant the job sends the messages a candidate, reference
and timing job would (`call`, `compare`, `timing`, `error`), each tagged with the variant's
index, then `variant_done`; the controller splits them into one evaluation per variant and
judges each as any other.

Correctness: the request's `cases` (the small ones, one seed), against the reference's outputs
computed once. Timing: every variant whose calls ran is timed on `timed` (the benchmark cases)
with the device alone, one stretch per variant, with the same sampler as the timing job.
A device fault ends the job after the variant that caused it: the controller starts a new job
for the variants not reached.
"""

import torch

from ..device import device_gate
from ..checks import kernel_tracking
from ..compare.compare import as_output_list, compare_outputs, tensors_identical
from ..protocol.errors import DeviceError, describe
from ..inputs.inputs import build_inputs, draws_on_device, synchronize, tensors_in, torch_device
from ..timing.interleaved_timing import Contender, measure_interleaved, timing_fields
from ..checks.kernel_identity import defined_kernels, launched_kernels, split_own
from ..timing.l2_persistence import L2Persistence
from ..timing.launch_cover import LaunchCover
from ..inputs.loading import MissingEntry, find_entry, load_module
from ..protocol.phases import phase
from ..inputs.task_files import load_reference_module


def _where(case: dict, seed: int) -> dict:
    return {"case": case["name"], "dtype": case["dtype"], "seed": int(seed)}


def _device_alive(device: torch.device) -> bool:
    if device.type != "cuda":
        return True
    try:
        torch.cuda.synchronize(device)
        return True
    except Exception:
        return False


class SweepJob:
    def __init__(self, request: dict, writer):
        self.request = request
        self.writer = writer
        self.device = torch_device(request.get("device", "cpu"), request.get("gpu", 0))
        self.on_device = draws_on_device(request)
        self.settings = request.get("timing") or {}
        self.l2 = self.cover = None
        self.reference = None
        self.expected = []  # (case, seed, inputs, reference outputs)
        self.timed = []  # (case, seed, inputs)

    def send(self, index: int, type_: str, **fields) -> None:
        self.writer.send(type_, variant=index, **fields)

    def error(self, index: int, stage: str, exc, code_file=None, **where) -> None:
        self.writer.error(stage, **describe(exc, code_file), **where, variant=index)

    def inputs(self, case: dict, seed: int):
        return build_inputs(self.reference.make_inputs, case, seed, self.device, self.on_device)

    def prepare(self) -> bool:
        """The reference's outputs of the correctness cases and the timed cases' inputs."""
        with phase("load"):
            self.reference = load_reference_module(self.request["task_dir"], self.writer)
        if self.reference is None:
            return False
        with phase("reference_calls"), torch.no_grad():
            for case in self.request.get("cases") or []:
                for seed in (case.get("seeds") or [])[:1]:
                    args = self.inputs(case, seed)
                    refs = [t.clone() for t in as_output_list(self.reference.reference(*args))]
                    self.expected.append((case, seed, args, refs))
            for case in self.request.get("timed") or []:
                for seed in (case.get("seeds") or [])[:1]:
                    self.timed.append((case, seed, self.inputs(case, seed)))
        synchronize(self.device)
        if self.device.type == "cuda":
            self.l2 = L2Persistence.open()
            self.cover = LaunchCover.open(self.device, self.settings)
        kernel_tracking.install()
        kernel_tracking.idle_while_compiling(self.request, self.writer, self.device)
        return True

    def fresh(self, args: tuple) -> tuple:
        """A copy of the inputs: a variant that writes into them must not change the next's."""
        return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)

    def check(self, index: int, entry, defined: set, code_file: str) -> bool:
        """The correctness calls; True when every call ran (so the variant is worth timing)."""
        ran = True
        for case, seed, args, refs in self.expected:
            where = _where(case, seed)
            device_gate.pause_point(self.request, self.writer, self.device)
            given = self.fresh(args)
            try:
                with phase("calls"), torch.no_grad(), kernel_tracking.tracking() as launched:
                    outs = as_output_list(entry(*given))
                    synchronize(self.device)
            except (Exception, SystemExit) as exc:
                self.error(index, "call", exc, code_file, **where)
                ran = False
                continue
            own, other = split_own(launched_kernels(launched), defined)
            inputs = tensors_in(given)
            self.send(index, "call", **where, ok=True, kernels=own, other_kernels=other,
                      inputs_mutated=any(not tensors_identical(a, b) for a, b in zip(tensors_in(args), inputs)),
                      output_is_input=any(o is t for o in outs for t in inputs),
                      guard_violations=[], guard_bands_dropped=None, foreign_output_types=[])
            with phase("compare"):
                facts = compare_outputs(outs, refs, case.get("atol", 0.0), case.get("rtol", 0.0))
            self.send(index, "compare", **where, missing=False, n_outputs=len(outs),
                      ref_n_outputs=len(refs), outputs=facts)
        return ran

    def calls(self, entry, args):
        """prepare(k) of the timed calls: an in-place task's inputs are copied there, outside
        the timed region."""
        if not self.request.get("inplace"):
            return lambda k: (lambda: entry(*args))

        def prepare(k):
            given = self.fresh(args)
            return lambda: entry(*given)
        return prepare

    def time(self, index: int, entry, code_file: str) -> None:
        """Each timed case: a warm-up call sharing the device (it compiles), then the samples of
        every case in one stretch with the device alone."""
        ready = []
        for case, seed, args in self.timed:
            device_gate.pause_point(self.request, self.writer, self.device)
            try:
                with phase("warm_up"), torch.no_grad():
                    entry(*self.fresh(args) if self.request.get("inplace") else args)
                    synchronize(self.device)
                ready.append((case, seed, args))
            except (Exception, SystemExit) as exc:
                self.error(index, "timing", exc, code_file, **_where(case, seed))
        if not ready:
            return
        measured = []
        with device_gate.alone(self.request, self.writer), phase("timing"), torch.no_grad():
            for case, seed, args in ready:
                contender = Contender("candidate", self.calls(entry, args))
                try:
                    measure_interleaved([contender], self.device, self.settings, l2=self.l2, cover=self.cover)
                    measured.append((case, seed, contender))
                except (Exception, SystemExit) as exc:
                    self.error(index, "timing", exc, code_file, **_where(case, seed))
        for case, seed, contender in measured:
            # timed outputs are not re-checked here: the variants are keval's own code
            self.send(index, "timing", **_where(case, seed), **timing_fields(contender, self.device),
                      timed_output_mismatches=0, timed_output_checks=0)

    def one(self, index: int, code_file: str) -> None:
        try:
            with phase("load"):
                module = load_module(code_file, f"keval_sweep_variant_{index}")
                entry = find_entry(module, self.request.get("entry", ""))[1]
        except (Exception, SystemExit) as exc:
            stage = "entry" if isinstance(exc, MissingEntry) else "import"
            self.error(index, stage, exc, code_file)
            return
        with open(code_file) as f:
            defined = defined_kernels(f.read())
        if self.check(index, entry, defined, code_file) and self.request.get("timed"):
            self.time(index, entry, code_file)

    def run(self) -> None:
        if not self.prepare():
            return
        for variant in self.request.get("variants") or []:
            index = int(variant["index"])
            self.one(index, variant["code_file"])
            if not _device_alive(self.device):
                # the context is gone: this variant's facts are sent, the rest need a new job
                self.writer.send("variant_done", variant=index)
                raise DeviceError("DeviceLost", f"variant {index} left the CUDA context unusable")
            self.writer.send("variant_done", variant=index)

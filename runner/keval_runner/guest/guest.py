"""The guest: the only process that runs the submission's code.

Forked by the warden (the job's own process) before either touches CUDA, it sandboxes itself
(the job's uid, no network, private /tmp, the suite and the other jobs' folders hidden), then
serves the warden's requests over the channel: load the submission, call it on arguments that
live in the warden's memory, take timing samples, profile a call. It holds no task file, no
reference, no golden and no way to the controller: its replies are evidence the warden checks
and forwards, never facts by themselves (docs/trust.md).
"""

import itertools
import os
import sys
import time

import torch

from ..checks import checks, kernel_profile, kernel_tracking
from ..timing import cpu_pinning
from ..device import device_sharing, peak_memory
from ..interpreter import interpreter_memcheck
from ..compare.compare import NonTensorOutput, as_output_list, tensors_identical
from ..protocol.errors import DeviceError, describe, out_of_memory_seen
from .guest_channel import Channel, ChannelError
from .guest_timed_call import CALIBRATION_KEY, TimedCalls, null_call
from ..inputs.inputs import forget_drawn_inputs, tensors_in
from ..timing.interleaved_timing import Sampler
from ..checks.kernel_identity import launched_kernels
from ..inputs.loading import CANDIDATE_MODULE, MissingEntry, find_entry, load_module
from ..protocol.messages import clip
from ..handoff.output_files import plain_copy, plain_cpu_copy
from ..timing.rotation import InputRotation
from ..sandbox.sandbox import SandboxError
from ..handoff.sealed_outputs import seal_outputs
from ..inputs.shared_inputs import forget_task_modules
from ..handoff.shared_args import ArgsOpener, output_payload
from ..checks.tamper_snapshot import RunnerSnapshot

_clock = time.perf_counter  # bound before the submission loads
_synchronize = torch.cuda.synchronize


class Guest:
    def __init__(self, request: dict, channel: Channel, device: torch.device, sampler=None):
        self.request = request
        self.channel = channel
        self.device = device
        self.code_file = request["code_file"]
        self.checks = checks.settings_from(request)
        self.opener = ArgsOpener(device)
        self.module = self.entry = None
        self.watch = self.snapshot = None
        self.rotations = {}  # case key -> InputRotation
        self.kept = {}  # case key -> seed -> first outputs on the device (timed calls repeat them)
        self.imports = {}  # case key -> the device mappings of its input sets
        self.cover_us = {}  # case key -> the launch cover fitted to its call after the warm-up
        self.sampler = sampler  # a timed job's on CUDA (start_device), else made at its first rotation
        self.handlers = {"load": self.load, "call": self.call, "rotation": self.rotation,
                         "warm_up": self.warm_up, "sample": self.sample, "profile": self.profile,
                         "drop": self.drop, "peak_memory": self.peak_memory, "pin": self.pin,
                         "arm": self.arm, "go": self.go, "gate": self.gate}
        self.timed_calls = TimedCalls(self.opener)
        self.own_cpus = os.sched_getaffinity(0)  # what `pin` with no cpus puts back

    # -- plumbing ----------------------------------------------------------------------------

    def reply(self, header: dict, payload=(), fds=()) -> None:
        start = _clock()
        header["tampering"] = self.tampered()
        header["check_ms"] = (_clock() - start) * 1e3  # diagnostics: where a sample's time goes
        self.channel.send(header, payload, fds)

    def tampered(self) -> list:
        """Names replaced since the last reply (each reported once), the originals put back."""
        names = []
        if self.watch is not None:
            names += self.watch.changed_names()
        if self.snapshot is not None:
            names += self.snapshot.changed()
        return names

    def failed(self, exc, **where) -> dict:
        error = describe(exc, self.code_file, self.module)
        error["message"] = clip(error["message"])  # a frame has a size limit; the message one too
        return {"ok": False, "error": error, **where}

    def check_device(self) -> None:
        """After a failed call on CUDA: a sticky fault leaves the context unusable."""
        if self.device.type != "cuda":
            return
        try:
            torch.cuda.synchronize(self.device)
        except Exception as exc:
            raise DeviceError("DeviceLost", f"CUDA context lost after a failed call: {exc}") from exc

    def synchronize(self) -> None:
        if self.device.type == "cuda":
            _synchronize(self.device)

    def serve(self) -> None:
        while True:
            header, _, fds = self.channel.receive()
            op = header.get("op")
            if op == "end":
                return
            try:
                self.handlers[op](header, fds)
            finally:
                for fd in fds:
                    os.close(fd)

    # -- requests ----------------------------------------------------------------------------

    def load(self, header, fds) -> None:
        kernel_tracking.install()
        if self.device.type == "cpu":  # before the watch: the patched interpreter is what it keeps
            problem = interpreter_memcheck.enable_memcheck()
            if problem:  # in the job's stderr log, where a surprising pass is looked into
                print(f"keval_runner: no bounds check on the CPU: {problem}", file=sys.stderr)
        if self.device.type == "cuda":
            device_sharing.driver()  # bound before the snapshot: its module global is set once
        if self.checks["tamper"]:
            self.watch = checks.TamperWatch(lambda *a, **k: None)
            self.snapshot = RunnerSnapshot.take()
        try:
            self.module = load_module(self.code_file, CANDIDATE_MODULE)
        except (Exception, SystemExit) as exc:
            self.reply({**self.failed(exc), "stage": "import"})
            return
        try:
            name, self.entry = find_entry(self.module, self.request.get("entry", ""))
        except MissingEntry as exc:
            self.reply({"ok": False, "stage": "entry", "error": {"error_kind": "MissingEntry", "error_class": "MissingEntry",
                                                               "message": str(exc), "line": None}})
            return
        self.reply({"ok": True, "entry": name})

    def call(self, header, fds) -> None:
        """One call on the warden's arguments; the outputs go back as plain bytes."""
        imported = []
        try:
            args = self.opener.open(header["args"], fds, imported)
            self.call_on(header, args)
        finally:
            args = None
            for mapped in imported:
                mapped.close()

    def call_on(self, header, args) -> None:
        inputs = tensors_in(args)
        poisoned = False
        if header.get("poison"):
            poisoned = checks.poison_memory(self.device, checks.poison_size(inputs))
        ablate = bool(header.get("ablate"))
        result, failure = None, None
        with kernel_tracking.tracking(suppress=CANDIDATE_MODULE if ablate else None) as launched, torch.no_grad(), \
                interpreter_memcheck.checking(inputs):
            started = _clock()
            try:
                result = self.entry(*args)
                self.synchronize()
            except (Exception, SystemExit) as exc:
                failure = exc
            wall_ms = (_clock() - started) * 1e3
        # an access out of bounds fails the call even where the submission caught the exception
        failure = interpreter_memcheck.take_violation() or failure
        facts = {"kernels": launched_kernels(launched), "wall_ms": wall_ms, "poisoned": poisoned}
        if failure is not None:
            self.reply({**facts, **self.failed(failure)})
            self.check_device()
            return
        try:
            outputs = as_output_list(result)
        except NonTensorOutput as exc:
            self.reply({**facts, "ok": False, "error": {"error_kind": "NonTensorOutput", "error_class": "NonTensorOutput",
                                                        "message": str(exc), "line": None}})
            return
        storages = {t.untyped_storage().data_ptr() for t in inputs if t.numel() > 0}
        facts["output_is_input"] = any(o.numel() > 0 and o.untyped_storage().data_ptr() in storages for o in outputs)
        facts["foreign_output_types"] = checks.foreign_output_types(outputs)
        returned = header.get("return_outputs") is not False
        kept = self.kept.get(header.get("compare_kept"), {}).get(header.get("seed"))
        sealed, copies = None, None
        try:
            if kept is not None:  # a re-run: its outputs go back only if they differ from the kept
                facts["same_as_kept"] = len(kept) == len(outputs) and all(
                    tensors_identical(k, o) for k, o in zip(kept, outputs))
                returned = returned and not facts["same_as_kept"]
            if returned:
                try:
                    sealed = seal_outputs(outputs)
                except OSError:  # no sealable memory here, or over the file-size limit: bytes go instead
                    copies = [plain_cpu_copy(t) for t in outputs]
            if header.get("keep_as") is not None:  # the first outputs timed calls must repeat
                self.kept.setdefault(header["keep_as"], {})[header.get("seed")] = [plain_copy(o) for o in outputs]
        except Exception as exc:  # e.g. a tensor subclass that cannot be copied
            for fd in sealed[1] if sealed else ():
                os.close(fd)
            self.reply({**facts, **self.failed(exc)})
            return
        if not returned:
            self.reply({**facts, "ok": True, "outputs": None})
        elif sealed is not None:
            described, fds = sealed
            try:
                self.reply({**facts, "ok": True, "outputs": described, "sealed": True}, fds=fds)
            finally:
                for fd in fds:
                    os.close(fd)
        else:
            described, chunks = output_payload(copies)
            self.reply({**facts, "ok": True, "outputs": described}, chunks)

    def rotation(self, header, fds) -> None:
        """The input sets of one timed case, each set a seed's arguments in the warden's memory."""
        sets, at, imported = [], 0, []
        for item in header["sets"]:
            count = item["fds"]
            sets.append((item["seed"], self.opener.open(item["args"], fds[at: at + count], imported)))
            at += count
        self.imports[header["key"]] = imported
        first = dict(self.kept.get(header["key"], {}))
        rotation = InputRotation(self.entry, sets, first, buffers=header.get("buffers"))
        try:
            with torch.no_grad():
                rotation.record_first_outputs()
        except (Exception, SystemExit) as exc:
            self.reply(self.failed(exc))
            self.check_device()
            return
        interval = int(header.get("check_interval") or 0)
        rotation.observe = rotation.observer(interval) if interval > 0 else None
        self.rotations[header["key"]] = rotation
        if self.sampler is None:
            self.sampler = Sampler(self.device, self.request.get("timing") or {})
        self.reply({"ok": True, "input_sets": len(rotation)})

    def arm(self, header, fds) -> None:
        """The buffers of a case the warden times from outside (guest_timed_call.py)."""
        self.timed_calls.arm(header["key"], header["args"], fds, int(header.get("slots") or 0),
                             int(header.get("calls") or 1))
        self.reply({"ok": True})

    def gate(self, header, fds) -> None:
        """The warden's clock words on CUDA (guest_timed_call.py), mapped before any timed call."""
        self.timed_calls.open_gate(fds)
        self.reply({"ok": True})

    def go(self, header, fds) -> None:
        """One call timed by the warden: no snapshot walk before the answer (it would be timed;
        the next other reply reports what changed), the answer as short as it can be."""
        key = header["key"]
        entry = null_call if key == CALIBRATION_KEY else self.entry
        try:
            answer = self.timed_calls.go(key, entry, header.get("n"))
        except (Exception, SystemExit) as exc:
            self.reply(self.failed(exc))
            return
        answer["tampering"] = []
        self.channel.send(answer)

    def drop(self, header, fds) -> None:
        """Frees a measured case's input sets and first outputs; says the persisting-L2 limit
        its context has had since the last reset (reset again)."""
        self.timed_calls.drop(header.get("key"))
        self.rotations.pop(header.get("key"), None)
        self.kept.pop(header.get("key"), None)
        for mapped in self.imports.pop(header.get("key"), []):
            mapped.close()
        if self.device.type == "cuda":
            torch.cuda.empty_cache()  # the next case's sizes seldom fit these blocks
        self.reply({"ok": True, "l2_persisting_bytes": self.sampler.reset_l2() if self.sampler is not None else 0})

    def pin(self, header, fds) -> None:
        """This thread on the warden's core while they take turns measuring (cpu_pinning.py);
        `cpus` absent: back to the cores it had."""
        cpus = header.get("cpus")
        try:
            cpu_pinning.pin(self.own_cpus if cpus is None else [int(c) for c in cpus])
        except (OSError, TypeError, ValueError) as exc:
            self.reply({"ok": False, "error": {"error_kind": "Pin", "error_class": type(exc).__name__,
                                               "message": clip(str(exc)), "line": None}})
            return
        self.reply({"ok": True})

    def warm_up(self, header, fds) -> None:
        rotation = self.rotations[header["key"]]
        try:
            with torch.no_grad():
                count = int(header.get("count") or 0)
                for k in range(count):
                    rotation.prepare(k)()
                self.synchronize()
                following = itertools.count(count)
                cap_us = header.get("cover_cap_us")
                self.cover_us[header["key"]] = self.sampler.fit_cover(
                    lambda: rotation.prepare(next(following)), float(cap_us) if cap_us is not None else None)
        except (Exception, SystemExit) as exc:
            self.reply(self.failed(exc))
            self.check_device()
            return
        self.reply({"ok": True, "l2_persisting_bytes": self.sampler.reset_l2(),
                    "fit_enqueues_us": self.sampler.fit_enqueues_us()})

    def peak_memory(self, header, fds) -> None:
        self.reply({"ok": True, "gpu_bytes": peak_memory.gpu_bytes()})

    def sample(self, header, fds) -> None:
        start = _clock()
        rotation = self.rotations[header["key"]]
        try:
            with torch.no_grad():
                l2 = self.sampler.reset_l2()
                k, cap_us = int(header["k"]), header.get("cover_cap_us")
                (event_ms, host_ms, cover_ms, output), self.cover_us[header["key"]] = self.sampler.take_covered(
                    lambda: rotation.prepare(k), self.cover_us.get(header["key"]),
                    float(cap_us) if cap_us is not None else None, index=int(header["index"]))
                if rotation.observe is not None:
                    rotation.observe(int(header["index"]), output)
        except (Exception, SystemExit) as exc:
            self.reply(self.failed(exc))
            self.check_device()
            return
        self.reply({"ok": True, "event_ms": event_ms, "host_ms": host_ms, "cover_ms": cover_ms,
                    "l2_persisting_bytes": l2, "checks": rotation.checks, "mismatches": rotation.mismatches,
                    "handler_ms": (_clock() - start) * 1e3})

    def profile(self, header, fds) -> None:
        imported = []
        try:
            self.profile_on(header, self.opener.open(header["args"], fds, imported))
        finally:
            for mapped in imported:
                mapped.close()

    def profile_on(self, header, args) -> None:
        launched = []

        def call(timer=None):
            with kernel_tracking.tracking(timer) as seen, torch.no_grad():
                try:
                    self.entry(*args)
                finally:
                    launched.extend(seen)

        threshold = float(header.get("screen_share") or 0)
        try:
            facts = None
            if threshold > 0:
                screened = kernel_profile.screen_call(call, self.device, lambda k: k[1] == CANDIDATE_MODULE)
                if screened["own_share"] is not None and screened["own_share"] >= threshold:
                    facts = screened
            if facts is None:
                launched.clear()
                facts = kernel_profile.profile_call(
                    call, self.device, lambda: kernel_tracking.split_by_module(launched, CANDIDATE_MODULE)[0])
        except (Exception, SystemExit) as exc:
            self.reply(self.failed(exc))
            self.check_device()
            return
        self.reply({"ok": True, "profile": facts, "kernels": launched_kernels(launched)})


def start_device(request: dict) -> tuple:
    """(device, sampler): the guest's device, on CUDA its context started before anything of
    the submission's, and for a timed job its Sampler (the launch cover compiled): done before
    `ready`, while the warden starts its own context."""
    if request.get("device") != "cuda":
        return torch.device("cpu"), None
    device = torch.device("cuda", 0)
    torch.cuda.set_device(0)
    torch.zeros(1, device=device)
    timing = request.get("timing") or {}
    return device, Sampler(device, timing) if timing.get("enabled") else None


def run_guest(request: dict, channel: Channel, enter_sandbox) -> None:
    """The guest's whole life (never returns): sandbox, device, serve, exit. Exit codes as the
    job child's (child.py): 0 after `end`, 4 when the device was lost, 3 on a fault of ours."""
    code = 3
    try:
        forget_drawn_inputs()
        forget_task_modules()
        # the cases' seeds and tolerances: this process's copy of the request the warden and
        # the zygote hold (calls bring their own seed)
        request.pop("cases", None)
        try:
            facts = enter_sandbox()
        except Exception as exc:  # noqa: BLE001 (no code of the submission has run yet)
            message = str(exc) if isinstance(exc, SandboxError) else f"{type(exc).__name__}: {exc}"
            channel.send({"op": "sandbox_failed", "message": message})
            raise
        try:
            device, sampler = start_device(request)
        except Exception as exc:  # noqa: BLE001 (still no code of the submission)
            channel.send({"op": "device_failed", "error_kind": type(exc).__name__, "message": str(exc),
                          "out_of_memory": out_of_memory_seen(exc)})
            raise
        channel.send({"op": "ready", "sandbox": facts})
        Guest(request, channel, device, sampler).serve()
        code = 0
    except DeviceError as exc:
        # After `ready` the warden hears nothing of it but the exit: the guest's word that its
        # device failed decides nothing (the warden checks its own context).
        print(f"keval_runner guest: {exc.kind}: {exc}", file=sys.stderr)
        code = 4
    except ChannelError:
        code = 3
    except BaseException as exc:  # noqa: BLE001 (the warden reports a guest that fails)
        print(f"keval_runner guest: {exc!r}", file=sys.stderr)
        code = 3
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)

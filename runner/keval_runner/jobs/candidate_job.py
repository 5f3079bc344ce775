"""A `candidate` job, the warden's side: it never loads the submission; its guest does.

The warden draws every input, places it between guard bands in memory the guest maps, asks the
guest to call the submission, and then checks from its own process what the call left behind:
inputs unchanged, guard bands intact, the outputs (copied out of the guest as plain bytes)
saved where the job's uid cannot write. Which kernels ran, timing samples and the kernel
profile come from the guest as evidence: the warden decides which kernels are the
submission's own from the submission's text (kernel_identity.py), forwards what the guest saw
replaced (`tampering`), and reports a reply the protocol does not allow as tampering too.
Judging is the controller's.
"""

import os

import torch

from ..checks import checks, kernel_identity
from ..timing import cpu_pinning
from ..device import device_gate, peak_memory
from ..compare.compare import max_abs_diff, tensors_identical
from ..device.device_pressure import free_share
from ..protocol.errors import describe
from ..guest.guest_process import GuestMisbehaved
from ..guest.guest_limits import output_payload_limit
from ..warden.guest_timing import GuestContender, GuestCallFailed
from ..timing.interleaved_timing import measure_contender
from ..timing.timing import check_interval, l2_bytes
from ..warden.warden_timed_candidate import TimedGuest, WardenTimedCandidate
from ..warden.gpu_timed_guest import GpuTimedGuest
from ..protocol.request_check import warden_clocks_cuda
from ..inputs.inputs import build_inputs, drawn_bytes, draws_on_device, input_bytes, tensors_in, torch_device
from ..protocol.messages import clip
from ..handoff.output_files import output_path, rerun_path
from ..handoff.output_saver import OutputSaver
from ..protocol.phases import phase
from ..timing.rotation import derived_seeds, one_buffer_bytes, rotation_buffers, rotation_set_count
from ..handoff.sealed_outputs import open_sealed_outputs
from ..handoff.shared_args import outputs_from_payload
from ..handoff.shared_call import SharedCall
from ..inputs.task_files import load_reference_module


class CandidateJob:
    def __init__(self, request: dict, writer, guest):
        self.request = request
        self.writer = writer
        self.send = writer.send
        self.guest = guest
        self.device = torch_device(request.get("device", "cpu"), request.get("gpu", 0))
        self.code_file = request["code_file"]
        self.checks = checks.settings_from(request)
        self.make_inputs = None
        self.saver = OutputSaver()
        self.timed_guest = None  # TimedGuest where the warden times the candidate (CPU)
        self.reference_fn = None
        with open(self.code_file, encoding="utf-8", errors="replace") as f:
            self.defined = kernel_identity.defined_kernels(f.read())

    # -- the guest -------------------------------------------------------------------------

    def ask(self, header: dict, fds=(), stage: str = "call", where=None, keep_fds: bool = False,
            max_payload_bytes=None):
        """The guest's (reply, payload, descriptors: see GuestProcess.ask); what it saw replaced
        is sent as `tampering`."""
        if self.timed_guest is not None:
            self.timed_guest.resume()  # stopped after a timed call
        reply, payload, kept = self.guest.ask(header, fds, keep_fds, max_payload_bytes)
        if reply["tampering"]:
            self.send("tampering", stage=stage, names=[clip(n, 300) for n in reply["tampering"]],
                      **(where or {"case": None, "dtype": None, "seed": None}))
        return reply, payload, kept

    def guest_error(self, stage: str, reply: dict, **fields) -> None:
        """An `error` from a failure the guest reports (its fields checked, not trusted). Its
        `out_of_memory` is never forwarded: the controller retries a job alone only on what
        the warden saw, here how full the driver shows the device (device_pressure.py)."""
        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        line = error.get("line")
        error_kind = clip(str(error.get("error_kind", "GuestError")), 100)
        share = free_share(self.device, error_kind)
        if share is not None:
            fields["device_free_share"] = share
        self.writer.error(stage, error_kind, str(error.get("message", "")),
                          line=line if isinstance(line, int) and not isinstance(line, bool) else None,
                          error_class=clip(str(error.get("error_class", "GuestError")), 100), **fields)

    def own_and_other(self, reported) -> tuple:
        return kernel_identity.split_own(reported, self.defined)

    # -- setup -------------------------------------------------------------------------

    def load(self) -> bool:
        reference = load_reference_module(self.request["task_dir"], self.writer)
        if reference is None:
            return False
        self.make_inputs = reference.make_inputs
        self.reference_fn = reference.reference
        reply, _, _ = self.ask({"op": "load"}, stage="import")
        if not reply["ok"]:
            stage = "entry" if reply.get("stage") == "entry" else "import"
            self.guest_error(stage, reply)
            return False
        self.send("entry", name=clip(str(reply.get("entry", "")), 200))
        return True

    # -- one call ----------------------------------------------------------------------

    def _where(self, case, seed) -> dict:
        return {"case": case["name"], "dtype": case["dtype"], "seed": seed}

    def _inputs(self, case, seed, read_only: bool = False):
        """The arguments of one call, or None (the failure reported). read_only: the memo's own
        tensors where they lie on the device already, for a caller that only copies them (into
        a SharedCall); else a copy of its own (a baseline may change its inputs)."""
        return self._drawing(case, seed, lambda: build_inputs(
            self.make_inputs, case, seed, self.device, on_device=draws_on_device(self.request), read_only=read_only))

    def _input_bytes(self, case, seed):
        """The bytes of one call's input tensors, drawn (or the memo's) but not copied to the
        device; None when drawing them fails (reported)."""
        return self._drawing(case, seed, lambda: drawn_bytes(
            self.make_inputs, case, seed, self.device, on_device=draws_on_device(self.request)))

    def _drawing(self, case, seed, draw):
        """draw()'s value, or None with the task's make_inputs failure reported."""
        try:
            with phase("inputs"):
                return draw()
        except Exception as exc:
            fields = describe(exc)
            fields["line"] = None  # the fault is in the task's make_inputs, not the candidate
            self.writer.error("inputs", **fields, **self._where(case, seed))
            return None

    def shared(self, args, guard_bytes: int):
        """(SharedCall, why its guard bands were dropped or None). Out of memory for the bands
        still leaves the call to run; the `call` message says so and the judge decides."""
        try:
            return SharedCall(args, guard_bytes), None
        except Exception as exc:  # e.g. out of memory: the guard bands go, the sharing cannot
            if guard_bytes == 0:
                raise
            return SharedCall(args, 0), clip(f"could not be allocated: {exc!r}", 200)

    def guest_call(self, shared: SharedCall, where: dict, **options):
        """The guest's reply to one call, and its outputs as CPU tensors that each own their
        memory (None when it failed)."""
        header = {"op": "call", "args": shared.fields, **options}
        limit = output_payload_limit(input_bytes(shared.args))
        reply, payload, fds = self.ask(header, shared.fds, stage="call", where=where, keep_fds=True,
                                       max_payload_bytes=limit)
        try:
            if not reply["ok"]:
                return reply, None
            if options.get("return_outputs") is False:
                return reply, []
            if options.get("compare_kept") is not None and reply.get("same_as_kept") is True:
                return reply, []  # a re-run the guest found identical to its kept outputs
            try:
                if reply.get("sealed") is True:
                    # sealed memfds are not payload, but the warden maps and saves them whole
                    return reply, open_sealed_outputs(reply.get("outputs"), fds, limit)
                if fds:
                    raise ValueError("descriptors sent beside outputs sent as bytes")
                return reply, [t.clone() for t in outputs_from_payload(reply.get("outputs"), payload)]
            except ValueError as exc:
                raise GuestMisbehaved(f"call outputs: {exc}") from exc
        finally:
            for fd in fds:
                os.close(fd)

    def call_once(self, case, seed, keep_as=None):
        """Runs one call and reports it; returns the saved CPU copies of the outputs or None."""
        where = self._where(case, seed)
        saved = output_path(self.request["outputs_dir"], case["name"], case["dtype"], seed)
        if os.path.exists(saved):
            os.remove(saved)  # a failed call must never leave an older run's outputs behind
        args = self._inputs(case, seed, read_only=True)
        if args is None:
            return None
        shared, guards_dropped = self.shared(args, self.checks["guard_bytes"])
        try:
            # the drawn inputs (the memo's own, where it keeps them) were copied into the shared
            # buffers: they are what the call must leave unchanged, with no other copy made
            before = tensors_in(args)
            options = {"poison": self.checks["poison_outputs"]}
            if keep_as is not None:
                options.update(keep_as=keep_as, seed=seed)
            reply, outputs = self.guest_call(shared, where, **options)
            if outputs is None:
                self.guest_error("call", reply, **where)
            mutated = any(not tensors_identical(t, b) for t, b in zip(shared.inputs, before))
            violations = shared.guards.violations()
        finally:
            shared.close()
        # a failed call needed its inputs too (a draw that runs out of room, say, counts)
        peak_memory.note_call(shared.inputs, outputs or [])
        if outputs is not None:
            self.saver.save(saved, outputs)
        own, other = self.own_and_other(reply.get("kernels"))
        foreign = reply.get("foreign_output_types") if isinstance(reply.get("foreign_output_types"), list) else []
        wall_ms = reply.get("wall_ms") if isinstance(reply.get("wall_ms"), (int, float)) else None
        self.send("call", **where, ok=outputs is not None, kernels=own, other_kernels=other,
                  inputs_mutated=mutated, output_is_input=reply.get("output_is_input") is True,
                  n_outputs=len(outputs) if outputs is not None else None, wall_ms=wall_ms,
                  guard_violations=violations, guard_bands_dropped=guards_dropped,
                  poisoned=reply.get("poisoned") is True, foreign_output_types=[clip(str(t), 200) for t in foreign])
        return outputs

    # -- determinism, timing, profile ----------------------------------------------------

    def check_determinism(self, case, seed, first_outputs) -> None:
        """The first call again on the same inputs. The guest compares the re-run with the
        outputs it kept on the device and sends them back only where they differ, which the
        warden then checks itself: its word that they repeated is worth no more than a cache
        keyed on the inputs' values, which any submission could keep (docs/trust.md)."""
        where = self._where(case, seed)
        rerun = rerun_path(self.request["outputs_dir"], case["name"], case["dtype"], seed)
        if os.path.exists(rerun):
            os.remove(rerun)
        args = self._inputs(case, seed, read_only=True)
        if args is None:
            return
        shared = SharedCall(args, 0)  # no guard bands asked: none to drop
        try:
            reply, second = self.guest_call(shared, where, compare_kept=self.case_key(case), seed=seed)
        finally:
            shared.close()
        if second is None:
            self.guest_error("call", reply, **where, rerun=True)
            return
        by_guest = reply.get("same_as_kept") is True  # and no outputs came back (guest_call)
        same = by_guest or (len(first_outputs) == len(second) and all(
            tensors_identical(a, b) for a, b in zip(first_outputs, second)))
        if not same and self.request.get("save_rerun_outputs"):
            self.saver.save(rerun, second)
        # identical outputs differ by 0: the float64 pass over every element (seconds on a large
        # case) is only worth it where they differ
        self.send("determinism", **where, same=same, max_abs_diff=0.0 if same else max_abs_diff(first_outputs, second),
                  compared_by="guest" if by_guest else "warden")

    def rotation_sets(self, case, seeds, share: bool = False) -> list:
        """(seed, args): fresh inputs of the given seeds, then, on CUDA, derived seeds until the
        inputs exceed twice the L2 size (rotation_set_count). share: (seed, SharedCall)
        instead, each set shared as soon as it is drawn from the memo's own (read-only) inputs,
        so no copy of it is made on the device but the shared one."""
        sets = []

        def add(seed) -> bool:
            args = self._inputs(case, seed, read_only=share)
            if args is None:
                return False
            sets.append((seed, SharedCall(args, 0) if share else args))
            return True

        try:
            for seed in seeds:
                add(seed)
            if not self.rotation_target() or not sets:
                return sets
            first = sets[0][1].args if share else sets[0][1]
            wanted = rotation_set_count(len(sets), input_bytes(first), self.rotation_target())
            for seed in derived_seeds(list(case.get("seeds") or []), wanted - len(sets)):
                if not add(seed):
                    break
            return sets
        except BaseException:
            for _, item in sets if share else []:
                item.close()
            raise

    def rotation_target(self) -> int:
        """The bytes a timed case's sets rotate past with derived sets: twice the L2 on CUDA,
        0 on the CPU (the seeds' sets only)."""
        return 2 * l2_bytes(self.device) if self.device.type == "cuda" else 0

    def rotation_buffers(self, set_bytes: int):
        """How many of a timed case's input sets (of `set_bytes` each) keep buffers of their
        own (rotation.py), alike for every contender: None for all."""
        return rotation_buffers(set_bytes, one_buffer_bytes(self.device, self.request))

    def guest_rotation(self, case, seeds, key: str):
        """The candidate's input sets handed to the guest; a GuestContender timing them, or None
        (the failure reported). The shared sets stay alive with the contender."""
        shared = self.rotation_sets(case, seeds, share=True)
        if not shared:
            return None
        settings = self.request.get("timing") or {}
        interval = check_interval(settings) if self.checks["timed_output_check"] else 0
        header = {"op": "rotation", "key": key, "check_interval": interval,
                  "buffers": self.rotation_buffers(input_bytes(shared[0][1].args)),
                  "sets": [{"seed": seed, "args": s.fields, "fds": len(s.fds)} for seed, s in shared]}
        fds = [fd for _, s in shared for fd in s.fds]
        where = self._where(case, seeds[0])
        reply, _, _ = self.ask(header, fds, stage="timing", where=where)
        if not reply["ok"]:
            for _, s in shared:
                s.close()
            self.guest_error("timing", reply, **where)
            return None
        return GuestContender(self, key, shared, where)

    def candidate_contender(self, case, seeds, key: str):
        """The candidate's contender: timed by the warden (warden_timed_candidate.py), on CUDA
        sampled in the guest when the request says so; None when it cannot be timed (reported)."""
        if self.timed_guest is None:
            return self.guest_rotation(case, seeds, key)
        where = self._where(case, seeds[0])
        try:
            return WardenTimedCandidate(self, self.timed_guest, case, key, where, bool(self.request.get("inplace")))
        except GuestCallFailed as exc:
            self.guest_error("timing", exc.reply, **where)
            return None

    def calibrate(self) -> None:
        """Before the submission loads: the round trip of a call that does nothing, pinned as the
        samples are (warden_timed_candidate.py; on CUDA through the warden's gate,
        warden_gpu_clock.py, unless the request has the guest clock its own samples)."""
        cgroup = getattr(self.guest, "cgroup", None)
        if self.device.type != "cuda":
            self.timed_guest = TimedGuest(self.guest, cgroup)
        elif warden_clocks_cuda(self.request.get("timing") or {}):
            self.timed_guest = GpuTimedGuest(self.guest, self.device, self.request.get("timing") or {}, cgroup)
        else:
            return
        with phase("calibrate"), cpu_pinning.one_core(self.pin_guest):
            self.timed_guest.calibrate()

    def pin_guest(self, cpus) -> bool:
        """The guest's measuring thread on `cpus` (None: back to its own); whether it did."""
        reply, _, _ = self.ask({"op": "pin", "cpus": cpus}, stage="timing")
        return reply.get("ok") is True

    def time_case(self, case, first_outputs: dict) -> None:
        seed = next(iter(first_outputs))
        where = self._where(case, seed)
        contender = self.candidate_contender(case, list(first_outputs), self.case_key(case))
        if contender is None:
            return
        peak_memory.note_call(contender.inputs(), first_outputs[seed])
        try:
            fields = measure_contender(contender, self.device, self.request.get("timing") or {})
        except GuestCallFailed as exc:
            self.guest_error("timing", exc.reply, **where)
            return
        finally:
            contender.release()
        self.send("timing", **where, **fields, **contender.check_fields())

    @staticmethod
    def case_key(case) -> str:
        return f"{case['name']}/{case['dtype']}"

    def profile_case(self, case, seed) -> None:
        """The `kernel_profile` of one call, taken in the guest, own kernels decided here."""
        where = self._where(case, seed)
        args = self._inputs(case, seed, read_only=True)
        if args is None:
            return
        shared = SharedCall(args, 0)  # no guard bands asked: none to drop
        try:
            header = {"op": "profile", "args": shared.fields,
                      "screen_share": float(self.request.get("profile_screen_share") or 0)}
            reply, _, _ = self.ask(header, shared.fds, stage="timing", where=where)
        finally:
            shared.close()
        if not reply["ok"]:
            self.guest_error("profile", reply, **where)
            return
        own, _ = self.own_and_other(reply.get("kernels"))
        try:
            facts = kernel_identity_profile(reply.get("profile"), set(own))
        except ValueError as exc:
            raise GuestMisbehaved(f"kernel profile: {exc}") from exc
        self.send("kernel_profile", **where, **facts)

    # -- the whole job -----------------------------------------------------------------

    def run(self) -> None:
        try:
            self.run_cases()
        except BaseException:
            self.saver.wait(raise_error=False)
            raise
        self.saver.wait()  # the reference job reads the files

    def run_cases(self) -> None:
        timing_on = (self.request.get("timing") or {}).get("enabled")
        if timing_on:
            self.calibrate()
        with phase("load"):
            loaded = self.load()
        if not loaded:
            return
        os.makedirs(self.request["outputs_dir"], exist_ok=True)
        timed = []
        for case in self.request.get("cases", []):
            seeds = list(case.get("seeds") or [])
            first_outputs = {}  # seed -> saved outputs, in seed order
            for index, seed in enumerate(seeds):
                device_gate.pause_point(self.request, self.writer, self.device)
                # the guest keeps the first outputs a timed call or the determinism re-run repeats
                keep = timing_on or (index == 0 and self.request.get("check_determinism"))
                with phase("calls"):
                    outputs = self.call_once(case, seed, keep_as=self.case_key(case) if keep else None)
                if outputs is None:
                    continue
                first_outputs[seed] = outputs
                if index == 0 and self.request.get("check_determinism"):
                    # a timing job waiting for the device waits for one call, not two
                    device_gate.pause_point(self.request, self.writer, self.device)
                    with phase("determinism"):
                        self.check_determinism(case, seed, outputs)
                    if not timing_on:  # no timed call repeats them
                        self.ask({"op": "drop", "key": self.case_key(case)}, where=self._where(case, seed))
            if seeds and seeds[0] in first_outputs:
                timed.append((case, first_outputs))
            if self.device.type == "cuda":
                # A case's blocks seldom fit the next case's sizes: cached, they would add up over
                # the cases (issue 19's 2x rule), and other slots' jobs could not use them.
                torch.cuda.empty_cache()
        profile_on = self.checks["profile_kernels"] and self.device.type == "cuda"
        for case, first_outputs in timed:
            if timing_on:
                with phase("timing"):
                    self.time_case(case, first_outputs)
            if profile_on:
                with phase("profile"):
                    self.profile_case(case, next(iter(first_outputs)))


def kernel_identity_profile(facts, own_names: set) -> dict:
    """The guest's kernel profile with `own` decided by the warden's own-kernel names."""
    if not isinstance(facts, dict) or not isinstance(facts.get("kernels"), list):
        raise ValueError("not a profile")
    kernels = []
    for item in facts["kernels"]:
        if not isinstance(item, dict) or not isinstance(item.get("time_us"), (int, float)):
            raise ValueError("a kernel entry without time_us")
        name = clip(str(item.get("name", "")), 300)
        kernels.append({"name": name, "time_us": float(item["time_us"]), "own": name in own_names})
    total = facts.get("total_time_us")
    if not isinstance(total, (int, float)) or total < 0:
        raise ValueError("total_time_us is not a number")
    own_time = sum(k["time_us"] for k in kernels if k["own"])
    method = clip(str(facts.get("method", "")), 40)
    return {"kernels": kernels, "own_time_us": own_time, "total_time_us": float(total),
            "own_share": own_time / total if total > 0 else None, "method": method}

"""Runtime checks through the real runner (guard bands, poisoning, tampering, output types,
timed-output checks with input rotation), plus in-process units of checks.py and rotation.py."""

import sys
import types

import pytest
import torch

from keval_runner.checks import checks
from keval_runner.timing.rotation import InputRotation, derived_seeds, outputs_identical, rotation_set_count
from keval_runner.timing.timing import check_interval
from runner_harness import FIXTURES, all_checks, case, of_type, only

TIMING = {"enabled": True, "warmup": 1, "min_samples": 5, "max_samples": 6, "max_seconds": 5.0}


def test_correct_candidate_passes_every_check(runner, jobs):
    messages = runner.run(jobs.candidate("correct", timing=TIMING, determinism=True, checks=all_checks()))
    assert of_type(messages, "error") == [] and of_type(messages, "tampering") == []
    for call in of_type(messages, "call"):
        assert call["ok"] and call["guard_violations"] == [] and call["poisoned"] is True
        assert call["foreign_output_types"] == [] and call["inputs_mutated"] is False
    assert only(messages, "determinism")["same"] is True
    timing = only(messages, "timing")
    # on the CPU the warden times it: a fresh set for every timed call, each call checked
    assert timing["timed_by"] == "warden" and timing["timed_output_checks"] >= 5
    assert timing["input_sets"] >= timing["timed_output_checks"] and timing["timed_output_mismatches"] == 0
    assert timing["processes_beside"] == 0
    assert of_type(messages, "kernel_profile") == []  # CUDA only


def test_checks_off_report_neutral_facts(runner, jobs):
    messages = runner.run(jobs.candidate("correct", timing=TIMING))
    call = of_type(messages, "call")[0]
    assert call["guard_violations"] == [] and call["poisoned"] is False and call["foreign_output_types"] == []
    timing = only(messages, "timing")
    assert timing["timed_output_checks"] == 0 and timing["timed_output_mismatches"] == 0
    # fresh inputs for every call (warm-ups included) whatever the checks
    assert timing["input_sets"] >= len(timing["samples_ms"]) + TIMING["warmup"]


def test_guard_bands_that_cannot_be_allocated_are_a_fact_not_a_silent_drop(runner, jobs):
    # 2**60 bytes of guard band: the allocation fails for real; the call runs without them and
    # says so, for the judge to decide (src/judge/judge.cc notes it on a pass)
    messages = runner.run(jobs.candidate("correct", cases=[case(seeds=[1])], checks=all_checks(guard_bytes=2**60)))
    call = only(messages, "call")
    assert call["ok"] and call["guard_violations"] == []
    assert call["guard_bands_dropped"].startswith("could not be allocated: OSError(12"), call
    assert of_type(messages, "error") == []
    placed = only(runner.run(jobs.candidate("correct", cases=[case(seeds=[1])], checks=all_checks())), "call")
    assert placed["guard_bands_dropped"] is None


def test_bad_checks_field_is_a_bad_request(runner, jobs):
    runner.send(jobs.candidate("correct", checks={"guard_bytes": -1}))
    error = runner.next()
    assert (error["stage"], error["error_kind"]) == ("protocol", "BadRequest") and "guard_bytes" in error["message"]


# -- out of bounds ----------------------------------------------------------------------------

def test_store_past_the_end_of_an_input_hits_its_guard(runner, jobs):
    # torch's own write: Triton's accesses meet the interpreter's bounds check first (below)
    messages = runner.run(jobs.candidate("oob_store_by_torch", checks=all_checks(guard_bytes=100)))
    for call in of_type(messages, "call"):
        assert call["ok"] and call["guard_violations"] == [0]  # x, the first tensor input
        assert call["kernels"] == ["add"]


def test_a_triton_store_past_an_input_is_stopped_before_it_lands(runner, jobs):
    messages = runner.run(jobs.candidate("oob_store", checks=all_checks(guard_bytes=100)))
    call, error = of_type(messages, "call")[0], of_type(messages, "error")[0]
    assert not call["ok"] and call["guard_violations"] == [] and call["inputs_mutated"] is False
    assert (error["stage"], error["error_kind"]) == ("call", "OutOfBounds"), error
    assert "kernel add_and_pad: store of 1 lane(s) out of bounds, the first 1 element(s) past the end of x_ptr " \
           "(1000 elements)" in error["message"] and error["line"] == 14, error


def test_an_unmasked_read_past_an_input_is_out_of_bounds(runner, jobs):
    # inside the guard band (read-only to the warden's check), so only the bounds check sees it
    messages = runner.run(jobs.candidate("oob_read", cases=[case(seeds=[1])], checks=all_checks(guard_bytes=256)))
    error = only(messages, "error")
    assert error["error_kind"] == "OutOfBounds" and "kernel add_unmasked_read: load of 24 lane(s)" in error["message"]
    assert "1 element(s) past the end of x_ptr (1000 elements)" in error["message"], error


# -- tampering --------------------------------------------------------------------------------

def test_patching_allclose_at_import_is_tampering(runner, jobs):
    messages = runner.run(jobs.candidate("patches_allclose", checks=all_checks()))
    tampering = only(messages, "tampering")
    assert tampering["stage"] == "import" and tampering["names"] == ["torch.allclose"]
    assert (tampering["case"], tampering["dtype"], tampering["seed"]) == (None, None, None)
    types_ = [m["type"] for m in messages]
    assert types_.index("tampering") < types_.index("entry")


def test_patching_the_clock_inside_the_call_is_tampering_and_does_not_reach_timing(runner, jobs):
    messages = runner.run(jobs.candidate("patches_clock", timing=TIMING, checks=all_checks()))
    tampering = only(messages, "tampering")  # reported once, though every call patches again
    assert tampering["stage"] == "call" and tampering["names"] == ["time.perf_counter"]
    assert (tampering["case"], tampering["seed"]) == ("odd", 1)
    assert all(s > 0 for s in only(messages, "timing")["samples_ms"])  # the runner's own clock
    assert all(c["wall_ms"] > 0 for c in of_type(messages, "call"))


def test_tensor_subclass_output_is_flagged(runner, jobs):
    for call in of_type(runner.run(jobs.candidate("subclass_output", checks=all_checks())), "call"):
        assert call["ok"] is True and call["foreign_output_types"] == ["keval_candidate.LazyResult"]


def test_pointer_keyed_output_cache_fails_the_timed_output_check(runner, jobs):
    for one_buffer in (None, 1):  # every set in its own buffers; every set through one
        request = jobs.candidate("pointer_cache", timing=TIMING, checks=all_checks())
        if one_buffer:
            request["rotation_buffer_bytes"] = one_buffer
        timing = only(runner.run(request), "timing")
        assert timing["timed_output_checks"] >= 5 and timing["timed_output_mismatches"] > 0, one_buffer


# -- units ------------------------------------------------------------------------------------

def test_guarded_inputs_keep_shape_strides_and_values():
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    inputs = (base.t(), [base[:, 1]], {"e": torch.ones(3, 1).expand(3, 4)}, torch.empty(0), 7)
    bands = checks.GuardBands(inputs, 10)
    t, column, e, empty, seven = bands.args[0], bands.args[1][0], bands.args[2]["e"], bands.args[3], bands.args[4]
    assert seven == 7 and empty.numel() == 0
    for guarded, original in ((t, base.t()), (column, base[:, 1]), (e, inputs[2]["e"])):
        assert guarded.shape == original.shape and guarded.stride() == original.stride()
        assert torch.equal(guarded, original) and guarded.data_ptr() % 256 == 0
    assert bands.guarded[0].guard == 256 and bands.violations() == []
    bands.guarded[1].buffer[-1] = 0  # one byte past the column's data, at the guard's far end
    assert bands.violations() == [1]


def test_canaries_are_nan_for_floats_and_0x7f_for_integers():
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        assert torch.isnan(checks.canary_bytes(dtype, 256).view(dtype)).all()
    assert checks.canary_bytes(torch.int32, 256).tolist() == [0x7F] * 256


def test_finite_canaries_are_finite_in_every_float_format():
    # the reference-defined check's first call: its fill must differ from the second call's NaN
    dtypes = (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.float8_e4m3fn, torch.float8_e5m2)
    for dtype in dtypes:
        values = checks.canary_bytes(dtype, 256, finite=True).view(dtype).float()
        assert torch.isfinite(values).all(), dtype
    bands = checks.GuardBands((torch.ones(3),), 256, finite=True)
    assert bands.guarded[0].buffer[:256].tolist() == [checks.FINITE_BYTE] * 256 and bands.violations() == []


def test_poisoning_runs_on_the_cpu():
    assert checks.poison_memory(torch.device("cpu"), checks.poison_size([torch.ones(10)])) is True
    assert checks.poison_size([torch.ones(1 << 28, dtype=torch.uint8)]) == checks.POISON_MAX_BYTES


def test_tamper_watch_reports_once_and_restores():
    module = types.ModuleType("fake_watched")
    module.clock = original = lambda: 1.0
    sys.modules["fake_watched"] = module
    sent = []
    try:
        watch = checks.TamperWatch(lambda type_, **fields: sent.append((type_, fields)),
                                   watched=(("fake_watched", "clock"), ("fake_watched", "missing")))
        assert watch.check("import") == [] and sent == []
        module.clock = lambda: 0.0
        assert watch.check("call", case="c", dtype="float32", seed=3) == ["fake_watched.clock"]
        assert module.clock is original  # put back
        module.clock = lambda: 0.0
        assert watch.check("call") == []  # already reported
    finally:
        del sys.modules["fake_watched"]
    assert sent == [("tampering", {"stage": "call", "names": ["fake_watched.clock"], "case": "c",
                                   "dtype": "float32", "seed": 3})]


def test_every_runner_name_the_watch_and_the_snapshot_list_exists():
    """The watch skips a name it cannot resolve, and the snapshot drops a CHANGING name it never
    meets: a runner module moved or renamed would leave its names unwatched without a word."""
    import importlib

    from keval_runner.checks import tamper_snapshot

    missing = []
    for module_name, path in checks.WATCHED:
        if module_name.split(".")[0] == "keval_runner":
            module = importlib.import_module(module_name)
            if checks._resolve(module, path) is checks._MISSING:
                missing.append(f"{module_name}.{path}")
    for name in tamper_snapshot.CHANGING:
        parts = name.split(".")
        found = False
        for cut in range(len(parts) - 1, 0, -1):
            try:
                module = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            found = checks._resolve(module, ".".join(parts[cut:])) is not checks._MISSING
            break
        if not found:
            missing.append(name)
    assert not missing, "runner names that resolve to nothing: " + ", ".join(missing)


def test_foreign_output_types_names_subclasses():
    class Wrapped(torch.Tensor):
        pass
    plain = torch.ones(2)
    assert checks.foreign_output_types([plain]) == [] and checks.foreign_output_types(None) == []
    assert checks.foreign_output_types([plain, plain.as_subclass(Wrapped)]) == [f"{__name__}.{Wrapped.__qualname__}"]


def test_rotation_moves_other_contents_into_the_same_buffers():
    seen = []

    def entry(x):
        seen.append((x.data_ptr(), float(x[0])))
        return x * 2

    sets = [(10, (torch.full((4,), 1.0),)), (20, (torch.full((4,), 2.0),))]
    rotation = InputRotation(entry, sets, {10: [torch.full((4,), 2.0)], 20: None})
    rotation.record_first_outputs()
    assert torch.equal(rotation.expected[20][0], torch.full((4,), 4.0))
    seen.clear()
    observe = rotation.observer(1)
    for k in range(4):
        observe(k, rotation.prepare(k)())
    pointers = [p for p, _ in seen]
    assert pointers[0] == pointers[2] and pointers[1] == pointers[3] and pointers[0] != pointers[1]
    assert [v for _, v in seen] == [1.0, 2.0, 2.0, 1.0]  # buffer 0 holds set 20's values on the 3rd call
    assert (rotation.checks, rotation.mismatches) == (4, 0)


def test_rotation_keeps_layouts_and_each_sets_other_arguments():
    def entry(x, scale):
        return x * scale

    def make(value, scale):
        return (torch.full((3, 1), value).expand(3, 4), scale)  # an expanded input (stride 0)

    rotation = InputRotation(entry, [(1, make(1.0, 10)), (2, make(2.0, 100))], {1: None, 2: None})
    rotation.record_first_outputs()
    observe = rotation.observer(1)
    for k in range(6):
        observe(k, rotation.prepare(k)())
    assert (rotation.checks, rotation.mismatches) == (6, 0)
    assert rotation.buffers[0][0].stride() == (1, 0)


def test_rotation_in_one_buffer_turns_every_sets_contents_through_it():
    seen = []

    def entry(x):
        seen.append((x.data_ptr(), float(x[0])))
        x.add_(100)  # in place: the refill before the next call undoes it
        return x * 2

    first, second, third = torch.full((4,), 1.0), torch.full((4,), 2.0), torch.full((4,), 3.0)
    rotation = InputRotation(entry, [(10, (first,)), (20, (second,)), (30, (third,))], {10: None, 20: None, 30: None},
                             buffers=1)
    assert len(rotation) == 3 and len(rotation.buffers) == 1
    assert rotation.contents[1][0].data_ptr() == second.data_ptr()  # only copied from, never cloned
    rotation.record_first_outputs()
    assert [float(rotation.expected[s][0][0]) for s in (10, 20, 30)] == [202.0, 204.0, 206.0]
    seen.clear()
    observe = rotation.observer(1)
    for k in range(6):
        observe(k, rotation.prepare(k)())
    assert {p for p, _ in seen} == {first.data_ptr()}
    assert [v for _, v in seen] == [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    assert (rotation.checks, rotation.mismatches) == (6, 0)
    assert float(second[0]) == 2.0 and float(third[0]) == 3.0


def test_a_rotation_given_its_sets_values_refills_from_them_and_leaves_them_unchanged():
    """A baseline's one set of a large case (timing_job.py's one_set_inputs): its buffers are
    refilled before every call from the drawn set, which no call touches and nothing copies."""
    def add_in_place(x, n):
        before = x.clone()
        x.add_(n)
        return before

    drawn = (torch.arange(6, dtype=torch.float32).reshape(2, 3).t(), 5)
    buffers = (drawn[0].clone().t().contiguous().t(), 5)  # same layout, memory of its own
    rotation = InputRotation(add_in_place, [(1, buffers)], {}, buffers=1, values=drawn)
    seen = [rotation.prepare(k)() for k in range(4)]
    assert all(torch.equal(s, drawn[0]) for s in seen)  # without the refill: +5, +10, +15
    assert torch.equal(drawn[0], torch.arange(6, dtype=torch.float32).reshape(2, 3).t())
    assert buffers[0].data_ptr() != drawn[0].data_ptr()


def test_rotation_keeps_a_buffer_per_set_when_the_layouts_differ():
    sets = [(1, (torch.ones(4),)), (2, (torch.ones(2, 2).t(),))]
    rotation = InputRotation(lambda x: x + 1, sets, {1: None, 2: None}, buffers=1)
    assert len(rotation.buffers) == 2
    rotation.record_first_outputs()
    assert rotation.prepare(1)().shape == (2, 2)


def test_one_buffer_from_the_requests_size_or_twice_the_cache():
    from keval_runner.timing.rotation import one_buffer_bytes, rotation_buffers
    from keval_runner.timing.timing import FALLBACK_L2_BYTES

    cpu = torch.device("cpu")
    assert one_buffer_bytes(cpu, {}) == 2 * FALLBACK_L2_BYTES
    assert one_buffer_bytes(cpu, {"rotation_buffer_bytes": 0}) == 2 * FALLBACK_L2_BYTES
    assert one_buffer_bytes(cpu, {"rotation_buffer_bytes": 64}) == 64
    assert rotation_buffers(64, 64) == 1 and rotation_buffers(63, 64) is None


def test_timed_output_helpers():
    assert check_interval({"min_samples": 3, "max_samples": 10}) == 1
    assert check_interval({"min_samples": 50, "max_samples": 100}) == 10
    assert len(set(derived_seeds([1, 2], 5)) | {1, 2}) == 7
    nan = torch.tensor([float("nan"), 1.0])
    assert outputs_identical([nan], nan.clone()) and not outputs_identical([nan], None)
    assert not outputs_identical([nan], (nan, nan))


def test_a_writer_made_before_a_patch_ignores_it(monkeypatch):
    import json
    import os

    from keval_runner.protocol import messages

    read_fd, write_fd = os.pipe()
    writer = messages.MessageWriter(write_fd, "j1")
    monkeypatch.setattr(messages, "encode", lambda message: b"forged\n")
    monkeypatch.setattr(messages.MessageWriter, "send", lambda self, *a, **k: None)
    monkeypatch.setattr(os, "write", lambda fd, data: len(data))
    monkeypatch.setattr(json, "dumps", lambda *a, **k: "{}")
    writer.send("tampering", names=["x"])
    monkeypatch.undo()
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        assert json.loads(pipe.read()) == {"job": "j1", "type": "tampering", "names": ["x"]}


def test_kernel_profile_summary_marks_own_kernels():
    from keval_runner.checks.kernel_profile import summarize

    facts = summarize([("candidate_add", 3.0), ("void at::native::add<float>(...)", 1.0), ("candidate_add", 1.0)],
                      ["candidate_add"])
    assert facts["kernels"] == [{"name": "candidate_add", "time_us": 4.0, "own": True},
                                {"name": "void at::native::add<float>(...)", "time_us": 1.0, "own": False}]
    assert (facts["own_time_us"], facts["total_time_us"], facts["own_share"]) == (4.0, 5.0, 0.8)
    assert summarize([], [])["own_share"] is None


def timing_job(jobs, cases, candidate="correct", **extra) -> dict:
    """A timing job of a candidate against the golden, its device gate already open."""
    import os

    request = jobs.candidate(candidate, cases=cases, timing=TIMING)
    request.update(kind="timing", device_gate=True,
                   baselines=[{"name": "golden", "code_file": os.path.join(request["task_dir"], "golden.py")}], **extra)
    os.makedirs(request["work_dir"], exist_ok=True)
    for k in range(4):  # the controller's go-aheads, given in advance
        open(os.path.join(request["work_dir"], f"device-alone-{k}"), "w").close()
    return request


def test_a_timing_job_measures_all_its_cases_in_one_stretch_alone_unless_they_hold_too_much(runner, jobs):
    cases = [case(seeds=[1, 2]), case(name="tiny", n=7, seeds=[9])]
    messages = runner.run(timing_job(jobs, cases))
    assert [m["type"] for m in messages if m["type"].startswith("device_")] == ["device_alone", "device_shared"]
    timings = of_type(messages, "timing")
    assert sorted((t["case"], t["who"]) for t in timings) == [
        ("odd", "candidate"), ("odd", "golden"), ("tiny", "candidate"), ("tiny", "golden")]
    assert all(t["samples_ms"] for t in timings) and of_type(messages, "error") == []
    # each side's clock figures, so that an offset between the two processes can be traced
    assert all(t["timed_by"] == "warden" and t["round_trip_overhead_ms"] > 0 and t["calls_per_sample"] == 1
               for t in timings)
    small_budget = runner.run(timing_job(jobs, cases, timing_batch_bytes=1))  # one case per stretch
    assert [m["type"] for m in small_budget if m["type"] == "device_alone"] == ["device_alone"] * 2
    assert len(of_type(small_budget, "timing")) == 4


def test_a_timed_case_rotates_its_seeds_then_derived_sets_until_they_pass_the_target():
    assert rotation_set_count(2, 10, 0) == 2  # the CPU: no derived sets
    assert rotation_set_count(1, 30, 100) == 4  # 120 bytes: the first past the target
    assert rotation_set_count(3, 200, 100) == 3  # the seeds' sets are kept even past it
    assert rotation_set_count(1, 1, 10**6) == 16  # at most MAX_SETS


def test_a_batch_is_measured_and_freed_before_a_case_that_would_take_it_over_the_budget():
    from keval_runner.jobs.timing_job import TimingJob

    class Recorded(TimingJob):
        def __init__(self, held, budget):
            self.request, self.writer, self.device = {"timing_batch_bytes": budget}, None, torch.device("cpu")
            self.held, self.events = held, []

        def held_bytes(self, case, baselines):
            return self.held[case["name"]]

        def prepare_case(self, case, baselines, held_bytes):
            self.events.append(("prepare", case["name"]))
            return types.SimpleNamespace(case=case, held_bytes=held_bytes)

        def measure_batch(self, batch):
            self.events.append(("measure", [p.case["name"] for p in batch]))

    cases = [{"name": n, "seeds": [1]} for n in ("a", "b", "big", "c")] + [{"name": "unseeded", "seeds": []}]
    job = Recorded({"a": 4, "b": 5, "big": 40, "c": 3}, budget=10)
    measured = job.measure_cases(cases, baselines=[])
    assert job.events == [("prepare", "a"), ("prepare", "b"), ("measure", ["a", "b"]), ("prepare", "big"),
                          ("measure", ["big"]), ("prepare", "c"), ("measure", ["c"])]
    assert [p.case["name"] for p in measured] == ["a", "b", "big", "c"]


def test_a_timing_job_with_one_buffer_per_contender_checks_every_timed_output(runner, jobs):
    messages = runner.run(timing_job(jobs, [case(seeds=[1, 2])], rotation_buffer_bytes=1, checks=all_checks()))
    timings = {t["who"]: t for t in of_type(messages, "timing")}
    assert sorted(timings) == ["candidate", "golden"] and of_type(messages, "error") == []
    candidate = timings["candidate"]
    assert candidate["input_sets"] >= candidate["timed_output_checks"] >= 2
    assert candidate["timed_output_mismatches"] == 0


def test_the_guest_measures_on_one_core(runner, jobs):
    import os

    assert len(os.sched_getaffinity(0)) >= 2, "the check needs a machine of two cores or more"
    messages = runner.run(timing_job(jobs, [case(seeds=[1])], candidate="reports_one_core", checks=all_checks()))
    candidate = [t for t in of_type(messages, "timing") if t["who"] == "candidate"][0]
    assert of_type(messages, "error") == [] and candidate["timed_output_checks"] >= 1
    # its timed outputs (pinned) differ from its first ones (free): it was pinned while measured
    assert candidate["timed_output_mismatches"] == candidate["timed_output_checks"]


def test_one_core_pins_the_warden_and_the_guest_together_then_frees_both():
    import os

    from keval_runner.timing import cpu_pinning

    before, asked = os.sched_getaffinity(0), []

    def pin_guest(cpus):
        asked.append(cpus)
        return True
    with cpu_pinning.one_core(pin_guest):
        inside = os.sched_getaffinity(0)
    assert len(inside) == 1 and asked == [sorted(inside), None] and os.sched_getaffinity(0) == before
    with cpu_pinning.one_core(lambda cpus: False):  # a guest that cannot follow: both stay free
        assert os.sched_getaffinity(0) == before
    asked.clear()
    with pytest.MonkeyPatch.context() as patch:  # a warden that cannot follow frees the guest
        patch.setattr(cpu_pinning, "pin", lambda cpus: (_ for _ in ()).throw(OSError("no such core")))
        with cpu_pinning.one_core(pin_guest):
            assert os.sched_getaffinity(0) == before
    assert len(asked) == 2 and len(asked[0]) == 1 and asked[1] is None
    assert cpu_pinning.current_cpu() in before


def test_a_guarded_parameter_stays_a_leaf_with_its_gradient():
    param = torch.rand(8, requires_grad=True)
    param.grad = torch.rand(8)
    guarded = checks.GuardBands(([param],), 256).args[0][0]
    assert guarded.is_leaf and guarded.requires_grad and torch.equal(guarded.grad, param.grad)
    torch.optim.Adam([guarded]).step()  # "can't optimize a non-leaf Tensor" before
    assert not torch.equal(guarded.detach(), param.detach())


def test_a_baseline_is_timed_on_inputs_placed_as_the_candidates(runner, jobs):
    import os

    request = timing_job(jobs, [case(seeds=[1, 2])])
    request["baselines"] = [{"name": "golden", "code_file": os.path.join(FIXTURES, "baselines", "needs_shared_inputs.py")}]
    messages = runner.run(request)
    assert of_type(messages, "error") == []
    assert sorted(t["who"] for t in of_type(messages, "timing")) == ["candidate", "golden"]


def test_a_shared_call_kept_private_closes_its_descriptors_and_keeps_its_memory():
    import os

    from keval_runner.handoff.shared_call import SharedCall

    def open_fds():
        return len(os.listdir("/proc/self/fd"))

    before = open_fds()
    call = SharedCall((torch.arange(6.0), torch.ones(3)), 0)
    made = open_fds()  # each memfd, and the mapping's own duplicate of it (Python's mmap)
    assert made > before and len(call.fds) == 1  # one memfd for both inputs
    call.keep_private()
    assert open_fds() == made - 1 and call.fds == []
    assert call.args[0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # still mapped
    call.close()
    assert open_fds() == before


def test_a_calls_inputs_share_one_buffer_and_keep_a_guard_band_each():
    from keval_runner.handoff.shared_call import SharedCall
    from keval_runner.guest.guest_channel import Channel
    from keval_runner.handoff.shared_args import ArgsOpener

    weight = torch.randn(4, requires_grad=True)
    weight.grad = torch.full((4,), 2.0)
    xs = [torch.randn(10 + k) for k in range(300)]
    call = SharedCall((xs, weight, torch.arange(6).view(2, 3).t()), 4096)
    assert len(call.fds) == 1  # a descriptor an input would be 302, past what a message carries
    warden, guest = Channel.pair()
    warden.send({"op": "call"}, fds=call.fds)
    _, _, fds = guest.receive()
    seen = ArgsOpener(torch.device("cpu")).open(call.fields, fds, [])
    assert all(torch.equal(a, b) for a, b in zip(seen[0], xs))
    assert torch.equal(seen[1], weight.detach()) and torch.equal(seen[1].grad, weight.grad)
    assert torch.equal(seen[2], torch.arange(6).view(2, 3).t())
    assert call.guards.violations() == []
    past_end = seen[0][7].as_strided((1,), (1,), seen[0][7].storage_offset() + seen[0][7].numel())
    past_end.fill_(1.0)  # the guest writes one element past input 7, into its own guard band
    assert call.guards.violations() == [7]
    call.close()


def test_a_task_of_300_inputs_is_called_and_timed_through_the_guest(runner, jobs):
    import os

    task_dir = os.path.join(FIXTURES, "tasks", "many_inputs")
    cases = [case(n=16, seeds=[1, 2])]
    messages = runner.run(jobs.candidate("sums_many", cases=cases, entry="sum_all", task_dir=task_dir))
    assert of_type(messages, "error") == []
    assert [c["ok"] for c in of_type(messages, "call")] == [True, True]
    request = timing_job(jobs, cases, candidate="sums_many", entry="sum_all", task_dir=task_dir)
    request["baselines"][0]["code_file"] = os.path.join(task_dir, "golden.py")
    messages = runner.run(request)
    assert of_type(messages, "error") == []
    assert sorted(t["who"] for t in of_type(messages, "timing")) == ["candidate", "golden"]

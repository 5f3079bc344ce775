"""Small in-process units: message encoding, the timing stop rule, error lines, kernel tracking,
entry lookup."""

import ast
import json
import os
import types

import pytest
import torch

import runner_harness  # noqa: F401  (puts runner/ on sys.path; TRITON_INTERPRET=1)
from keval_runner.checks import kernel_identity, kernel_tracking
from keval_runner.protocol.errors import compilation_error_line, describe
from keval_runner.inputs.loading import MissingEntry, find_entry, load_module
from keval_runner.protocol.messages import MessageWriter, encode, json_safe
from keval_runner.timing.timing import relative_stdev, spread_target, stop_reason
from runner_harness import TASK_DIR, candidate_file


def recording_writer(sent: list):
    """A message writer class whose instances append each message's type to `sent`."""
    class Writer:
        def send(self, kind, **fields):
            sent.append(kind)
    return Writer


def controller_touching(path, when, delay_s=0.05):
    """A stand-in controller on a thread: once when() holds, waits delay_s and creates path.
    Returns the started thread and a list that then holds the time of the touch."""
    import threading
    import time

    touched_at = []

    def controller():
        while not when():
            time.sleep(0.001)
        time.sleep(delay_s)
        touched_at.append(time.monotonic())
        path.touch()

    thread = threading.Thread(target=controller)
    thread.start()
    return thread, touched_at


def test_non_finite_floats_become_strings():
    assert json_safe({"a": float("nan"), "b": (float("inf"), -float("inf"), 1.5)}) == {
        "a": "nan", "b": ["inf", "-inf", 1.5]}
    line = encode({"x": float("nan")})
    assert line.endswith(b"\n") and json.loads(line) == {"x": "nan"}


def test_writer_sends_one_line_per_message_and_clips_long_text():
    read_fd, write_fd = os.pipe()
    writer = MessageWriter(write_fd, "j9")
    writer.error("call", "ValueError", "x" * 5000, line=3)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        lines = pipe.read().splitlines()
    assert len(lines) == 1
    message = json.loads(lines[0])
    assert message["job"] == "j9" and message["stage"] == "call" and len(message["message"]) <= 2000
    assert (message["case"], message["dtype"], message["seed"]) == (None, None, None)


SETTINGS = {"min_samples": 3, "max_samples": 10, "max_seconds": 1.0}


def test_stop_rule():
    assert stop_reason([1.0, 1.0], 0.1, SETTINGS) is None  # too few samples
    assert stop_reason([1.0, 1.0, 1.0], 0.1, SETTINGS) == "converged"
    assert stop_reason([1.0, 2.0, 3.0], 0.1, SETTINGS) is None  # noisy, time left
    assert stop_reason([1.0, 2.0, 3.0], 1.5, SETTINGS) == "time_cap"
    assert stop_reason([1.0, 2.0] * 5, 0.1, SETTINGS) == "sample_cap"
    assert stop_reason([1.0] * 3, 0.1, dict(SETTINGS, min_seconds=0.5)) is None


def test_stop_rule_allows_more_spread_as_samples_add_up():
    """The spread allowed grows as sqrt(n / min_samples): the median's standard error stays put."""
    settings = {"min_samples": 10, "max_samples": 1000, "max_seconds": 100.0, "target_rel_stdev": 0.005}
    spread_06 = [1.0 + 0.006 * (1 if i % 2 else -1) for i in range(10)]  # stdev/mean about 0.63%
    assert relative_stdev(spread_06) > 0.005
    assert stop_reason(spread_06, 0.1, settings) is None
    assert stop_reason(spread_06 * 2, 0.1, settings) == "converged"  # 20 samples: 0.71% allowed
    spread_3 = [1.0 + 0.03 * (1 if i % 2 else -1) for i in range(200)]  # 3%: 360 samples needed
    assert stop_reason(spread_3, 0.1, settings) is None
    assert stop_reason(spread_3 * 2, 0.1, settings) == "converged"
    assert relative_stdev([2.0, 2.0]) == 0.0 and relative_stdev([1.0]) == float("inf")


def test_relative_stdev_is_the_sample_stdev_over_the_mean():
    import random
    import statistics

    draw = random.Random(7)
    for n in (2, 3, 10, 100):
        values = [draw.uniform(0.004, 40.0) for _ in range(n)]
        exact = statistics.stdev(values) / statistics.fmean(values)
        assert relative_stdev(values) == pytest.approx(exact, rel=1e-12)
    assert relative_stdev([0.0, 0.0]) == float("inf")  # a mean at 0


def test_stop_rule_stops_where_the_harness_spread_outweighs_the_samples():
    """A few-us kernel whose samples spread 3% stops once the median's standard error is 15% of
    the harness's 7% spread (13 samples), not at 360; a 1 ms one keeps target_rel_stdev's rule."""
    bands = [[0.0, 0.07], [0.01, 0.05], [0.05, 0.0125], [0.5, 0.011]]
    settings = {"min_samples": 10, "max_samples": 1000, "max_seconds": 100.0, "target_rel_stdev": 0.005,
                "spread_share": 0.15, "spread_bands": bands}
    few_us = [0.005 * (1 + 0.03 * (1 if i % 2 else -1)) for i in range(14)]  # 3.1% at 10 samples
    assert stop_reason(few_us[:10], 0.1, settings) is None  # 1.2533 * 3.2% / sqrt(10) > 1.05%
    assert stop_reason(few_us, 0.1, settings) == "converged"
    assert stop_reason(few_us, 0.1, dict(settings, spread_share=0)) is None  # off: the old rule
    assert stop_reason(few_us, 0.1, {k: v for k, v in settings.items() if not k.startswith("spread")}) is None
    one_ms = [x * 200 for x in few_us]  # the 1.1% band: 0.15 of it is stricter than the old rule
    assert stop_reason(one_ms, 0.1, settings) is None
    assert spread_target(0.02, 25, settings) == pytest.approx(0.15 * 0.05 * 5 / 1.2533, rel=1e-4)


def test_compilation_error_line_maps_kernel_relative_line_to_the_file():
    from triton.compiler.errors import CompilationError
    from triton.runtime.jit import JITFunction

    module = load_module(os.path.join(TASK_DIR, "golden.py"), "units_golden")
    jit = JITFunction(module.add_kernel.fn)  # a GPU-style JITFunction, built without a GPU
    holder = types.SimpleNamespace(kernel=jit)
    node = ast.parse("x").body[0]
    node.lineno = 3  # third line of the kernel, counted from its `def` (file line 7)
    error = CompilationError(jit.src, node, "bad store")
    assert compilation_error_line(error, holder) == 9

    wrapped = RuntimeError("launch failed")
    wrapped.__cause__ = error
    fields = describe(wrapped, module.__file__, holder)
    assert fields["error_kind"] == "CompilationError" and fields["error_class"] == "RuntimeError"
    assert fields["line"] == 9 and "bad store" in fields["message"]


def test_kernel_tracking_records_launches_with_their_module():
    kernel_tracking.install()
    module = load_module(os.path.join(TASK_DIR, "golden.py"), "units_tracked_golden")
    x = torch.ones(10)
    with kernel_tracking.tracking() as launched:
        module.vector_add(x, x)
        module.vector_add(x, x)
    assert [entry[:2] for entry in launched] == [("add_kernel", "units_tracked_golden")]
    with open(os.path.join(TASK_DIR, "golden.py")) as f:  # the source key names the kernel's text
        assert (launched[0][0], launched[0][2]) in kernel_identity.defined_kernels(f.read())
    own, other = kernel_tracking.split_by_module(launched, "units_tracked_golden")
    assert own == ["add_kernel"] and other == []
    with kernel_tracking.tracking() as nothing:
        torch.add(x, x)
    assert nothing == []


def test_a_tracking_timer_brackets_every_launch_of_a_tracked_call_and_nothing_else():
    kernel_tracking.install()
    module = load_module(os.path.join(TASK_DIR, "golden.py"), "units_timed_golden")
    x = torch.ones(10)

    class Timer:
        def __init__(self):
            self.open, self.closed = 0, []

        def begin(self):
            self.open += 1
            return self.open

        def end(self, identity, token):
            self.closed.append((identity, token))

    timer = Timer()
    with kernel_tracking.tracking(timer):
        module.vector_add(x, x)
        torch.add(x, x)  # not a Triton launch: no bracket
        module.vector_add(x, x)
    module.vector_add(x, x)  # outside the block: no bracket
    assert timer.closed == [(("add_kernel", "units_timed_golden"), 1), (("add_kernel", "units_timed_golden"), 2)]


def test_the_profile_screen_settles_a_high_own_share_and_falls_back_to_the_profiler_below_it(monkeypatch):
    from keval_runner.guest import guest
    from keval_runner.checks import kernel_profile

    calls = []

    def screen(call, device, is_own):
        calls.append("screen")
        return {"kernels": [], "own_time_us": 1.0, "total_time_us": 2.0, "own_share": share,
                "method": "launch_events"}

    def profiler(call, device, own_names):
        calls.append("profiler")
        return {"kernels": [], "own_time_us": 0.0, "total_time_us": 2.0, "own_share": 0.0,
                "method": "torch_profiler"}

    monkeypatch.setattr(kernel_profile, "screen_call", screen)
    monkeypatch.setattr(kernel_profile, "profile_call", profiler)
    sent = []
    job = guest.Guest.__new__(guest.Guest)
    job.entry, job.device, job.module, job.code_file = (lambda x: x), torch.device("cpu"), None, ""

    class Opener:
        def open(self, fields, fds, imported):
            return (torch.ones(1),)

    job.opener = Opener()
    job.reply = lambda header, payload=(): sent.append(header["profile"]["method"])
    for share, expected in [(0.5, ["screen"]), (0.49, ["screen", "profiler"])]:
        calls.clear()
        job.profile({"op": "profile", "args": {}, "screen_share": 0.5}, [])
        assert calls == expected and sent[-1] == ("launch_events" if expected == ["screen"] else "torch_profiler")
    calls.clear()  # no threshold: the profiler only
    job.profile({"op": "profile", "args": {}}, [])
    assert calls == ["profiler"]


def test_entry_lookup_prefers_the_task_entry_then_kernel_function():
    module = types.ModuleType("m")
    module.vector_add = lambda: 1
    module.kernel_function = lambda: 2
    assert find_entry(module, "vector_add")[0] == "vector_add"
    del module.vector_add
    assert find_entry(module, "vector_add")[0] == "kernel_function"
    with pytest.raises(MissingEntry):
        find_entry(types.ModuleType("empty"), "vector_add")


def test_candidate_module_registers_before_running(tmp_path):
    path = tmp_path / "self_check.py"
    path.write_text("import sys\nSEEN = __name__ in sys.modules\n")
    assert load_module(str(path), "units_self_check").SEEN is True
    assert candidate_file("correct").endswith("correct.py")


def test_peer_inputs_are_built_on_the_cpu_then_moved_to_the_job_device():
    from keval_runner.inputs.inputs import build_inputs

    seen = {}

    def make_inputs(case, dtype, seed):
        seen["default"] = torch.get_default_device().type
        g = torch.Generator().manual_seed(seed)  # a CPU generator, as task authors write it
        x = torch.randn(case["n"], generator=g).to(dtype)
        return [x, [x, 3], {"w": x}]

    case = {"name": "c", "params": {"n": 4}, "dtype": "float16"}
    args = build_inputs(make_inputs, case, 5, torch.device("meta"))
    assert seen["default"] == "cpu" and isinstance(args, tuple)
    assert args[0].device.type == "meta" and args[0].dtype == torch.float16
    assert args[1][0].device.type == "meta" and args[1][1] == 3 and args[2]["w"].device.type == "meta"


def test_keval_format_inputs_are_drawn_with_the_job_device_as_default_and_not_after():
    from keval_runner.inputs.inputs import build_inputs

    seen = []

    def make_inputs(case, dtype, seed):
        dev = torch.empty(0).device  # keval's format: draw where the job runs
        seen.append(dev.type)
        return (torch.zeros(case["n"], device=dev, dtype=dtype),)

    case = {"name": "on_device", "params": {"n": 3}, "dtype": "float32"}
    (x,) = build_inputs(make_inputs, case, 1, torch.device("meta"), on_device=True)
    assert seen == ["meta"] and x.device.type == "meta"
    assert torch.empty(0).device.type == "cpu"  # the default device was set for the call only
    build_inputs(make_inputs, case, 1, torch.device("meta"), on_device=False)
    assert seen == ["meta", "cpu"]  # a separate memo entry: the draw device is part of the key


def test_large_sets_drawn_on_a_device_are_drawn_again_not_kept_and_not_copied():
    from keval_runner.inputs.inputs import build_inputs

    drawn = []

    def make_inputs(case, dtype, seed):
        x = torch.empty(case["n"], dtype=dtype)  # on the default device: the job's
        drawn.append(x)
        return (x,)

    big = {"name": "big", "params": {"n": 2**27}, "dtype": "float32"}  # 512 MiB, on meta
    first = build_inputs(make_inputs, big, 1, torch.device("meta"), on_device=True)
    second = build_inputs(make_inputs, big, 1, torch.device("meta"), on_device=True)
    assert len(drawn) == 2 and first[0] is drawn[0] and second[0] is drawn[1]  # no copy, no memo
    small = {"name": "small", "params": {"n": 4}, "dtype": "float32"}
    a = build_inputs(make_inputs, small, 1, torch.device("meta"), on_device=True)
    b = build_inputs(make_inputs, small, 1, torch.device("meta"), on_device=True)
    assert len(drawn) == 3 and a[0] is not drawn[2] and b[0] is not drawn[2]  # kept; each build a copy


def test_the_memo_keeps_sets_drawn_on_a_device_within_one_budget_for_all_of_them(monkeypatch):
    from keval_runner.inputs import inputs

    monkeypatch.setattr(inputs, "_DEVICE_MEMO_LIMIT_BYTES", 3 * 400)
    drawn = []

    def make_inputs(case, dtype, seed):
        drawn.append(seed)
        return (torch.empty(100, dtype=dtype),)  # 400 bytes, on meta

    case = {"name": "budget", "params": {}, "dtype": "float32"}
    for seed in (1, 2, 3, 4):
        inputs.build_inputs(make_inputs, case, seed, torch.device("meta"), on_device=True)
    for seed in (2, 3, 4):  # the three most recent are kept, the first went
        inputs.build_inputs(make_inputs, case, seed, torch.device("meta"), on_device=True)
    assert drawn == [1, 2, 3, 4]
    inputs.build_inputs(make_inputs, case, 1, torch.device("meta"), on_device=True)
    assert drawn == [1, 2, 3, 4, 1]
    kept = [a for k, a in inputs._MEMO.items() if k[1] == "budget"]
    assert sum(inputs.input_bytes(a) for a in kept) <= 3 * 400


def test_the_memo_keeps_device_sets_of_the_latest_case_only_and_host_sets_of_every_case():
    from keval_runner.inputs import inputs

    drawn = []

    def make_inputs(case, dtype, seed):
        drawn.append((case["name"], seed))
        return (torch.empty(100, dtype=dtype),)  # on the default device: meta or the CPU

    first, second = ({"name": name, "params": {}, "dtype": "float32"} for name in ("case_a", "case_b"))
    for device in ("meta", "cpu"):
        drawn.clear()
        for case in (first, second, first):
            for seed in (1, 2):
                inputs.build_inputs(make_inputs, case, seed, torch.device(device), on_device=True)
                inputs.build_inputs(make_inputs, case, seed, torch.device(device), on_device=True)  # kept
        expected = [("case_a", 1), ("case_a", 2), ("case_b", 1), ("case_b", 2)]
        assert drawn == (expected + expected[:2] if device == "meta" else expected), device
    held = {k[1] for k, a in inputs._MEMO.items() if inputs._on_gpu(a) and k[1] in ("case_a", "case_b")}
    assert held == {"case_a"}


def test_read_only_inputs_are_the_memos_own_tensors_and_built_inputs_are_copies():
    from keval_runner.inputs.inputs import build_inputs

    def make_inputs(case, dtype, seed):
        return (torch.full((4,), float(seed), dtype=dtype), 3)

    case = {"name": "read_only", "params": {}, "dtype": "float32"}
    seen = build_inputs(make_inputs, case, 7, torch.device("cpu"), on_device=True, read_only=True)
    again = build_inputs(make_inputs, case, 7, torch.device("cpu"), on_device=True, read_only=True)
    copy = build_inputs(make_inputs, case, 7, torch.device("cpu"), on_device=True)
    assert seen[0] is again[0] and seen[1] == 3
    assert copy[0] is not seen[0] and copy[0].data_ptr() != seen[0].data_ptr()
    assert torch.equal(copy[0], seen[0])


def test_drawn_bytes_counts_a_set_without_copying_it_and_leaves_it_in_the_memo(monkeypatch):
    from keval_runner.inputs import inputs

    drawn, copies = [], []

    def make_inputs(case, dtype, seed):
        drawn.append(seed)
        return (torch.zeros(6, dtype=torch.float32), [torch.zeros(5, dtype=torch.int8)], 3)

    real_copy = inputs._copy_to
    monkeypatch.setattr(inputs, "_copy_to", lambda t, device: copies.append(t.shape) or real_copy(t, device))
    case = {"name": "drawn_bytes", "params": {}, "dtype": "float32"}
    assert inputs.drawn_bytes(make_inputs, case, 4, torch.device("meta")) == 6 * 4 + 5
    assert copies == [] and drawn == [4]
    built = inputs.build_inputs(make_inputs, case, 4, torch.device("meta"), read_only=True)
    assert drawn == [4] and built[0].device.type == "meta"  # the memo's set, copied only now


def test_inputs_are_drawn_on_the_device_for_keval_format_and_for_inputs_on_device_only():
    from keval_runner.inputs.inputs import draws_on_device

    assert draws_on_device({"shared_inputs": True})
    assert draws_on_device({"shared_inputs": False, "inputs_on_device": True})
    assert not draws_on_device({"shared_inputs": False, "inputs_on_device": False})
    assert not draws_on_device({})


def test_a_ceilings_request_needs_only_kind_and_work_dir():
    # it names no task: requiring task fields made the zygote reject it (and the run wait)
    from keval_runner.zygote import request_problem

    assert request_problem({"op": "run", "job": "c1", "kind": "ceilings", "device": "cuda",
                            "work_dir": "/tmp/x", "sandbox": {"enabled": False}}) == ""
    assert "work_dir" in request_problem({"op": "run", "job": "c2", "kind": "ceilings"})
    assert "task_dir" in request_problem({"op": "run", "job": "c3", "kind": "reference", "work_dir": "/tmp"})


def test_samples_taken_under_75_percent_of_the_default_sm_clock_are_discarded():
    from keval_runner.timing.interleaved_timing import Contender, measure_interleaved, timing_fields

    class FakeClock:  # 2000 MHz default; every third sample taken at 1400 MHz (70%)
        default_mhz = 2000
        reads = 0

        def current_mhz(self):
            FakeClock.reads += 1
            return 1400 if FakeClock.reads % 3 == 0 else 1600  # 80% is kept

    contender = Contender("candidate", lambda k: (lambda: torch.zeros(4)))
    settings = {"warmup": 0, "min_samples": 10, "max_samples": 12, "max_seconds": 5.0, "target_rel_stdev": 0.0}
    measure_interleaved([contender], torch.device("cpu"), settings, clock=FakeClock())
    fields = timing_fields(contender, torch.device("cpu"))
    assert fields["low_clock_discarded"] == FakeClock.reads // 3 > 0
    assert len(fields["samples_ms"]) == FakeClock.reads - fields["low_clock_discarded"]


def test_unknown_clocks_never_discard():
    from keval_runner.timing.sm_clock import too_slow

    assert too_slow(1000, 2000) and not too_slow(1600, 2000)
    assert not too_slow(None, 2000) and not too_slow(1000, None)


def test_the_timing_job_measures_only_once_the_controller_gives_it_the_device_alone(tmp_path):
    import time as clock

    from keval_runner.device import device_gate

    sent = []

    Writer = recording_writer(sent)

    device_gate.reset()
    request = {"device_gate": True, "work_dir": str(tmp_path)}
    thread, granted_at = controller_touching(tmp_path / "device-alone-0", lambda: "device_alone" in sent)
    with device_gate.alone(request, Writer()):
        entered = clock.monotonic()
        assert sent == ["device_alone"]
    thread.join()
    assert entered >= granted_at[0] and sent == ["device_alone", "device_shared"]
    with device_gate.alone({"work_dir": str(tmp_path)}, Writer()):  # no gate: straight through
        pass
    assert sent == ["device_alone", "device_shared"]


def test_a_raised_persisting_l2_limit_is_reset_before_each_sample_and_charged_to_its_caller():
    from keval_runner.timing.interleaved_timing import Contender, measure_interleaved, timing_fields

    class FakeL2:  # the driver's persisting-L2 limit, as l2_persistence.L2Persistence sees it
        limit = 0

        def reset(self):
            found, FakeL2.limit = FakeL2.limit, 0
            return found

    def honest(k):
        return lambda: torch.zeros(1)

    def raises_limit(k):
        def call():
            FakeL2.limit = 4 << 20  # what a call setting L2 aside for persisting lines does
            return torch.zeros(1)
        return call

    golden, cheat = Contender("golden", honest), Contender("candidate", raises_limit)
    measure_interleaved([golden, cheat], torch.device("cpu"),
                        {"min_samples": 3, "max_samples": 3, "max_seconds": 10}, clock=None, l2=FakeL2())
    assert timing_fields(cheat, torch.device("cpu"))["l2_persisting_bytes"] == 4 << 20
    assert timing_fields(golden, torch.device("cpu"))["l2_persisting_bytes"] == 0
    assert FakeL2.limit == 0  # reset after the last call too


def test_a_new_contexts_default_persisting_l2_limit_is_cleared_at_open_and_not_charged():
    import ctypes
    from keval_runner.timing.l2_persistence import L2Persistence

    class FakeLibcuda:  # the H200's driver 580: a new context reads 11796480, sets round up
        GRANULE = 3932160

        def __init__(self):
            self.limit = 11796480

            def get(out, which):  # plain functions: L2Persistence sets their argtypes
                ctypes.cast(out, ctypes.POINTER(ctypes.c_size_t))[0] = self.limit
                return 0

            def set_limit(which, value):
                self.limit = -(-value // self.GRANULE) * self.GRANULE
                return 0

            self.cuCtxGetLimit, self.cuCtxSetLimit = get, set_limit
            self.cuCtxResetPersistingL2Cache = lambda: 0

    libcuda = FakeLibcuda()
    l2 = L2Persistence.open(libcuda)
    assert libcuda.limit == 0 and l2.reset() == 0  # the driver's default is nobody's doing
    libcuda.cuCtxSetLimit(6, 4 << 20)  # a submission setting 4 MiB aside
    assert l2.reset() == 7864320 and libcuda.limit == 0


def test_a_pause_point_waits_while_the_hold_file_exists_until_the_controller_resumes_it(tmp_path):
    import time as clock
    from keval_runner.device import device_gate

    device_gate.reset()
    sent = []

    Writer = recording_writer(sent)

    hold = tmp_path / "device-hold-0"
    request = {"work_dir": str(tmp_path), "device_hold": str(hold)}
    device_gate.pause_point(request, Writer())  # no hold: straight through
    assert sent == []
    hold.touch()
    thread, resumed_at = controller_touching(tmp_path / "device-resume-0", lambda: sent == ["device_paused"])
    device_gate.pause_point(request, Writer())
    left = clock.monotonic()
    thread.join()
    assert sent == ["device_paused"] and left >= resumed_at[0]
    device_gate.pause_point({"work_dir": str(tmp_path)}, Writer())  # no device_hold: never pauses
    assert sent == ["device_paused"]


def test_saved_outputs_load_back_memory_mapped_with_their_values_and_dtypes(tmp_path):
    from keval_runner.handoff.output_files import load_outputs, save_outputs

    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    outputs = [base[:, ::2], base.to(torch.bfloat16), torch.tensor([3], dtype=torch.int64)]
    path = str(tmp_path / "outs" / "case__float32__1.pt")
    copies = save_outputs(path, outputs)
    loaded = load_outputs(path)
    assert len(loaded) == 3 and all(torch.equal(a, b) and a.dtype == b.dtype for a, b in zip(loaded, outputs))
    assert copies[0].untyped_storage().nbytes() == 12 * 4  # a copy, not the view's whole buffer
    assert load_outputs(str(tmp_path / "missing.pt")) is None
    torch.save({"not": "a list"}, str(tmp_path / "odd.pt"))
    with pytest.raises(TypeError):
        load_outputs(str(tmp_path / "odd.pt"))


def test_an_idle_stretch_gives_the_share_back_and_waits_for_it_at_its_end(tmp_path):
    from keval_runner.device import device_gate

    device_gate.reset()
    sent = []

    Writer = recording_writer(sent)

    request = {"work_dir": str(tmp_path), "device_hold": str(tmp_path / "hold")}
    (tmp_path / "device-busy-0").touch()  # the controller's go-ahead, given in advance
    device_gate.begin_idle(request, Writer())
    assert sent == ["device_idle"]
    device_gate.begin_idle(request, Writer())  # nested: one stretch only
    device_gate.end_idle()
    assert sent == ["device_idle", "device_busy"]
    device_gate.end_idle()  # none open: nothing sent
    device_gate.begin_idle({"work_dir": str(tmp_path)}, Writer())  # no gate: no messages
    device_gate.end_idle()
    assert sent == ["device_idle", "device_busy"]


def test_tritons_compile_hooks_open_and_close_an_idle_stretch_and_a_launch_closes_a_dangling_one(tmp_path):
    from triton import knobs

    from keval_runner.device import device_gate

    device_gate.reset()
    sent = []

    Writer = recording_writer(sent)

    request = {"work_dir": str(tmp_path), "device_hold": str(tmp_path / "hold")}
    for k in range(2):
        (tmp_path / f"device-busy-{k}").touch()
    saved = knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook
    try:
        assert kernel_tracking.idle_while_compiling(request, Writer(), torch.device("cpu"))
        assert knobs.runtime.jit_cache_hook(key="k", fn=None) is None  # None: the compile goes on
        assert sent == ["device_idle"]
        knobs.runtime.jit_post_compile_hook(key="k", fn=None)
        assert sent == ["device_idle", "device_busy"]
        # a compile that raised leaves its stretch open: the launch wrapper closes it
        knobs.runtime.jit_cache_hook(key="k", fn=None)
        kernel_tracking.install()
        module = load_module(os.path.join(TASK_DIR, "golden.py"), "units_idle_golden")
        module.vector_add(torch.ones(4), torch.ones(4))
        assert sent == ["device_idle", "device_busy", "device_idle", "device_busy"]
    finally:
        knobs.runtime.jit_cache_hook, knobs.runtime.jit_post_compile_hook = saved
        device_gate.reset()


def test_a_job_sees_only_its_own_gpu_as_device_0(monkeypatch):
    from keval_runner.jobs.child import see_only_own_gpu

    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    request = {"device": "cuda", "gpu": 1}
    see_only_own_gpu(request)
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "1" and request["gpu"] == 0
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4, 6")  # the run's own selection: slot GPU 1 is 6
    request = {"device": "cuda", "gpu": 1}
    see_only_own_gpu(request)
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "6" and request["gpu"] == 0


def test_inputs_copied_to_the_device_stay_leaves_when_they_require_grad():
    from keval_runner.inputs.inputs import to_device

    param = torch.zeros(4, requires_grad=True)
    for copied in (to_device(param, torch.device("cpu")), to_device([param], torch.device("cpu"))[0]):
        assert copied.is_leaf and copied.requires_grad and copied.data_ptr() != param.data_ptr()
        torch.optim.Adam([copied])  # refuses a tensor that is not a leaf


def test_nothing_a_job_imports_later_rebinds_a_watched_library_name():
    """The guest's snapshot of torch's public names is taken after the zygote's imports; what a
    job may import afterwards (the profiler, Dynamo through it) must not rebind any of them, or
    every submission would read as tampering (torch._dynamo wraps torch.manual_seed: the H200
    showed it in the timing job)."""
    import subprocess
    import sys

    script = (
        "from keval_runner import zygote\n"
        "from keval_runner.checks import tamper_snapshot\n"
        "zygote.import_toolkit()\n"
        "snap = tamper_snapshot.RunnerSnapshot.take()\n"
        "import torch.profiler, torch._dynamo, torch.testing\n"
        "print(snap.changed())\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": runner_harness.RUNNER_DIR})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_outputs_of_mixed_element_sizes_come_back_from_the_guest_whole():
    """fp8 values then float32 scales (fp8_per_token_quant): each output starts aligned in the
    payload, or the float32 view of an odd offset fails."""
    from keval_runner.handoff.shared_args import output_payload, outputs_from_payload

    outputs = [torch.arange(37037, dtype=torch.float32).to(torch.float8_e4m3fn), torch.randn(37),
               torch.randn(3, 5).to(torch.bfloat16), torch.empty(0), torch.tensor(5)]
    described, chunks = output_payload(outputs)
    payload = bytearray(b"".join(bytes(memoryview(c).cast("B")) for c in chunks))
    back = outputs_from_payload(described, payload)
    assert [t.dtype for t in back] == [t.dtype for t in outputs]
    assert all(torch.equal(a.view(torch.uint8), b.view(torch.uint8)) if a.dtype == torch.float8_e4m3fn
               else torch.equal(a, b) for a, b in zip(outputs, back))
    with pytest.raises(ValueError):
        outputs_from_payload(described, payload + b"x")  # bytes beyond the described outputs


def test_contenders_sample_in_turn_until_the_last_stops(monkeypatch):
    """A contender that converges first keeps its reason but goes on sampling while another
    still samples: a side sampled alone reads faster on the GPU than while the sides take
    turns, so it would bias the ratio."""
    import itertools

    from keval_runner.timing import interleaved_timing
    from keval_runner.timing.interleaved_timing import Contender, measure_interleaved

    # Calls advance a clock of the test's own: real sleeps on a busy machine stretch a 0 s
    # pause toward a 20 ms one and make the restless side converge.
    now = [0.0]
    monkeypatch.setattr(interleaved_timing, "_clock", lambda: now[0])

    def pausing(pauses):
        def prepare(k):
            pause = next(pauses)

            def call():
                now[0] += pause
                return torch.zeros(1)
            return call
        return prepare

    steady = Contender("golden", pausing(itertools.repeat(0.005)))  # no spread
    restless = Contender("candidate", pausing(itertools.cycle([0.0, 0.02])))  # about 100%
    settings = {"warmup": 0, "min_samples": 3, "max_samples": 9, "max_seconds": 30, "min_seconds": 0,
                "target_rel_stdev": 0.5, "spread_share": 0}
    measure_interleaved([restless, steady], torch.device("cpu"), settings, clock=None)
    assert (steady.reason, restless.reason) == ("converged", "sample_cap")
    assert len(steady.samples) == len(restless.samples) == 9


def test_the_runner_snapshot_finds_every_kind_of_rebinding_by_identity():
    """The snapshot's quick identity check must see what its full walk sees: a global rebound,
    a function's code swapped, a class attribute replaced by an object that claims equality,
    a name deleted; each reported once and put back."""
    import sys
    import types as pytypes

    from keval_runner.checks.tamper_snapshot import RunnerSnapshot

    package = pytypes.ModuleType("snapshotted")
    module = pytypes.ModuleType("snapshotted.mod")
    exec("LIMIT = 5\n"
         "def measure(x, scale=2):\n    return x * scale\n"
         "class Clock:\n    rate = 1.0\n    def now(self):\n        return 0\n", module.__dict__)
    sys.modules["snapshotted"], sys.modules["snapshotted.mod"] = package, module
    try:
        snapshot = RunnerSnapshot.take("snapshotted")
        assert snapshot.changed() == []

        class ClaimsEquality:
            def __eq__(self, other):
                return True
            __hash__ = object.__hash__

        module.Clock.rate = ClaimsEquality()  # alone: an == check would take it for the original
        assert snapshot.changed() == ["snapshotted.mod.Clock.rate"]
        assert type(module.Clock.rate) is float
        original_code = module.measure.__code__
        module.LIMIT = 6
        module.measure.__code__ = (lambda x, scale=2: 0).__code__
        del module.Clock.now
        assert sorted(snapshot.changed()) == ["snapshotted.mod.Clock.now", "snapshotted.mod.LIMIT",
                                              "snapshotted.mod.measure.__code__"]
        assert module.LIMIT == 5 and module.measure.__code__ is original_code
        assert module.Clock().now() == 0
        assert snapshot.changed() == []
        module.LIMIT = 7  # reported once: put back, not named again
        assert snapshot.changed() == [] and module.LIMIT == 5
    finally:
        del sys.modules["snapshotted"], sys.modules["snapshotted.mod"]


def test_the_guests_cover_fit_is_kept_only_as_a_few_times():
    """The guest's fit probes go beside its cover in the timing message: a short list of times
    is kept, anything longer or not a list is left out, a value that is no time is misbehaving."""
    from keval_runner.guest.guest_process import GuestMisbehaved
    from keval_runner.warden.guest_timing import GuestContender

    class Job:
        def __init__(self, enqueues):
            self.enqueues = enqueues

        def ask(self, header, stage, where):
            return {"ok": True, "fit_enqueues_us": self.enqueues}, None, None

    def fitted(enqueues):
        contender = GuestContender(Job(enqueues), "k", [], {})
        contender.warm_up(3, sampler=None)
        return contender.fit_enqueues_us

    assert fitted([310.5, 280.0, 295]) == [310.5, 280.0, 295.0]
    assert fitted([1.0] * 7) == [] and fitted("fast") == [] and fitted(None) == []
    with pytest.raises(GuestMisbehaved):
        fitted([1.0, float("nan")])


def test_the_warden_starts_its_device_while_the_guest_sets_itself_up(monkeypatch):
    """The warden's CUDA context and the guest's sandbox and context start side by side: the
    warden asks for the guest's `ready` only after its own device is up, and the job does not
    start the device again."""
    from keval_runner.jobs import child

    order = []

    class FakeGuest:
        device_lost = None
        pid = None

        @classmethod
        def start(cls, request, enter_sandbox, close_fds=()):
            order.append("guest forked")
            return cls()

        def ready(self):
            order.append("guest ready awaited")
            return None

        def end(self):
            return 123

    monkeypatch.setattr(child, "GuestProcess", FakeGuest)
    monkeypatch.setattr(child.GuestCgroup, "create", classmethod(lambda cls, name: None))
    monkeypatch.setattr(child.guest_stop, "resume", lambda pid: None)
    monkeypatch.setattr(child, "device_environment", lambda request: order.append("environment"))
    monkeypatch.setattr(child, "prepare_device", lambda request: order.append("warden device"))
    monkeypatch.setattr(child, "dispatch", lambda request, writer, guest=None, device_ready=False, baselines=None:
                        order.append(("job", device_ready)))
    assert child.run_with_guest({"op": "run", "kind": "candidate", "device": "cuda"}, None, -1) == 123
    assert order == ["environment", "guest forked", "warden device", "guest ready awaited", ("job", True)]


def test_the_guest_compiles_its_launch_cover_before_it_reports_ready(monkeypatch):
    """A timed CUDA job's guest makes its Sampler (the cover's compile) with its context, before
    `ready`, while the warden starts its own context; not at `load`, after both."""
    from keval_runner.guest import guest

    made = []
    monkeypatch.setattr(guest, "Sampler", lambda device, settings: made.append((str(device), settings)) or "sampler")
    monkeypatch.setattr(torch.cuda, "set_device", lambda index: made.append(("set_device", index)))
    monkeypatch.setattr(torch, "zeros", lambda *a, **k: made.append("context"))
    timing = {"enabled": True, "launch_cover_us": 200}
    assert guest.start_device({"device": "cuda", "timing": timing}) == (torch.device("cuda", 0), "sampler")
    assert made == [("set_device", 0), "context", ("cuda:0", timing)]
    made.clear()
    assert guest.start_device({"device": "cuda", "timing": {"enabled": False}}) == (torch.device("cuda", 0), None)
    assert guest.start_device({"device": "cpu", "timing": timing}) == (torch.device("cpu"), None)
    assert ("cuda:0", timing) not in made

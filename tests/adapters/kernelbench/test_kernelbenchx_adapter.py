"""The KernelBenchX adapter (`--suite kernelbenchx:PATH`) on a checkout written in KernelBenchX's
layout (fixtures/kernelbenchx/): data/kernelbenchx_v1.json, data/kernelbenchx/<Category>/<file>.py
(reference above the 146-# separator, test below), metrics/golden_metrics/<stem>_perf.py. Three
tasks: an activation, a quantised matmul with precision thresholds, an in-place optimizer step
whose function is not named as its file."""
import json
import os
import shutil
import tomllib

import pytest

from kb_harness import FIXTURES, adapter, keval, verdicts

CHECKOUT = FIXTURES / "kernelbenchx"
SUBMISSIONS = FIXTURES / "kernelbenchx_submissions"


@pytest.fixture(scope="module")
def suite(env, shared):
    out = os.path.join(shared, "suite")
    adapter(env, "kernelbenchx", "suite", "--source", CHECKOUT, "--out", out)
    return out


def task_toml(suite, name):
    with open(os.path.join(suite, name, "task.toml"), "rb") as f:
        return tomllib.load(f)


def test_a_task_per_metadata_entry_named_as_its_file(suite, env):
    listed = keval(env, "tasks", "list", "--suite", suite).stdout
    for name in ("clipped_relu", "matmul_w8a8", "Momentum"):
        assert name in listed
    assert "3 task files are valid" in keval(env, "validate", "--files-only", "--suite", f"kernelbenchx:{CHECKOUT}").stdout


def test_cases_tolerances_and_instruction_come_from_the_peer_files(suite):
    relu = task_toml(suite, "clipped_relu")
    assert relu["inputs_on_device"] and not relu["shared_inputs"]
    assert relu["adapter"] == "kernelbenchx"  # its evaluation key follows this adapter's code
    assert (relu["category"], relu["difficulty"], relu["entry"], relu["dtypes"]) == ("activation", 1, "clipped_relu", ["float32"])
    assert relu["tolerance"]["float32"]["atol"] == relu["tolerance"]["float32"]["rtol"] == 1e-5
    assert relu["instruction"].count("Functional Description: Applies ReLU") == 1
    assert "Wrapper Entry Information: clipped_relu(" in relu["instruction"]
    names = [c["name"] for c in relu["cases"]]
    assert names == ["tests", "perf_0", "perf_1", "perf_2"] and relu["cases"][0]["small"]
    assert not any(c.get("small") for c in relu["cases"][1:])
    # bytes and flops from the template's get_gbps/get_tflops, sized on the meta device
    assert relu["cases"][1]["params"] == {"perf_index": 0, "bytes_moved": 2 * 1027 * 4, "flop_count": 1027}
    quant = task_toml(suite, "matmul_w8a8")
    tol = quant["tolerance"]["float32"]
    assert (tol["atol"], tol["rtol"]) == (0.4, 0.05) and "cosine_sim >= 0.95" in tol["reason"]
    assert "Quantization: weight int8, activation int8" in quant["instruction"]
    step = task_toml(suite, "Momentum")
    assert step["entry"] == "Momentum" and step["inplace"] and not relu["inplace"]
    assert "`momentum_step`" in step["instruction"]


def test_perf_inputs_make_only_the_asked_for_item(suite, monkeypatch):
    from keval_adapters.common.module_file import load_module

    reference = load_module(os.path.join(suite, "Momentum", "reference.py"), "kbx_test_ref_momentum")
    marker, spec, param, grad, buf = reference.make_inputs({"name": "perf_2", "perf_index": 2}, None, 3)
    assert marker.startswith("keval:") and param.shape == (1024,) and param.device.type == "cpu"
    again = reference.make_inputs({"name": "perf_2", "perf_index": 2}, None, 3)
    assert (again[2] == param).all()
    outputs = reference.reference(marker, spec, param, grad, buf)
    assert len(outputs) == 2 and outputs[0] is not None
    tests = reference.reference(*reference.make_inputs({"name": "tests"}, None, 1))
    assert [tuple(t.shape) for t in tests] == [(3, 5)] * 4
    import torch

    with torch.device("meta"):  # as a job of this inputs_on_device task calls it on its device
        on_device = reference.make_inputs({"name": "perf_2", "perf_index": 2}, None, 3)
    assert on_device[2].device.type == "meta" and on_device[2].shape == param.shape
    task = reference._keval_kbx_task
    built_on = []

    def runs_out_off_the_cpu(index, seed, device="cpu"):
        built_on.append(device)
        if device != "cpu":
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 6.00 GiB")
        return None, (param,), None

    # running out depends on the GPU's other jobs: raised for a retry, never redrawn on the CPU
    monkeypatch.setattr(task, "perf_item", runs_out_off_the_cpu)
    with torch.device("meta"), pytest.raises(torch.OutOfMemoryError):
        reference.make_inputs({"name": "perf_2", "perf_index": 2}, None, 3)
    assert built_on == ["meta"]


def test_selfcheck_runs_the_test_and_perf_cases(env, shared):
    proc = adapter(env, "kernelbenchx", "selfcheck", "--source", CHECKOUT, "--out",
                   os.path.join(shared, "selfcheck"), "--all-cases")
    assert "selfcheck: 3 of 3 goldens match their reference" in proc.stdout


def test_keval_judges_kernelbenchx_submissions(env, shared):
    """Triton submissions pass (also the in-place optimizer step named as its function); a
    PyTorch-only one, read from KernelBenchX's own {predict, file} JSONL, is no_kernel; a `.py`
    file carrying KernelBenchX's test below the separator is cut there."""
    folder = os.path.join(shared, "subs")
    shutil.copytree(SUBMISSIONS, folder)
    separator = "#" * 146
    with open(os.path.join(folder, "clipped_relu.py"), "a") as f:
        f.write(f"\n{separator}\nraise SystemExit('the test part must not run as the submission')\n")
    converted = os.path.join(shared, "subs.jsonl")
    adapter(env, "kernelbenchx", "submissions", "--source", folder, "--out", converted, "--suite", CHECKOUT)
    out = os.path.join(shared, "run")
    keval(env, "run", "--suite", f"kernelbenchx:{CHECKOUT}", "--submissions", converted, "--out", out,
          "--device", "cpu", "--no-timing", "--quiet")
    got = {k: r["verdict"] for k, r in verdicts(out).items()}
    assert got == {"clipped_relu": "pass", "Momentum": "pass", "clipped_relu_torch:1": "no_kernel"}
    # the controller reads {predict, file} natively too
    native = os.path.join(shared, "run-native")
    keval(env, "run", "--suite", f"kernelbenchx:{CHECKOUT}", "--submissions",
          SUBMISSIONS / "clipped_relu_torch.jsonl", "--out", native, "--device", "cpu", "--no-timing", "--quiet")
    assert [r["verdict"] for r in verdicts(native).values()] == ["no_kernel"]


def test_submissions_match_by_instruction_when_no_file_is_given(env, shared):
    path = os.path.join(shared, "by-instruction.jsonl")
    meta = json.loads((CHECKOUT / "data" / "kernelbenchx_v1.json").read_text())
    with open(path, "w") as f:
        text = f"Functional Description: {meta[0]['description']}\nWrapper Entry Information: {meta[0]['func_inputs']}"
        f.write(json.dumps({"instruction": text, "predict": "def clipped_relu(x):\n    return x\n"}) + "\n")
        f.write(json.dumps({"file": "Nowhere/missing.py", "predict": "x = 1"}) + "\n")
    out = os.path.join(shared, "by-instruction.out.jsonl")
    adapter(env, "kernelbenchx", "submissions", "--source", path, "--out", out, "--suite", CHECKOUT)
    rows = [json.loads(line) for line in open(out)]
    assert rows[0]["task"] == "clipped_relu" and rows[1]["task"].startswith("(no task:")


def test_data_utils_defaults_follow_the_device_of_the_call(suite):
    """data_utils' `device="cuda"` defaults are bound when it loads: one copy per device, so a test
    on a GPU does not get the CPU copy that built the performance inputs (session 6, H200)."""
    import sys

    from keval_adapters.kernelbenchx import runtime as rt

    task = rt.Task(os.path.join(suite, "clipped_relu", "peer"), "Activation", "clipped_relu", "clipped_relu")
    for device in ("cpu", "meta", "cpu"):
        with task._peer_modules(task.reference_function(), device):
            assert sys.modules["data_utils"].rand_tensor((2, 3)).device.type == device


def test_perf_calls_are_seeded_so_a_random_reference_repeats_itself(suite):
    import torch

    from keval_adapters.kernelbenchx import runtime as rt

    task = rt.Task(os.path.join(suite, "clipped_relu", "peer"), "Activation", "clipped_relu", "clipped_relu")

    def dropout_like(x, *args, **kwargs):  # a reference that draws random numbers
        return x * (torch.rand_like(x) > 0.5)

    args = task.make_inputs({"name": "perf_0", "perf_index": 0}, 7)
    first, second = task.call(dropout_like, {}, args), task.call(dropout_like, {}, args)
    assert len(first) == 1 and torch.equal(first[0], second[0])


def test_perf_calls_seed_as_torch_manual_seed_without_formatting_stacks(suite, monkeypatch):
    """torch.manual_seed queues the seed, with a formatted stack, for each backend not started
    (XPU, MTIA; CUDA on this machine): 0.4 ms of host work in every timed call."""
    import traceback

    import torch

    from keval_adapters.kernelbenchx import runtime as rt

    task = rt.Task(os.path.join(suite, "clipped_relu", "peer"), "Activation", "clipped_relu", "clipped_relu")
    args = task.make_inputs({"name": "perf_0", "perf_index": 0}, 7)
    draws = task.call(lambda x, *a, **k: torch.rand_like(x), {}, args)
    torch.manual_seed(rt.PERF_CALL_SEED)
    assert torch.equal(draws[0], torch.rand_like(args[2]))

    formatted = []
    format_stack = traceback.format_stack
    monkeypatch.setattr(traceback, "format_stack", lambda *a, **k: formatted.append(1) or format_stack(*a, **k))
    for _ in range(5):
        task.call(lambda x, *a, **k: x + 1, {}, args)
    assert formatted == []


def test_flatten_compares_what_kernelbenchx_compares():
    import torch

    from keval_adapters.kernelbenchx import runtime as rt

    out = rt.flatten({"b": [torch.ones(2), 3], "a": (1.5, None, True, "x")})
    assert [t.dtype for t in out] == [torch.float64, torch.bool, torch.bool, torch.uint8, torch.float32, torch.int64]


def test_any_code_validates_kernelbenchx_references_as_submissions(env, shared):
    """`kernelbenchx:PATH:any-code`: the PyTorch references (the goldens) pass `keval validate`,
    where without it they are no_kernel; a category narrows the suite beside it."""
    out = os.path.join(shared, "validate_any_code")
    proc = keval(env, "validate", "--suite", f"kernelbenchx:{CHECKOUT}:any-code", "--device", "cpu",
                 "--no-timing", "--out", out)
    assert "every golden kernel passes (3 tasks" in proc.stdout
    strict = keval(env, "validate", "--suite", f"kernelbenchx:{CHECKOUT}:Activation", "--device", "cpu",
                   "--no-timing", "--out", os.path.join(shared, "validate_strict"), check=False)
    assert strict.returncode == 1 and "no_kernel" in strict.stdout and "Momentum" not in strict.stdout


def test_the_python_flag_also_runs_the_peer_adapter(env, tmp_path):
    """`--python` is the interpreter of everything keval starts, the adapter that turns the peer's
    checkout into tasks included (not only KEVAL_PYTHON): here neither the Python recorded beside
    the binary nor `python3` on PATH can run it."""
    import shutil
    import subprocess
    from kb_harness import KEVAL, PYTHON, REPO

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\necho 'not the python keval was given' >&2\nexit 3\n")
    (fake / "python3").chmod(0o755)
    binary = tmp_path / "kbin" / "keval"  # a copy whose recorded Python (build/keval.python) is the fake
    binary.parent.mkdir()
    shutil.copy(KEVAL, binary)
    (binary.parent / "keval.python").write_text(f"{fake / 'python3'}\n")
    bare = dict(env, PATH=f"{fake}:{env.get('PATH', '')}", KEVAL_CACHE_DIR=str(tmp_path / "cache"))
    bare.pop("KEVAL_PYTHON")
    args = [str(binary), "validate", "--files-only", "--suite", f"kernelbenchx:{CHECKOUT}"]
    run = lambda *more: subprocess.run([*args, *more], cwd=REPO, env=bare, capture_output=True, text=True, timeout=300)
    assert "not the python keval was given" in run().stderr
    assert "3 task files are valid" in run("--python", PYTHON).stdout


def _timed_run(folder, gpu_name):
    """A keval run's results.jsonl and summary.json as a GPU run writes them (times made up)."""
    os.makedirs(folder, exist_ok=True)
    cases = [{"case": "tests", "dtype": "float32", "time_ms": None, "ref_time_ms": None}] + [
        {"case": f"perf_{i}", "dtype": "float32", "time_ms": 0.01 + i, "ref_time_ms": 0.02 + i} for i in range(3)]
    with open(os.path.join(folder, "results.jsonl"), "w") as f:
        f.write(json.dumps({"id": "s1", "task": "clipped_relu", "verdict": "pass", "cases": cases}) + "\n")
    with open(os.path.join(folder, "summary.json"), "w") as f:
        json.dump({"environment": {"gpu": gpu_name}}, f)
    return os.path.join(folder, "results.jsonl")


def test_published_times_beside_kevals_for_the_gpu_of_the_run(env, shared):
    results = _timed_run(os.path.join(shared, "published-h800"), "NVIDIA H800")
    out = os.path.join(shared, "published-h800.json")
    shown = keval(env, "published-times", "--suite", f"kernelbenchx:{CHECKOUT}", "--results", results, "--out", out)
    report = json.load(open(out))
    assert report["gpu"] == "h800" and report["available"] == ["4090", "h800"]
    # golden_results entry i is the perf template's input i, keval's case perf_i
    assert [(r["case"], r["published_ms"], r["keval_golden_ms"]) for r in report["rows"]] == [
        ("perf_0", 0.0051, 0.02), ("perf_1", 0.0062, 1.02), ("perf_2", 0.0113, 2.02)]
    assert "golden_results/h800" in shown.stdout


def test_published_times_of_another_gpu_on_request_and_none_for_an_unknown_one(env, shared):
    results = _timed_run(os.path.join(shared, "published-h200"), "NVIDIA H200")
    out = os.path.join(shared, "published-h200.json")
    shown = keval(env, "published-times", "--suite", f"kernelbenchx:{CHECKOUT}", "--results", results, "--out", out)
    assert json.load(open(out))["gpu"] == "" and "choose one with --gpu" in shown.stdout
    keval(env, "published-times", "--suite", f"kernelbenchx:{CHECKOUT}", "--results", results, "--gpu", "4090", "--out", out)
    # 4090 has times for two of the three inputs
    assert [r["published_ms"] for r in json.load(open(out))["rows"]] == [0.0040, 0.0045, None]
    bad = keval(env, "published-times", "--suite", f"kernelbenchx:{CHECKOUT}", "--results", results, "--gpu", "h100", check=False)
    assert bad.returncode != 0
    assert bad.stderr.strip().splitlines()[-1].endswith("--gpu h100: KernelBenchX has no golden results for it (it has: 4090, h800)")

"""The KernelBench adapter (`--suite kernelbench:PATH`) on three problems written in KernelBench's
format (fixtures/kernelbench/KernelBench/level{1,2}/): a Linear layer with weights, an
elementwise op with an int64 input, and a two-op fusion too big for the CPU interpreter."""
import json
import os
import tomllib

import pytest

from kb_harness import FIXTURES, adapter, keval, verdicts

CHECKOUT = FIXTURES / "kernelbench"
SUBMISSIONS = FIXTURES / "kernelbench_submissions"
TASKS = ["l1_1_small_linear", "l1_2_shift_by_index", "l2_1_scale_sigmoid"]


@pytest.fixture(scope="module")
def suite(env, shared):
    out = os.path.join(shared, "suite")
    adapter(env, "kernelbench", "suite", "--source", CHECKOUT, "--out", out)
    return out


def task_toml(suite, name):
    with open(os.path.join(suite, name, "task.toml"), "rb") as f:
        return tomllib.load(f)


def test_a_task_per_problem_file_named_by_level_id_and_title(suite, env):
    assert sorted(n for n in os.listdir(suite) if not n.startswith((".", "ADAPTED"))) == TASKS
    listed = keval(env, "tasks", "list", "--suite", suite).stdout
    assert all(name in listed for name in TASKS)
    via_spec = keval(env, "validate", "--files-only", "--suite", f"kernelbench:{CHECKOUT}").stdout
    assert "3 task files are valid" in via_spec


def test_task_fields_follow_kernelbench(suite):
    linear = task_toml(suite, "l1_1_small_linear")
    assert (linear["track"], linear["category"], linear["difficulty"]) == ("ops", "kernelbench_level1", 2)
    assert linear["entry"] == "kernelbench_forward" and linear["dtypes"] == ["float32"]
    assert linear["adapter"] == "kernelbench"  # its evaluation key follows this adapter's code
    assert linear["tolerance"]["float32"]["atol"] == linear["tolerance"]["float32"]["rtol"] == 1e-2
    assert "class ModelNew" in linear["instruction"] and "self.linear = nn.Linear" in linear["instruction"]
    assert linear.get("require_kernel", True)
    assert linear["inputs_on_device"] and not linear["shared_inputs"]  # drawn on the GPU, never in the zygote
    (case,) = linear["cases"]
    assert case["small"] and case["params"]["param_bytes"] == (24 * 12 + 12) * 4
    fusion = task_toml(suite, "l2_1_scale_sigmoid")
    assert (fusion["track"], fusion["difficulty"]) == ("real", 3)
    full, small = fusion["cases"]
    assert not full.get("small") and full["params"]["input_bytes"] == 1024 * 2049 * 4
    # too big for the interpreter: a variant with the sizes divided (odd sizes stay odd)
    assert small["small"] and small["params"]["scale"] == 2
    assert small["params"]["input_bytes"] == 512 * 1025 * 4


def test_inputs_keep_integer_dtypes_and_weights_do_not_depend_on_the_seed(suite):
    from keval_adapters.common.module_file import load_module

    reference = load_module(os.path.join(suite, "l1_2_shift_by_index", "reference.py"), "kb_test_ref_shift")
    x, shift = reference.make_inputs({"name": "full", "scale": 1}, None, 5)
    assert str(shift.dtype) == "torch.int64" and tuple(x.shape) == (7, 45)
    linear = load_module(os.path.join(suite, "l1_1_small_linear", "reference.py"), "kb_test_ref_linear")
    (a,) = linear.make_inputs({"name": "full", "scale": 1}, None, 1)
    (b,) = linear.make_inputs({"name": "full", "scale": 1}, None, 2)
    assert not (a == b).all()
    out = linear.reference(a)
    import torch

    torch.manual_seed(12345)  # the weights come from the fixed weight seed, not the caller's state
    assert torch.equal(out, linear.reference(a))


def test_selfcheck_runs_every_golden_against_its_reference(env, shared):
    proc = adapter(env, "kernelbench", "selfcheck", "--source", CHECKOUT, "--out", os.path.join(shared, "selfcheck"))
    assert "selfcheck: 3 of 3 goldens match their reference" in proc.stdout


def test_keval_judges_submissions_on_the_peer_suite(env, shared):
    """(a) a Triton ModelNew: pass; (b) PyTorch ops only: no_kernel; (c) a wrong result:
    mismatch; (d) a Linear whose own weights differ (it draws from the RNG first and zeroes its
    weight): pass, Model's weights are copied by name; (e) the same under another attribute
    name: nothing to copy, mismatch."""
    cases = {"shift_triton": ("l1_2_shift_by_index", "pass"), "shift_torch": ("l1_2_shift_by_index", "no_kernel"),
             "shift_wrong": ("l1_2_shift_by_index", "mismatch"), "linear_triton": ("l1_1_small_linear", "pass"),
             "linear_renamed": ("l1_1_small_linear", "mismatch")}
    path = os.path.join(shared, "submissions.jsonl")
    with open(path, "w") as f:
        for name, (task, _) in cases.items():
            f.write(json.dumps({"task": task, "code": (SUBMISSIONS / f"{name}.py").read_text(), "id": name}) + "\n")
    out = os.path.join(shared, "run")
    keval(env, "run", "--suite", f"kernelbench:{CHECKOUT}", "--submissions", path, "--out", out,
          "--device", "cpu", "--no-timing", "--quiet")
    got = {k: r["verdict"] for k, r in verdicts(out).items()}
    assert got == {name: verdict for name, (_, verdict) in cases.items()}


def test_any_code_judges_by_kernelbench_own_rule(env, shared):
    """`kernelbench:PATH:1,any-code`: PyTorch-only ModelNew passes (the reference as a
    submission), a wrong one still fails; the level selection still applies."""
    cases = {"shift_torch": "pass", "shift_wrong": "mismatch"}
    path = os.path.join(shared, "any_code.jsonl")
    with open(path, "w") as f:
        for name in cases:
            f.write(json.dumps({"task": "l1_2_shift_by_index", "code": (SUBMISSIONS / f"{name}.py").read_text(),
                                "id": name}) + "\n")
    out = os.path.join(shared, "run_any_code")
    keval(env, "run", "--suite", f"kernelbench:{CHECKOUT}:1,any-code", "--submissions", path, "--out", out,
          "--device", "cpu", "--no-timing", "--quiet")
    assert {k: r["verdict"] for k, r in verdicts(out).items()} == cases
    listed = keval(env, "tasks", "list", "--suite", f"kernelbench:{CHECKOUT}:1,any-code").stdout
    assert "l1_2_shift_by_index" in listed and "l2_1_scale_sigmoid" not in listed


def test_submissions_are_matched_by_model_source_or_level_and_id(env, shared):
    """Single files holding Model and ModelNew (the makora latency dataset's format) match the
    problem whose Model they copy, whatever the formatting; JSONL lines by level/problem_id."""
    folder = os.path.join(shared, "makora")
    os.makedirs(folder)
    problem = (CHECKOUT / "KernelBench" / "level1" / "2_Shift_By_Index.py").read_text()
    reformatted = problem.replace("    def forward(self, x, shift):", "    def forward(self, x,   shift):  # same")
    model_new = (SUBMISSIONS / "shift_triton.py").read_text()
    with open(os.path.join(folder, "sample_0001.py"), "w") as f:
        f.write(reformatted + "\n\n" + model_new)
    with open(os.path.join(folder, "more.jsonl"), "w") as f:
        f.write(json.dumps({"level": 1, "problem_id": 1, "completion": "```python\n" +
                            (SUBMISSIONS / "linear_triton.py").read_text() + "```", "id": "by-id"}) + "\n")
        f.write(json.dumps({"code": "class ModelNew: pass\n", "id": "orphan"}) + "\n")
    out = os.path.join(shared, "matched.jsonl")
    adapter(env, "kernelbench", "submissions", "--source", folder, "--out", out, "--suite", CHECKOUT)
    rows = {r["id"]: r for r in map(json.loads, open(out))}
    assert rows["sample_0001"]["task"] == "l1_2_shift_by_index"
    assert rows["by-id"]["task"] == "l1_1_small_linear" and rows["by-id"]["code"].startswith("import torch")
    assert rows["orphan"]["task"].startswith("(no task:")


def test_inputs_draw_on_the_default_device_and_again_on_the_cpu_when_that_fails(tmp_path):
    import torch

    from keval_adapters.kernelbench import runtime as rt

    path = tmp_path / "1_Numpy.py"
    path.write_text("import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"
                    "    def forward(self, x, y):\n        return x + y\n\n"
                    "def get_inputs():\n    x = torch.rand(4)\n"
                    "    return [x, torch.from_numpy(x.numpy())]  # needs a CPU tensor\n\n"
                    "def get_init_inputs():\n    return []\n")
    problem = rt.Problem(str(path))
    with torch.device("meta"):  # as the runner calls it for an inputs_on_device task
        x, y = problem.make_inputs(1, 3)
    assert x.device.type == y.device.type == "cpu" and torch.equal(x, y)
    assert torch.equal(x, problem.make_inputs(1, 3)[0])  # the same draw as on the CPU
    path.write_text(path.read_text().replace("torch.from_numpy(x.numpy())", "torch.rand(4)"))
    with torch.device("meta"):
        assert rt.Problem(str(path)).make_inputs(1, 3)[1].device.type == "meta"
    # out of memory depends on the GPU's other jobs: raised for a retry, never drawn on the CPU
    path.write_text(path.read_text().replace(
        "    x = torch.rand(4)\n",
        "    x = torch.rand(4)\n    if x.device.type != 'cpu':\n"
        "        raise torch.OutOfMemoryError('CUDA out of memory. Tried to allocate 6.00 GiB')\n"))
    with torch.device("meta"), pytest.raises(torch.OutOfMemoryError):
        rt.Problem(str(path)).make_inputs(1, 3)


def test_scaling_and_weight_copy_units():
    import torch

    from keval_adapters.kernelbench import runtime as rt

    assert [rt.scaled_literal(v, 4) for v in (3, 31, 32, 2049, 4096)] == [3, 31, 8, 513, 1024]

    class Ref(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)

    class Renamed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(3, 2)

    same = Ref()
    assert rt.copy_weights(Ref(), same) == ""
    report = rt.copy_weights(Ref(), Renamed())
    assert "copied 0 of Model's 2" in report and "proj.weight" in report


def test_a_folder_that_is_not_a_checkout_is_a_one_line_reason(env, shared):
    empty = os.path.join(shared, "empty")
    os.makedirs(empty)
    for kind in ("kernelbench", "kernelbenchx"):
        proc = keval(env, "tasks", "list", "--suite", f"{kind}:{empty}", check=False)
        assert proc.returncode != 0
        assert f"{empty}: not a {'KernelBench' if kind == 'kernelbench' else 'KernelBenchX'} checkout" in proc.stderr

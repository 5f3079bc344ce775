"""`kernelbench compare-judges`: keval's verdicts next to KernelBench's own criterion
(src/kernelbench/eval.py), on the fixture checkout (fixtures/kernelbench/) and ModelNew files
from fixtures/kernelbench_submissions/ and fixtures/kernelbench_judges/:
- shift_triton: right (both pass); shift_wrong: 3x instead of 2x (both fail); a syntax error;
- linear_triton: draws from the RNG before its Linear and zeroes its weight: keval copies Model's
  weights by name and passes it, KernelBench copies nothing (seed 42 before each constructor);
- shift_near: 0.002 off everywhere: inside keval's 1e-2 but an error only lower-precision
  arithmetic gives (keval's precision policy: mismatch), outside KernelBench's 1e-4;
- shift_float_out: its output takes the dtype of the int64 `shift`: right only because
  KernelBench casts every input to float32;
- linear_patches_torch: forgets the bias and replaces F.linear process-wide, so the reference,
  run in KernelBench's one process, forgets it too;
- shift_torch: PyTorch only (keval: no_kernel; KernelBench asks for nothing);
- a line for a problem that does not exist.
"""
import json
import os

import pytest

from kb_harness import FIXTURES, REPO, PYTHON, adapter, keval, verdicts

from keval_adapters.kernelbench import criterion  # noqa: E402 (kb_harness: runner/ on sys.path)
from keval_adapters.kernelbench import judges  # noqa: E402

CHECKOUT = FIXTURES / "kernelbench"
SHIFT, LINEAR = "l1_2_shift_by_index", "l1_1_small_linear"
SUBMISSIONS = {
    "shift_triton": (SHIFT, FIXTURES / "kernelbench_submissions" / "shift_triton.py"),
    "shift_wrong": (SHIFT, FIXTURES / "kernelbench_submissions" / "shift_wrong.py"),
    "shift_torch": (SHIFT, FIXTURES / "kernelbench_submissions" / "shift_torch.py"),
    "linear_triton": (LINEAR, FIXTURES / "kernelbench_submissions" / "linear_triton.py"),
    "shift_near": (SHIFT, FIXTURES / "kernelbench_judges" / "shift_near.py"),
    "shift_float_out": (SHIFT, FIXTURES / "kernelbench_judges" / "shift_float_out.py"),
    "linear_patches_torch": (LINEAR, FIXTURES / "kernelbench_judges" / "linear_patches_torch.py"),
}
SYNTAX_ERROR = "import torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n    def forward(self, x, shift\n"


@pytest.fixture(scope="module")
def generations(shared):
    """KernelBench generations as JSONL lines {id, task, code}."""
    path = os.path.join(shared, "generations.jsonl")
    lines = [{"id": name, "task": task, "code": file.read_text()} for name, (task, file) in SUBMISSIONS.items()]
    lines += [{"id": "syntax_error", "task": SHIFT, "code": SYNTAX_ERROR},
              {"id": "unknown_task", "level": 9, "problem_id": 9, "code": "class ModelNew: pass\n"}]
    with open(path, "w") as f:
        f.writelines(json.dumps(line) + "\n" for line in lines)
    return path


@pytest.fixture(scope="module")
def judged(env, shared, generations):
    """keval run, then the real binary's compare-judges, both on the CPU."""
    out = os.path.join(shared, "run")
    keval(env, "run", "--suite", f"kernelbench:{CHECKOUT}", "--submissions", f"kernelbench:{generations}",
          "--out", out, "--device", "cpu", "--no-timing", "--quiet")
    report_path = os.path.join(shared, "judges.json")
    proc = keval(env, "compare-judges", "--suite", f"kernelbench:{CHECKOUT}", "--submissions",
                 f"kernelbench:{generations}", "--results", os.path.join(out, "results.jsonl"),
                 "--out", report_path, "--device", "cpu", "--timeout", "120")
    with open(report_path) as f:
        report = json.load(f)
    return verdicts(out), report, proc.stdout


def items_of(report) -> dict:
    return {item["id"]: item for item in report["items"]}


# --- keval and KernelBench on the fixture ----------------------------------------------------


def test_keval_verdicts_on_the_fixture(judged):
    rows, _, _ = judged
    got = {k: r["verdict"] for k, r in rows.items()}
    assert got == {"shift_triton": "pass", "shift_wrong": "mismatch", "shift_torch": "no_kernel",
                   "linear_triton": "pass", "shift_near": "mismatch", "shift_float_out": "wrong_dtype",
                   # it rebinds F.linear process-wide: the guest's snapshot of torch's names
                   "linear_patches_torch": "tampering", "syntax_error": "compile_error",
                   "unknown_task": "bad_submission"}


def test_both_judges_agree_on_right_wrong_and_unloadable_code(judged):
    _, report, _ = judged
    items = items_of(report)
    right = items["shift_triton"]
    assert (right["exec"], right["call"], right["kernelbench_trials"]) == ("agree_pass", "agree_pass", "(5 / 5)")
    wrong = items["shift_wrong"]
    assert (wrong["exec"], wrong["kernelbench_call"], wrong["kernelbench_trials"]) == ("agree_fail", True, "(0 / 5)")
    broken = items["syntax_error"]
    assert broken["exec"] == broken["call"] == "agree_fail"
    assert "compilation error: SyntaxError" in broken["kernelbench_error"]


def test_rng_order_weights_fail_what_keval_passes_and_both_fail_a_near_miss(judged):
    _, report, _ = judged
    items = items_of(report)
    assert items["linear_triton"]["exec"] == "keval_pass_kernelbench_fail", items["linear_triton"]
    assert items["linear_triton"]["call"] == "agree_pass"
    near = items["shift_near"]
    assert (near["exec"], near["call"]) == ("agree_fail", "agree_pass"), near
    assert "max difference 0.002000" in near["kernelbench_error"]
    assert 'this task computes in float32 (precision "fp32")' in near["keval_reason"]
    assert [e["id"] for e in report["disagreements"]["exec"]["keval_pass_kernelbench_fail"]] == ["linear_triton"]


def test_float_cast_inputs_shared_process_and_pytorch_pass_what_keval_fails(judged):
    _, report, stdout = judged
    items = items_of(report)
    for name in ("shift_float_out", "linear_patches_torch", "shift_torch"):
        assert items[name]["kernelbench_exec"] is True, items[name]
        assert items[name]["exec"] == "keval_fail_kernelbench_pass"
    assert "keval fail / KernelBench pass 3" in stdout


def test_report_counts(judged):
    _, report, stdout = judged
    assert (report["kind"], report["device"]) == ("kernelbench", "cpu")
    assert (report["n_lines"], report["unmatched"], report["not_in_results"], report["n_compared"]) == (9, 1, 0, 8)
    assert report["exec"] == {"agree_pass": 1, "agree_fail": 3, "keval_fail_kernelbench_pass": 3,
                              "keval_pass_kernelbench_fail": 1}
    assert report["call"] == {"agree_pass": 7, "agree_fail": 1}
    assert report["by_verdict"]["pass"] == {"n": 2, "kernelbench_call_pass": 2, "kernelbench_exec_pass": 1}
    assert "exec: agree 4 (pass 1, fail 3)" in stdout


# --- KernelBench's rules, one by one (in this process, PyTorch only) -------------------------

PROBLEM = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.linear = nn.Linear(n, n)

    def forward(self, x):
        return self.linear(x)

def get_inputs():
    return [torch.randn(4, 16)]

def get_init_inputs():
    return [16]
"""


def model_new(init: str = "self.linear = nn.Linear(n, n)", forward: str = "return self.linear(x)") -> str:
    return ("import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n    def __init__(self, n):\n"
            f"        super().__init__()\n        {init}\n\n    def forward(self, x):\n        {forward}\n")


def test_trials_use_five_seeds_drawn_after_seed_42():
    import torch

    torch.manual_seed(42)
    expected = [int(torch.randint(0, 2**32 - 1, (1,))) for _ in range(5)]
    assert criterion.trial_seeds() == expected == [734796314, 576165995, 2197670066, 839703249, 2584932063]
    assert (criterion.SEED, criterion.TRIALS) == (42, 5)


def test_float32_tolerance_is_1e_4():
    assert criterion.tolerance_for_precision("torch.float32") == 1e-4
    inside = criterion.evaluate(PROBLEM, model_new(forward="return self.linear(x) + 5e-5"), "cpu")
    assert (inside["compiled"], inside["correctness"], inside["trials"]) == (True, True, "(5 / 5)")
    outside = criterion.evaluate(PROBLEM, model_new(forward="return self.linear(x) + 5e-4"), "cpu")
    assert (outside["compiled"], outside["correctness"], outside["trials"]) == (True, False, "(0 / 5)")


def test_weights_follow_the_rng_order_not_the_names():
    renamed = criterion.evaluate(PROBLEM, model_new(init="self.fc = nn.Linear(n, n)",
                                                    forward="return self.fc(x)"), "cpu")
    assert renamed["correctness"]
    reordered = criterion.evaluate(PROBLEM, model_new(init="torch.rand(1); self.linear = nn.Linear(n, n)"), "cpu")
    assert not reordered["correctness"] and "Output mismatch (0 / 5)" in reordered["error"]


def test_integer_inputs_reach_both_models_as_float32():
    problem = PROBLEM.replace("torch.randn(4, 16)", "torch.randint(0, 5, (4, 16))").replace(
        "return self.linear(x)", "return self.linear(x.float())")
    picky = model_new(forward="assert x.dtype == torch.float32, x.dtype; return self.linear(x)")
    assert criterion.evaluate(problem, picky, "cpu")["correctness"]
    # a reference that needs its integers (class targets, as level 1's CrossEntropyLoss) fails
    # every trial itself: no submission can pass it
    targets = PROBLEM.replace("torch.randn(4, 16)", "torch.randn(4, 16), torch.randint(0, 16, (4,))").replace(
        "def forward(self, x):\n        return self.linear(x)",
        "def forward(self, x, t):\n        return nn.functional.cross_entropy(self.linear(x), t)")
    assert "def forward(self, x, t)" in targets
    same = criterion.evaluate(targets, targets.replace("class Model(", "class ModelNew("), "cpu")
    assert (same["compiled"], same["correctness"]) == (True, False)
    assert same["error"].startswith("the reference Model failed in trial 0: RuntimeError")


def test_what_counts_as_compiled():
    missing = criterion.evaluate(PROBLEM, "import torch\n", "cpu")
    assert (missing["compiled"], missing["correctness"]) == (False, False) and "ModelNew" in missing["error"]
    runtime_error = criterion.evaluate(PROBLEM, model_new(init="raise RuntimeError('no kernel image')"), "cpu")
    assert (runtime_error["compiled"], runtime_error["correctness"]) == (True, False)
    type_error = criterion.evaluate(PROBLEM, model_new(init="raise TypeError('bad init')"), "cpu")
    assert (type_error["compiled"], type_error["correctness"]) == (False, False)
    assert "escaped eval_kernel_against_ref" in type_error["error"]


def test_shape_mismatch_and_tuple_outputs_fail():
    shape = criterion.evaluate(PROBLEM, model_new(forward="return self.linear(x)[:, :8]"), "cpu")
    assert (shape["compiled"], shape["correctness"]) == (True, False) and "shape mismatch" in shape["error"]
    pair = PROBLEM.replace("return self.linear(x)", "return self.linear(x), x")
    twice = criterion.evaluate(pair, model_new(forward="return self.linear(x), x"), "cpu")
    assert not twice["correctness"] and "AttributeError" in twice["error"]


def test_cpu_runs_the_variant_keval_judges_on_the_cpu():
    tasks = {"l2_1_scale_sigmoid", SHIFT}
    cpu = judges.reference_sources(tasks, str(CHECKOUT), "cpu")
    gpu = judges.reference_sources(tasks, str(CHECKOUT), "cuda")
    assert "batch_size = 512" in cpu["l2_1_scale_sigmoid"] and "features = 1025" in cpu["l2_1_scale_sigmoid"]
    assert "batch_size = 1024" in gpu["l2_1_scale_sigmoid"]
    assert cpu[SHIFT] == gpu[SHIFT] == (CHECKOUT / "KernelBench" / "level1" / "2_Shift_By_Index.py").read_text()


def test_a_submission_past_the_timeout_is_killed_and_not_compiled(tmp_path):
    problem = (CHECKOUT / "KernelBench" / "level1" / "2_Shift_By_Index.py").read_text()
    judge = judges.Judge(PYTHON, "cpu", 5, str(tmp_path), {SHIFT: problem})
    run = judge.judge({"id": "sleeper", "task": SHIFT, "code": "import time\ntime.sleep(60)\n"})
    assert (run["call"], run["exec"], run["timeout"]) == (False, False, True)
    assert "timeout after 5 s" in run["error"]


def test_without_a_checkout_it_asks_for_suite(env, generations):
    proc = adapter(env, "kernelbench", "compare-judges", "--results", REPO / "nothing.jsonl", "--source",
                   generations, "--out", "/dev/null", check=False)
    assert proc.returncode == 1 and "--suite kernelbench:CHECKOUT" in proc.stderr.strip().splitlines()[-1]

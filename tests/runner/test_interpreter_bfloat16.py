"""bfloat16 under the CPU interpreter: kernels written plainly, with no bfloat16 special case,
match torch within the suite's bfloat16 tolerance (the runner gives the interpreter a real
bfloat16 type, runner/keval_runner/interpreter/interpreter_bfloat16.py)."""

import math
import os
import subprocess
import sys
import tomllib

import pytest
import torch
import triton
import triton.language as tl

from runner_harness import REPO, RUNNER_DIR, of_type
from keval_runner.interpreter.interpreter_support import enable_real_bfloat16

SUITE = os.path.join(REPO, "suites", "keval")


def bfloat16_cases(task: str, seeds=(1, 2)) -> list:
    """The task's small cases in bfloat16, with the suite's bfloat16 tolerance."""
    with open(os.path.join(SUITE, task, "task.toml"), "rb") as f:
        config = tomllib.load(f)
    tolerance = config["tolerance"]["bfloat16"]
    return [{"name": c["name"], "params": c["params"], "dtype": "bfloat16", "seeds": list(seeds),
             "atol": tolerance["atol"], "rtol": tolerance["rtol"]}
            for c in config["cases"] if c.get("small") and "bfloat16" in c.get("dtypes", config["dtypes"])]


def compare(runner, jobs, task, cases, tolerance=None) -> list:
    if tolerance is not None:
        cases = [dict(c, atol=tolerance, rtol=tolerance) for c in cases]
    request = jobs.reference(cases=cases, task_dir=os.path.join(SUITE, task))
    request["entry"] = task
    return [c["outputs"][0] for c in of_type(runner.run(request), "compare")]


@pytest.mark.parametrize("task,candidate", [("vector_add", "plain_bf16_add"), ("relu", "plain_bf16_relu"),
                                            ("softmax", "plain_bf16_softmax"), ("matmul", "plain_bf16_matmul")])
def test_plain_kernel_matches_torch_in_bfloat16(runner, jobs, task, candidate):
    cases = bfloat16_cases(task)
    request = jobs.candidate(candidate, cases=cases, entry=task, task_dir=os.path.join(SUITE, task))
    calls = of_type(runner.run(request), "call")
    assert len(calls) == 2 * len(cases) and all(c["ok"] and c["kernels"] for c in calls), calls
    within = compare(runner, jobs, task, cases)
    assert len(within) == len(calls)
    for facts in within:
        assert facts["dtype"] == facts["ref_dtype"] == "bfloat16"
        assert facts["nan"] == 0 and facts["n_over_tol"] == 0, facts
    # and rounded as torch rounds (to nearest even): all but the odd element whose float32 value
    # sits on a rounding boundary is the very same bfloat16 (truncation misses about half)
    for facts in compare(runner, jobs, task, cases, tolerance=0.0):
        assert facts["n_over_tol"] <= 0.01 * math.prod(facts["shape"]), facts


# -- the conversions and reductions the patch takes over, in this process --

@pytest.fixture
def real_bfloat16():
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("runs kernels in Triton's interpreter")
    assert enable_real_bfloat16() == ""


@triton.jit
def _to_bfloat16(x_ptr, out_ptr, n, BLOCK: tl.constexpr, RTZ: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    if RTZ:
        y = x.to(tl.bfloat16, fp_downcast_rounding="rtz")
    else:
        y = x.to(tl.bfloat16)
    tl.store(out_ptr + offsets, y, mask=mask)


def _ties_and_specials():
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to nearest even gives 1; 1 + 3 * 2^-8 gives 1 + 2^-6
    return torch.tensor([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8 + 2 ** -20), 3.4e38,
                         float("inf"), float("nan"), 1e-40, 0.0])


def test_float32_to_bfloat16_rounds_to_nearest_even_like_torch(real_bfloat16):
    x = _ties_and_specials()
    out = torch.empty(x.numel(), dtype=torch.bfloat16)
    _to_bfloat16[(1,)](x, out, x.numel(), BLOCK=8, RTZ=False)
    numbers = ~x.isnan()  # a NaN's payload bits may differ
    assert torch.equal(out[numbers].view(torch.int16), x[numbers].to(torch.bfloat16).view(torch.int16))
    assert out[~numbers].isnan().all()


def test_round_toward_zero_truncates_and_keeps_nan(real_bfloat16):
    x = _ties_and_specials()
    out = torch.empty(x.numel(), dtype=torch.bfloat16)
    _to_bfloat16[(1,)](x, out, x.numel(), BLOCK=8, RTZ=True)
    truncated = (x.view(torch.int32) >> 16).to(torch.int16).view(torch.bfloat16)
    assert torch.equal(out[:5], truncated[:5]) and out[5].isnan() and torch.equal(out[6:], truncated[6:])


@triton.jit
def _bfloat16_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.store(out_ptr, tl.sum(x, axis=0))


def test_bfloat16_sum_adds_as_a_tree_not_a_running_sum(real_bfloat16):
    # a running bfloat16 sum of ones stops at 256 (256 + 1 rounds back to 256); a tree is exact
    x = torch.ones(4000, dtype=torch.bfloat16)
    out = torch.empty(1, dtype=torch.bfloat16)
    _bfloat16_sum[(1,)](x, out, x.numel(), BLOCK=4096)
    assert out.item() == 4000.0


@triton.jit
def _bfloat16_atomic_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.atomic_add(out_ptr + offsets % 4, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def test_bfloat16_atomic_add_counts_every_lane_that_shares_an_address(real_bfloat16):
    x = torch.full((100,), 0.5, dtype=torch.bfloat16)
    out = torch.zeros(4, dtype=torch.bfloat16)
    _bfloat16_atomic_add[(4,)](x, out, x.numel(), BLOCK=32)
    assert out.tolist() == [12.5] * 4


def test_an_interpreter_laid_out_otherwise_is_left_alone_with_the_reason():
    # stands in for a Triton whose store no longer takes the arguments assumed: the self-check
    # fails, every replacement is undone, and the reason comes back
    script = (
        "import os; os.environ['TRITON_INTERPRET'] = '1'\n"
        "from triton.runtime import interpreter\n"
        "from keval_runner.interpreter import interpreter_bfloat16 as patch\n"
        "before = interpreter._get_np_dtype, interpreter.InterpreterBuilder.create_masked_load\n"
        "patch._Patch.masked_store = lambda self, original: original\n"
        "print(patch.enable_real_bfloat16())\n"
        "assert (interpreter._get_np_dtype, interpreter.InterpreterBuilder.create_masked_load) == before\n")
    env = dict(os.environ, PYTHONPATH=RUNNER_DIR)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("bfloat16 left to the interpreter: self-check raised"), done.stdout

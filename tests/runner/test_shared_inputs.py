"""Inputs drawn once in the zygote and shared by the jobs of a slot (shared_inputs.py)."""

import os
import shutil

from runner_harness import TASK_DIR, of_type, only

COUNTING_MAKE_INPUTS = '''

def make_inputs(case, dtype, seed):
    import os
    with open(case["log"], "a") as log:
        log.write(f"{os.getpid()} {seed}\\n")
    if case.get("parallel"):  # a CPU op large enough for an OpenMP parallel region
        import torch
        torch.ones(1 << 22).exp().sum()
    return _original_make_inputs(case, dtype, seed)
'''


def counting_task(tmp_path):
    """The vec_add fixture whose make_inputs logs "pid seed" per call."""
    task_dir = tmp_path / "counting_task"
    shutil.copytree(TASK_DIR, task_dir)
    reference = task_dir / "reference.py"
    text = reference.read_text().replace("def make_inputs(", "def _original_make_inputs(")
    reference.write_text(text + COUNTING_MAKE_INPUTS)
    logs = tmp_path / "logs"
    logs.mkdir()
    os.chmod(logs, 0o777)  # a job under another uid could still log (so the test can fail)
    os.chmod(tmp_path, 0o755)
    return str(task_dir), str(logs / "calls.txt")


def planned(log, seeds=(11, 12)):
    return [{"name": "odd", "params": {"n": 1000, "log": log}, "dtype": "float32",
             "seeds": list(seeds), "atol": 1e-6, "rtol": 1e-6}]


def calls(log):
    with open(log) as f:
        return [tuple(int(v) for v in line.split()) for line in f]


def run_candidate_then_reference(runner, jobs, task_dir, log, shared):
    candidate = jobs.candidate("correct", cases=planned(log), task_dir=task_dir, determinism=True)
    reference = jobs.reference(cases=planned(log), task_dir=task_dir)
    candidate["shared_inputs"] = reference["shared_inputs"] = shared
    assert of_type(runner.run(candidate), "error") == []
    compares = of_type(runner.run(reference), "compare")
    assert [c["outputs"][0]["n_over_tol"] for c in compares] == [0, 0]


def test_shared_inputs_are_drawn_once_in_the_zygote_for_every_job(fresh_runner, jobs, tmp_path):
    task_dir, log = counting_task(tmp_path)
    run_candidate_then_reference(fresh_runner, jobs, task_dir, log, shared=True)
    # candidate (call + determinism re-run) and reference: each seed drawn once, by the zygote
    assert sorted(calls(log)) == [(fresh_runner.proc.pid, 11), (fresh_runner.proc.pid, 12)]


def test_without_shared_inputs_each_job_draws_its_own(fresh_runner, jobs, tmp_path):
    task_dir, log = counting_task(tmp_path)
    run_candidate_then_reference(fresh_runner, jobs, task_dir, log, shared=False)
    drawn = calls(log)
    assert fresh_runner.proc.pid not in {pid for pid, _ in drawn}
    assert sorted(seed for _, seed in drawn) == [11, 11, 12, 12]  # once per job and seed


def test_a_broken_make_inputs_is_left_to_the_job_to_report(fresh_runner, jobs, tmp_path):
    task_dir, log = counting_task(tmp_path)
    with open(os.path.join(task_dir, "reference.py"), "a") as f:
        f.write("\n\ndef make_inputs(case, dtype, seed):\n    raise ValueError('no inputs today')\n")
    candidate = jobs.candidate("correct", cases=planned(log), task_dir=task_dir)
    candidate["shared_inputs"] = True
    errors = of_type(fresh_runner.run(candidate), "error")
    assert errors and all(e["stage"] == "inputs" and "no inputs today" in e["message"] for e in errors)
    assert only([fresh_runner.run(jobs.candidate("correct"))[-1]], "exit")["code"] == 0  # zygote still serves


def test_a_job_forked_after_a_large_draw_does_not_hang(fresh_runner, jobs, tmp_path):
    """GNU OpenMP is not fork-safe: once the zygote's main thread has run a parallel region (a
    large CPU op), a forked child hangs in its first one. The zygote draws on a worker thread."""
    task_dir, log = counting_task(tmp_path)
    one_large = [{"name": "odd", "params": {"n": 1 << 20, "log": log, "parallel": True}, "dtype": "float32",
                  "seeds": [11], "atol": 1e-6, "rtol": 1e-6}]  # one set: no thread pool needed
    candidate = jobs.candidate("correct", cases=one_large, task_dir=task_dir)
    candidate["shared_inputs"] = True
    messages = fresh_runner.run(candidate)  # fails (no message within 30 s) if the child hangs
    assert only(messages, "call")["ok"] is True
    assert calls(log) == [(fresh_runner.proc.pid, 11)]


def test_the_zygote_never_draws_for_a_cuda_job():
    # CUDA jobs draw on the GPU themselves; a draw in the zygote would be on the wrong device
    # (and a make_inputs touching CUDA there would break every later fork)
    from keval_runner.inputs.shared_inputs import SharedInputs

    request = {"kind": "candidate", "device": "cpu", "shared_inputs": True, "task_dir": str(TASK_DIR),
               "cases": [{"name": "odd", "params": {"n": 1000}, "dtype": "float32", "seeds": [1]}]}
    assert SharedInputs().prebuild_for(request) == 1  # the same request in CPU mode: drawn
    request["device"] = "cuda"
    request["cases"][0]["seeds"] = [2]
    assert SharedInputs().prebuild_for(request) == 0


def test_a_guest_forgets_the_sets_and_task_modules_it_inherited():
    """A forked guest empties what the zygote drew and loaded before the fork: the memo held every
    seed's inputs (calls still to come), the task modules the reference. Sets that may lie in
    the heap are zeroed, so freeing them leaves no copy of their values behind."""
    import sys
    import types

    import torch

    from keval_runner.inputs import inputs, shared_inputs

    small = torch.full((1000,), 7.0)
    large = torch.full((9 * 1024 * 1024,), 5.0)  # 36 MiB: unmapped when freed, not zeroed
    key = ("task", "odd", "[]", "float32", 11, "cpu")
    sparse = torch.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,))  # no storage to zero: left as it is
    inputs._MEMO[key] = (small, large, sparse)
    name = shared_inputs.MODULE_PREFIX + "0"
    module = types.ModuleType(name)
    module.reference = lambda x: x
    sys.modules[name] = module
    try:
        inputs.forget_drawn_inputs()
        shared_inputs.forget_task_modules()
        assert len(inputs._MEMO) == 0
        assert torch.count_nonzero(small) == 0 and bool((large == 5.0).all())
        assert name not in sys.modules and not hasattr(module, "reference")
    finally:
        inputs._MEMO.pop(key, None)
        sys.modules.pop(name, None)

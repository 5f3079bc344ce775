"""`kernelbenchx compare-judges`: keval's verdicts next to KernelBenchX's own criterion, on the
fixture checkout (fixtures/kernelbenchx/) and fixtures/kernelbenchx_judges/predictions.jsonl,
KernelBenchX's {id, file, predict} lines written for these tests:
- correct: a Triton clipped ReLU (both judges pass);
- patches_torch_clamp: forgets the clip and replaces torch.clamp process-wide, so the reference,
  run after it in KernelBenchX's one process, computes the same wrong values;
- right_at_seed_0_only: right only while torch's seed is 0, the one seed KernelBenchX tries;
- named_as_its_function: a correct Momentum step named `momentum_step` (what the test calls) but
  neither `Momentum` nor `kernel_function`, which KernelBenchX's entry check demands;
- echoes_a_test: correct code followed by the separator and a test line that does not run
  (KernelBenchX keeps it, keval cuts at the separator);
- syntax_error, and a line for a task that does not exist.
"""
import json
import os
import sys

import pytest

from kb_harness import FIXTURES, REPO, adapter, keval, verdicts

from keval_adapters.common.peer_file import SEPARATOR  # noqa: E402 (kb_harness puts runner/ on sys.path)
from keval_adapters.kernelbenchx import criterion, judges  # noqa: E402
from keval_adapters.kernelbenchx.submissions import clear_code  # noqa: E402

CHECKOUT = FIXTURES / "kernelbenchx"
PREDICTIONS = FIXTURES / "kernelbenchx_judges" / "predictions.jsonl"


@pytest.fixture(scope="module")
def judged(env, shared):
    out = os.path.join(shared, "run")
    keval(env, "run", "--suite", f"kernelbenchx:{CHECKOUT}", "--submissions", f"kernelbenchx:{PREDICTIONS}",
          "--out", out, "--device", "cpu", "--no-timing", "--quiet")
    report_path = os.path.join(shared, "judges.json")
    proc = adapter(env, "kernelbenchx", "compare-judges", "--results", os.path.join(out, "results.jsonl"),
                   "--source", PREDICTIONS, "--suite", CHECKOUT, "--out", report_path, "--device", "cpu",
                   "--timeout", "120")
    with open(report_path) as f:
        report = json.load(f)
    return verdicts(out), report, proc.stdout


# --- keval and KernelBenchX on the fixture ---------------------------------------------------


def test_keval_verdicts_on_the_fixture(judged):
    rows, _, _ = judged
    got = {k: r["verdict"] for k, r in rows.items()}
    # patches_torch_clamp rebinds torch.clamp process-wide: the guest's snapshot of torch's names
    assert got == {"correct": "pass", "patches_torch_clamp": "tampering", "right_at_seed_0_only": "mismatch",
                   "named_as_its_function": "pass", "echoes_a_test": "pass", "syntax_error": "compile_error",
                   "unknown_task": "bad_submission"}


def test_same_process_and_single_seed_pass_what_keval_fails(judged):
    _, report, stdout = judged
    items = {item["id"]: item for item in report["items"]}
    assert items["correct"]["exec"] == items["correct"]["call"] == "agree_pass"
    for wrong in ("patches_torch_clamp", "right_at_seed_0_only"):
        assert items[wrong]["kernelbenchx_exec"] is True, items[wrong]
        assert items[wrong]["exec"] == "keval_fail_kernelbenchx_pass"
    assert sorted(e["id"] for e in report["disagreements"]["exec"]["keval_fail_kernelbenchx_pass"]) == [
        "patches_torch_clamp", "right_at_seed_0_only"]
    assert "keval fail / KernelBenchX pass 2" in stdout


def test_entry_check_and_echoed_test_fail_kernelbenchx_call_only(judged):
    _, report, _ = judged
    items = {item["id"]: item for item in report["items"]}
    named = items["named_as_its_function"]
    assert (named["kernelbenchx_call"], named["call"]) == (False, "keval_pass_kernelbenchx_fail")
    assert "need `def Momentum(...)` or `def kernel_function(...)`" in named["kernelbenchx_error"]
    echo = items["echoes_a_test"]
    assert echo["call"] == "keval_pass_kernelbenchx_fail" and "NameError" in echo["kernelbenchx_error"]
    assert items["syntax_error"]["exec"] == items["syntax_error"]["call"] == "agree_fail"


def test_report_counts(judged):
    _, report, stdout = judged
    assert (report["n_lines"], report["unmatched"], report["not_in_results"], report["n_compared"]) == (7, 1, 0, 6)
    assert report["exec"] == {"agree_pass": 1, "agree_fail": 1, "keval_fail_kernelbenchx_pass": 2,
                              "keval_pass_kernelbenchx_fail": 2}
    assert report["call"] == {"agree_pass": 3, "agree_fail": 1, "keval_pass_kernelbenchx_fail": 2}
    assert report["by_verdict"]["mismatch"] == {"n": 1, "kernelbenchx_call_pass": 1, "kernelbenchx_exec_pass": 1}
    assert report["by_verdict"]["tampering"] == {"n": 1, "kernelbenchx_call_pass": 1, "kernelbenchx_exec_pass": 1}
    assert "exec: agree 2 (pass 1, fail 1)" in stdout


# --- KernelBenchX's rules, one by one --------------------------------------------------------


def test_tolerances_are_kernelbenchx_assert_close_by_dtype():
    import torch

    ones = torch.ones(8)
    criterion.compare_values(ones.half() + 0.0078125, ones.half())  # within 5e-3 + 5e-3 * 1
    with pytest.raises(AssertionError):
        criterion.compare_values(ones + 1e-4, ones)  # float32: 1e-5 + 1e-5 * 1
    criterion.compare_values(ones + 1e-6, ones)
    with pytest.raises(AssertionError):
        criterion.compare_values(torch.arange(3) + 1, torch.arange(3))  # integers exactly
    with pytest.raises(AssertionError, match="dtype mismatch"):
        criterion.compare_values(ones.double(), ones)
    criterion.compare_values({"b": [ones], "a": 1.0}, {"a": 1.0 + 1e-7, "b": (ones,)})  # lists and tuples alike
    with pytest.raises(AssertionError, match="keys mismatch"):
        criterion.compare_values({"a": ones}, {"b": ones})


def test_quantised_tasks_are_judged_on_aggregates():
    import torch

    ref = torch.linspace(1, 2, 100)
    near = ref * 1.04  # 4 % everywhere: far outside assert_close, inside l1_relative 0.05
    thresholds = {"cosine_sim": 0.95, "l1_relative": 0.05, "rmse": 0.1}
    criterion.compare_values(near, ref, threshold=thresholds)
    with pytest.raises(AssertionError, match="Precision threshold not met"):
        criterion.compare_values(ref * 1.06, ref, threshold=thresholds)
    with pytest.raises(AssertionError):
        criterion.compare_values(near, ref)


def test_entry_check_wants_the_stem_or_kernel_function_at_top_level():
    assert criterion.exports_kernel("def SGD(p):\n    pass\n", "SGD")[0]
    assert criterion.exports_kernel("def sgd_step(p):\n    pass\nSGD = sgd_step\n", "SGD")[0]
    assert criterion.exports_kernel("kernel_function: object = None\n", "SGD")[0]
    assert not criterion.exports_kernel("def sgd_step(p):\n    pass\n", "SGD")[0]
    assert not criterion.exports_kernel("class K:\n    def SGD(self):\n        pass\n", "SGD")[0]
    assert not criterion.exports_kernel("   ", "SGD")[0]


def test_kernelbenchx_keeps_what_follows_the_separator_keval_cuts_it():
    predict = "```python\ndef f():\n    pass\n" + SEPARATOR + "\nboom()\n```<|im_end|>"
    assert criterion.kernelbenchx_code(predict).endswith("boom()")
    assert "boom" not in clear_code(predict)


def test_a_line_without_id_is_found_by_its_origin():
    record = {"id": "predictions:3", "task": "t", "path": str(PREDICTIONS), "line": 3}
    results = {"0a1b2c": {"id": "0a1b2c", "origin": f"{PREDICTIONS}:3", "verdict": "pass"},
               "other": {"id": "other", "origin": f"{PREDICTIONS}:4", "verdict": "mismatch"}}
    assert judges.result_for(record, results, judges.origins(results))["id"] == "0a1b2c"
    assert judges.result_for(dict(record, line=9), results, judges.origins(results)) is None


def test_cpu_scripts_see_the_test_part_on_the_cpu(tmp_path):
    """The runtime's rewrite reaches the test part only: 'cuda' there becomes the CPU."""
    script = tmp_path / "s.py"
    script.write_text("code_device = 'cuda'\n" + SEPARATOR + "\ntest_device = 'cuda'\nimport sys\nargv0 = sys.argv[0]\n")
    scope = judges.run_script(str(script), cpu=True)
    assert (scope["code_device"], scope["test_device"], scope["argv0"]) == ("cuda", "cpu", str(script))
    assert scope["__name__"] == "__main__" and sys.modules["__main__"].__name__ == "__main__"


def test_without_a_checkout_it_asks_for_suite(env):
    proc = adapter(env, "kernelbenchx", "compare-judges", "--results", REPO / "nothing.jsonl", "--source",
                   PREDICTIONS, "--out", "/dev/null", check=False)
    assert proc.returncode == 1 and "(give --suite CHECKOUT)" in proc.stderr.strip().splitlines()[-1]

"""TritonBench-G/T adapter: the real `keval` binary on a small fixture checkout, CPU mode.

fixture/ is a TritonBench checkout in miniature, written for these tests in TritonBench's format:
two G files (a Triton add with module constants and a helper class; a Triton row softmax), one T
file (PyTorch), the dataset JSON entries, one perf file, and an LLM_generated JSONL of 4 lines:
1 correct, 2 runs but returns wrong values (prints nothing, so TritonBench's stdout criterion
passes it), 3 a syntax error, 4 an instruction that matches no task.

    KEVAL_PYTHON=/opt/keval-venv/bin/python /opt/keval-venv/bin/python -m pytest -q tests/adapters/tritonbench
"""

import ast
import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "runner"))

from keval_adapters.common.peer_file import SEPARATOR  # noqa: E402
from keval_adapters.tritonbench import runtime, submissions, tasks, test_part  # noqa: E402

KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
FIXTURE = pathlib.Path(__file__).resolve().parent / "fixture"
JSONL = FIXTURE / "LLM_generated" / "Bench_G_general_purpose" / "output_fixture-model_comp.jsonl"
STEM = "output_fixture-model_comp"
PYTHON = os.environ.get("KEVAL_PYTHON") or (
    "/opt/keval-venv/bin/python" if os.path.exists("/opt/keval-venv/bin/python") else sys.executable)


@pytest.fixture(scope="session")
def env(tmp_path_factory):
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    env["KEVAL_PYTHON"] = PYTHON
    env["KEVAL_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    return env


def keval(env, *args, check=True):
    proc = subprocess.run([KEVAL, *map(str, args)], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"keval {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


def adapter(env, *args):
    runner_env = dict(env, PYTHONPATH=str(REPO / "runner"))
    return subprocess.run([PYTHON, "-m", "keval_adapters", *map(str, args)], cwd=REPO,
                          env=runner_env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="session")
def run(env, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    keval(env, "run", "--suite", f"tritonbench-g:{FIXTURE}", "--submissions", f"tritonbench-g:{JSONL}",
          "--out", out, "--device", "cpu", "--no-timing", "--jobs", "2")
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return out, {row["id"]: row for row in rows}


@pytest.fixture(scope="session")
def adapted_g(tmp_path_factory):
    out = tmp_path_factory.mktemp("adapted") / "g"
    tasks.adapt_suite(str(FIXTURE), str(out), "G", set())
    return out


# --- keval on the fixture --------------------------------------------------------------------


def test_run_judges_each_line(run):
    _, rows = run
    assert rows[f"{STEM}:1"]["task"] == "add_const" and rows[f"{STEM}:1"]["verdict"] == "pass"
    assert rows[f"{STEM}:2"]["task"] == "row_softmax" and rows[f"{STEM}:2"]["verdict"] == "mismatch"
    assert rows[f"{STEM}:3"]["verdict"] == "compile_error"
    unmatched = rows[f"{STEM}:4"]
    assert unmatched["verdict"] == "bad_submission"
    assert "matches no tritonbench-g task" in unmatched["reasons"][0]


def test_validate_runs_every_g_reference_as_a_submission(env):
    proc = keval(env, "validate", "--suite", f"tritonbench-g:{FIXTURE}", "--device", "cpu", "--jobs", "2")
    assert "every golden kernel passes (2 tasks" in proc.stdout


def test_t_references_are_pytorch_so_validate_needs_any_code(env):
    strict = keval(env, "validate", "--suite", f"tritonbench-t:{FIXTURE}", "--device", "cpu", check=False)
    assert strict.returncode == 1 and "no_kernel" in strict.stdout
    lenient = keval(env, "validate", "--suite", f"tritonbench-t:{FIXTURE}:any-code", "--device", "cpu")
    assert "every golden kernel passes (1 tasks" in lenient.stdout


def test_compare_judges_reports_the_wrong_values_disagreement(env, run, tmp_path):
    out, _ = run
    report_path = tmp_path / "judges.json"
    proc = keval(env, "compare-judges", "--suite", f"tritonbench-g:{FIXTURE}", "--submissions",
                 f"tritonbench-g:{JSONL}", "--results", out / "results.jsonl", "--out", report_path,
                 "--device", "cpu", "--timeout", "120")
    report = json.loads(report_path.read_text())
    items = {item["id"]: item for item in report["items"]}
    assert report["unmatched"] == 1 and report["n_compared"] == 3
    assert items[f"{STEM}:1"]["exec"] == "agree_pass"
    wrong = items[f"{STEM}:2"]
    assert wrong["tritonbench_exec"] is True and wrong["keval_verdict"] == "mismatch"
    assert wrong["exec"] == "keval_fail_tritonbench_pass"
    assert items[f"{STEM}:3"]["tritonbench_call"] is False and items[f"{STEM}:3"]["call"] == "agree_fail"
    assert report["exec"] == {"agree_pass": 1, "agree_fail": 1, "keval_fail_tritonbench_pass": 1}
    assert [e["id"] for e in report["disagreements"]["exec"]["keval_fail_tritonbench_pass"]] == [f"{STEM}:2"]
    assert "keval fail / TritonBench pass 1" in proc.stdout
    assert report["gold_failures"] == {}  # the fixture's task files run as scripts
    assert "TritonBench's own task files run as scripts: 0 fail" in proc.stdout


def test_compare_judges_refuses_mixed_peers_and_missing_files_in_one_line(env, run, tmp_path):
    out, _ = run
    mixed = keval(env, "compare-judges", "--suite", f"kernelbenchx:{FIXTURE}", "--submissions",
                  f"tritonbench-g:{JSONL}", "--results", out / "results.jsonl", "--out", tmp_path / "r.json",
                  check=False)
    assert mixed.returncode == 1 and "--submissions is tritonbench-g but --suite is kernelbenchx" in mixed.stderr
    missing = keval(env, "compare-judges", "--suite", f"tritonbench-g:{FIXTURE}", "--submissions",
                    f"tritonbench-g:{JSONL}", "--results", tmp_path / "none.jsonl", "--out", tmp_path / "r.json",
                    check=False)
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "--results" in missing.stderr


# --- the generated task folders --------------------------------------------------------------


def test_golden_is_the_whole_reference_part(adapted_g):
    original = (FIXTURE / "data" / "TritonBench_G_v1" / "add_const.py").read_text()
    golden = (adapted_g / "add_const" / "golden.py").read_text()
    assert golden == original.split(SEPARATOR)[0]
    names = test_part.defined_names(ast.parse(golden))
    assert {"BLOCK_SIZE", "OFFSET", "AddLauncher", "add_offset_kernel", "add_offset", "_launcher"} <= names


def test_task_toml_fields_and_performance_cases(adapted_g):
    toml = (adapted_g / "add_const" / "task.toml").read_text()
    assert 'track = "real"' in toml and "difficulty = 1" in toml and 'entry = "tritonbench_test"' in toml
    assert 'adapter = "tritonbench"' in toml  # its evaluation key follows this adapter's code
    assert "Write a Triton kernel" not in toml  # the comp instruction comes first
    assert "The wrapper `add_offset(x, y)` allocates the output" in toml
    # perf inputs 2^10..2^15 elements: the middle (index 3) and the largest (index 5), sized from
    # the perf file's own get_gbps / get_tflops on shapes alone
    assert "params = { bench = 3, flops_n = 16384, bytes_n = 98304 }" in toml
    assert "params = { bench = 5, flops_n = 65536, bytes_n = 393216 }" in toml
    assert "no performance case" in (adapted_g / "row_softmax" / "task.toml").read_text()


def test_test_part_loses_its_module_level_call(adapted_g):
    test = (adapted_g / "add_const" / "tritonbench_test.py").read_text()
    assert "def test_add_offset" in test and "result_gold" not in test


def test_a_test_part_that_redefines_the_operator_loses_that_definition():
    test = "import torch\n\n@torch.no_grad()\ndef add(x, y):\n    return x + y\n\ndef test_add():\n    return add(1, 2)\n\nr = test_add()\n"
    source, name, notes, imports = test_part.prepare_test(test, {"add"})
    assert name == "test_add" and "def add" not in source and "@torch.no_grad" not in source
    assert source.count("\n") == test.count("\n") and notes and imports == "import torch"


def test_submission_lines_map_by_exact_text_only(tmp_path):
    records = submissions.match_submissions(str(JSONL), "G")
    assert [(r["id"], r["task"], r["how"]) for r in records] == [
        (f"{STEM}:1", "add_const", "instruction"), (f"{STEM}:2", "row_softmax", "instruction"),
        (f"{STEM}:3", "add_const", "instruction"), (f"{STEM}:4", None, None)]
    # a prefix of a real instruction (what substring matching would accept) matches nothing
    truncated = tmp_path / "truncated.jsonl"
    line = json.loads(JSONL.read_text().splitlines()[0])
    line["instruction"] = line["instruction"][:-80]
    truncated.write_text(json.dumps(line) + "\n")
    record = submissions.match_submissions(str(truncated), "G", str(FIXTURE))[0]
    assert (record["task"], record["how"]) == ("add_const", "label")  # its label is the exact reference
    line["label"] = ""
    truncated.write_text(json.dumps(line) + "\n")
    assert submissions.match_submissions(str(truncated), "G", str(FIXTURE))[0]["task"] is None


# --- runtime glue ----------------------------------------------------------------------------


def test_flatten_is_deterministic_and_typed():
    import torch

    value = {"b": 1.5, "a": (torch.ones(2), None), "c": [True, "x", 3]}
    out = runtime._keval_tb_flatten(value)
    assert [t.dtype for t in out] == [torch.float32, torch.uint8, torch.float64, torch.bool, torch.uint8, torch.int64]
    assert out[1].numel() == 0 and bytes(out[4].tolist()) == b"x"


def test_performance_case_runs_through_the_runner(adapted_g, tmp_path):
    """A performance case is not small (never run by keval on the CPU): drive the real runner
    with it directly, golden + glue as the candidate, every check on, then the reference job."""
    task = adapted_g / "add_const"
    code = tmp_path / "submission.py"
    code.write_text((task / "golden.py").read_text() + "\n\n" + (task / "submission_suffix.py").read_text())
    case = {"name": "perf3", "params": {"bench": 3, "flops_n": 0, "bytes_n": 0}, "dtype": "float32",
            "seeds": [5, 6], "atol": 1e-2, "rtol": 1e-2}
    env = dict(os.environ, PYTHONPATH=str(REPO / "runner"), TRITON_INTERPRET="1")
    proc = subprocess.Popen([PYTHON, "-m", "keval_runner"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=env, text=True)
    assert json.loads(proc.stdout.readline())["type"] == "ready"
    (tmp_path / "out").mkdir()

    def job(kind):
        (tmp_path / kind).mkdir()
        request = {"op": "run", "job": kind, "kind": kind, "device": "cpu", "task_dir": str(task),
                   "entry": "tritonbench_test", "outputs_dir": str(tmp_path / "out"),
                   "work_dir": str(tmp_path / kind), "cases": [case], "inplace": True,
                   "check_determinism": True, "code_file": str(code),
                   "checks": {"guard_bytes": 256, "poison_outputs": True, "tamper": True}}
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        messages = []
        for line in proc.stdout:
            messages.append(json.loads(line))
            if messages[-1]["type"] == "exit":
                return messages
        raise AssertionError("the runner ended")

    try:
        calls = [m for m in job("candidate") if m["type"] in ("call", "error", "tampering")]
        compares = [m for m in job("reference") if m["type"] in ("compare", "error")]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    assert [c["type"] for c in calls] == ["call", "call"], calls
    assert all(c["ok"] and c["kernels"] == ["add_offset_kernel"] and not c["output_is_input"] for c in calls)
    assert [c["type"] for c in compares] == ["compare", "compare"], compares
    for compare in compares:
        (output,) = compare["outputs"]
        assert output["shape"] == [8192] and output["n_over_tol"] == 0


def test_reference_defined_check_is_on_and_performance_calls_are_seeded(adapted_g, monkeypatch):
    """The reference job checks which output elements the reference leaves undefined, and every
    performance call seeds the RNGs (a dropout reference gives the same values in both runs)."""
    import torch

    from keval_adapters.common.module_file import load_module

    task = adapted_g / "add_const"
    assert "check_reference_defined = true" in (task / "task.toml").read_text()
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    reference = load_module(str(task / "reference.py"), "tb_test_ref_add_const_seeded")
    inputs = reference.make_inputs({"name": "perf3", "bench": 3}, "float32", 5)
    torch.manual_seed(123)
    reference.reference(*inputs)
    assert torch.initial_seed() == 5

    # seeded as torch.manual_seed seeds, without its formatted stack for each idle backend (XPU,
    # MTIA; CUDA here): 0.4 ms of host work in every timed call
    import traceback
    formatted = []
    format_stack = traceback.format_stack
    monkeypatch.setattr(traceback, "format_stack", lambda *a, **k: formatted.append(1) or format_stack(*a, **k))
    reference.reference(*inputs)
    assert formatted == []


def test_compare_judges_deadline_skips_what_it_could_not_run_and_still_reports(env, run, tmp_path):
    out, _ = run
    report_path = tmp_path / "judges.json"
    proc = keval(env, "compare-judges", "--suite", f"tritonbench-g:{FIXTURE}", "--submissions",
                 f"tritonbench-g:{JSONL}", "--results", out / "results.jsonl", "--out", report_path,
                 "--device", "cpu", "--timeout", "120", "--deadline", "1")
    report = json.loads(report_path.read_text())  # written although nothing finished in 1 s
    assert report["skipped_at_deadline"] == 3 and report["n_compared"] == 0 and report["items"] == []
    assert "3 skipped at --deadline" in proc.stdout


def test_a_script_is_skipped_once_the_deadline_passes_and_cut_when_it_runs_into_it(tmp_path):
    from keval_adapters.common import judge_process
    try:
        judge_process.set_deadline(0.5)
        cut = judge_process.run_script(["sleep", "5"], str(tmp_path), dict(os.environ), 60)
        assert cut["skipped"] is True and "cut" in cut["stderr"]
        late = judge_process.run_script(["true"], str(tmp_path), dict(os.environ), 60)
        assert late["skipped"] is True and "not run" in late["stderr"]
        judge_process.set_deadline(0)
        done = judge_process.run_script(["true"], str(tmp_path), dict(os.environ), 60)
        assert done["rc"] == 0 and "skipped" not in done
    finally:
        judge_process.set_deadline(0)


BROADCAST_PERF = '''
import torch

class performance_metrics(Performance_Metrics):
    def __init__(self, dtype=None, is_backward=False, **kwargs):
        super().__init__("outer_add", dtype=dtype, is_backward=is_backward, **kwargs)

    def get_input_tensors(self):
        self.input_tensors = []
        for exp in range(10, 18):
            size = 2 ** exp
            self.input_tensors.append((torch.rand((1, size)), torch.rand((size, 1))))

    def call_op(self, input_tensor):
        return outer_add(*input_tensor)

    def get_gbps(self, input_tensor, runtime):
        return 0.0

    def get_tflops(self, input_tensor, runtime):
        return 0.0
'''


def test_a_pytorch_references_outputs_are_sized_too_so_no_case_saves_a_huge_broadcast():
    """TritonBench-T's broadcast_tensors: 1 MiB of inputs, 64 GiB of (expanded) output saved whole."""
    from keval_adapters.tritonbench import perf
    spec = perf.PerfSpec(BROADCAST_PERF, {"outer_add": "outer_add"}, "outer_add_perf.py")
    inputs_only = perf.size_all({"outer_add": spec}, python=sys.executable)["outer_add"]["inputs"]
    assert [item["output_bytes"] for item in inputs_only] == [None] * 8  # a Triton reference: inputs only
    spec.reference = "import torch\n\ndef outer_add(x, y):\n    return torch.broadcast_tensors(x, y)\n"
    sized = perf.size_all({"outer_add": spec}, python=sys.executable)["outer_add"]["inputs"]
    assert [item["output_bytes"] for item in sized] == [2 * 4 * 4 ** e for e in range(10, 18)]
    spec.choose_cases({"inputs": sized})
    # outputs 8 MiB .. 128 GiB: inputs 0-3 fit 1 GiB (input 4: 2 GiB); the middle and the largest
    assert [case["name"] for case in spec.cases] == ["perf2_1x4096", "perf3_1x8192"]


def test_inputs_are_sized_without_the_reference_even_when_it_sizes_the_outputs():
    """A case builds its inputs without the task's functions: a perf file that calls the operator
    while building them gets no case (two T tasks failed on the H200 with 'name is not defined')."""
    from keval_adapters.tritonbench import perf
    source = BROADCAST_PERF.replace("self.input_tensors.append((torch.rand((1, size)), torch.rand((size, 1))))",
                                    "self.input_tensors.append(outer_add(torch.rand((1, size)), torch.rand((size, 1))))")
    spec = perf.PerfSpec(source, {"outer_add": "outer_add"}, "outer_add_perf.py")
    spec.reference = "import torch\n\ndef outer_add(x, y):\n    return torch.broadcast_tensors(x, y)\n"
    sizing = perf.size_all({"outer_add": spec}, python=sys.executable)["outer_add"]
    assert "not loaded" in sizing["error"]
    spec.choose_cases(sizing)
    assert spec.cases == [] and "sizing its inputs failed" in spec.notes[0]


def test_preprocessing_check_finds_the_gold_files_tritonbenchs_own_g_stage_breaks(tmp_path):
    """add_const.py uses module constants and a helper bound at module level, which TritonBench's
    G pre-processing (imports and defs only) drops; row_softmax.py uses none."""
    report = tmp_path / "pp.json"
    proc = subprocess.run([sys.executable, "-m", "keval_adapters", "tritonbench-g", "preprocessing-check",
                           "--source", str(FIXTURE), "--out", str(report)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO / "runner")), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(report.read_text())["broken"] == {"add_const.py": ["BLOCK_SIZE", "OFFSET", "_launcher"]}
    assert "1 of 2 gold files lose names" in proc.stdout


def test_lost_names_ignores_what_the_test_or_builtins_bind():
    from keval_adapters.tritonbench.preprocessing import lost_names
    reference = "import torch\nSCALE = 2\nlen = 3\nclass Helper:\n    pass\ndef f(x):\n    return x * SCALE\n"
    assert lost_names(reference, "def test_f():\n    return f(1)\n") == ["SCALE"]
    assert lost_names(reference, "SCALE = 2\ndef test_f():\n    return f(1), Helper, len\n") == ["Helper"]


def test_a_timed_run_times_the_candidate_against_the_golden_with_its_glue(env, tmp_path):
    """The golden baseline is TritonBench's own code: the timing job runs the task's glue after
    it, as after a submission, or it has no entry and every passing candidate crashes there."""
    adapted = tmp_path / "t"
    tasks.adapt_suite(str(FIXTURE), str(adapted), "T", set())
    code = (adapted / "scaled_relu" / "golden.py").read_text()
    assert "def tritonbench_test" not in code  # the glue is not in the golden itself
    submissions_file = tmp_path / "subs.jsonl"
    submissions_file.write_text(json.dumps({"task": "scaled_relu", "code": code, "id": "timed"}) + "\n")
    out = tmp_path / "out"
    keval(env, "run", "--suite", f"tritonbench-t:{FIXTURE}:any-code", "--submissions", submissions_file,
          "--out", out, "--device", "cpu", "--jobs", "2")
    row = json.loads((out / "results.jsonl").read_text().splitlines()[0])
    assert row["verdict"] == "pass", row["reasons"]
    assert row["speedup"] is not None and row["speedup"] > 0

"""A/A on the CPU (issue 19): each suite's baseline submitted as its own candidate must time
alike on both sides. Wall-clock timing on a shared CI machine is noisy, so the bound is loose
(35%), but glue that runs on one side only, here a sleep longer than the call, must break even
a 25% bound."""
import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
BOUND = "0.25"
SAMPLES = ["--max-samples", "20", "--max-seconds", "5"]
# The first ten or so samples of each side run slower as the process warms (there is no
# warm-up on the CPU), so at 20 samples a median came out 0.69x (KernelBenchX's fixture, calls
# under 1 ms of Python) or 1.29x (vector_add, in a fresh-clone CI run) now and then; at 60 it
# stayed within 0.90x-1.02x in five runs here. The A/A checks take 60 samples and a looser
# bound; the glue check below (a 20 ms sleep a call, several times the call) keeps the tight one.
AA_SAMPLES = ["--max-samples", "60", "--max-seconds", "10"]
AA_BOUND = "0.35"
KERNELBENCHX_FIXTURE = REPO / "tests" / "adapters" / "kernelbench" / "fixtures" / "kernelbenchx"


def aa_bias(*args):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run([sys.executable, str(REPO / "bench" / "aa_bias.py"), *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=900)


def test_keval_suite_goldens_time_alike_against_themselves(tmp_path):
    proc = aa_bias("--suite", "suites/keval", "--tasks", "vector_add", "--device", "cpu",
                   "--out", tmp_path / "aa", "--bound", AA_BOUND, *AA_SAMPLES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "overall: 9 cases of 1 tasks" in proc.stdout, proc.stdout


def test_kernelbenchx_references_time_alike_against_themselves(tmp_path):
    proc = aa_bias("--suite", f"kernelbenchx:{KERNELBENCHX_FIXTURE}:any-code", "--device", "cpu",
                   "--out", tmp_path / "aa", "--bound", AA_BOUND, *AA_SAMPLES)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "overall: 3 cases of 3 tasks" in proc.stdout, proc.stdout


def test_glue_on_the_candidate_side_only_fails_the_check(tmp_path):
    """The golden with a sleep before its call: what one-sided harness glue would look like."""
    golden = (REPO / "suites" / "keval" / "vector_add" / "golden.py").read_text()
    glued = golden + ("\n\nimport time as _time\n_timed = vector_add\n\n"
                      "def vector_add(*args):\n    _time.sleep(0.02)\n    return _timed(*args)\n")
    submissions = tmp_path / "glued.jsonl"
    submissions.write_text(json.dumps({"task": "vector_add", "id": "aa:vector_add", "code": glued}) + "\n")
    out = tmp_path / "aa"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    run = subprocess.run([KEVAL, "run", "--suite", "suites/keval", "--submissions", submissions, "--out", out,
                          "--device", "cpu", "--baseline", "golden", "--quiet", *SAMPLES], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    proc = aa_bias("--from", out, "--bound", BOUND)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "median off 1.00x by more than 25%" in proc.stderr


def test_interval_coverage_counts_the_passing_cases_whose_interval_holds_one(tmp_path):
    sys.path.insert(0, str(REPO / "bench"))
    import aa_bias as bench

    results = tmp_path / "results.jsonl"
    rows = [{"verdict": "pass", "cases": [{"speedup_ci": [0.98, 1.03]}, {"speedup_ci": [1.01, 1.05]}]},
            {"verdict": "pass", "cases": [{"speedup_ci": None}, {"speedup_ci": [0.9, 1.0]}]},
            {"verdict": "mismatch", "cases": [{"speedup_ci": [0.5, 2.0]}]}]
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert bench.interval_coverage(results) == (2, 3)


def test_a_further_baseline_is_set_against_the_first(tmp_path):
    """--baseline golden,eager: eager's time over the golden's, case by case (both in the warden)."""
    sys.path.insert(0, str(REPO / "bench"))
    import aa_bias as bench

    results = tmp_path / "results.jsonl"
    rows = [{"verdict": "pass", "task": "t", "cases": [
                {"time_ms": 1.1, "ref_time_ms": 1.0, "baseline_ms": {"eager": 2.0}},
                {"time_ms": 0.5, "ref_time_ms": 0.5, "baseline_ms": {}}]},
            {"verdict": "mismatch", "task": "u", "cases": [{"time_ms": 1.0, "ref_time_ms": 1.0,
                                                            "baseline_ms": {"compile": 3.0}}]}]
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert bench.other_baselines(results) == ["compile", "eager"]
    assert bench.timed_cases(results) == [("t", 1.0, 1.1), ("t", 0.5, 1.0)]
    assert bench.timed_cases(results, "eager") == [("t", 1.0, 2.0)]
    assert bench.timed_cases(results, "compile") == []  # its submission failed

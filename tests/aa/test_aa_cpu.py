"""A/A on the CPU (issue 19): each suite's baseline submitted as its own candidate must time
alike on both sides. Wall-clock timing on a shared CI machine is noisy, so the bound is loose
(35%) and a check fails only when two runs in a row are off by more; glue that runs on one
side only, here a sleep longer than the call, must fail that same check."""
import json
import os
import pathlib
import subprocess
import sys
import tomllib

REPO = pathlib.Path(__file__).resolve().parents[2]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
SAMPLES = ["--max-samples", "20", "--max-seconds", "5"]
# The first ten or so samples of each side run slower as the process warms (there is no
# warm-up on the CPU), so at 20 samples a median came out 0.69x (KernelBenchX's fixture, calls
# under 1 ms of Python) or 1.29x (vector_add, in a fresh-clone CI run) now and then; at 60 it
# stayed within 0.90x-1.02x in five runs here. The A/A checks take 60 samples and a loose
# bound; the glue check below (a 20 ms sleep a call, several times the call) takes 20 samples
# and the same bound.
AA_SAMPLES = ["--max-samples", "60", "--max-seconds", "10"]
AA_BOUND = "0.35"
OFF = "aa_bias: median off 1.00x by more than 35%"
KERNELBENCHX_FIXTURE = REPO / "tests" / "adapters" / "kernelbench" / "fixtures" / "kernelbenchx"


def aa_bias(*args):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run([sys.executable, str(REPO / "bench" / "aa_bias.py"), *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=900)


def aa_check(check_once):
    """The A/A check as CI runs it: `check_once(attempt)` (an aa_bias run with AA_BOUND) is off
    twice in a row. Noise of a loaded machine put one run off now and then (1.29x once, in CI);
    twice in a row it rarely does, while a bias of the harness is there in every run. Returns
    the attempts' processes; the check passed when the last one exited 0."""
    attempts = [check_once(0)]
    if attempts[0].returncode != 0:
        assert OFF in attempts[0].stderr, attempts[0].stdout + attempts[0].stderr  # a failure, not noise
        attempts.append(check_once(1))
    return attempts


def output_of(attempts):
    return "\n".join(f"attempt {i}:\n{p.stdout}{p.stderr}" for i, p in enumerate(attempts))


def test_keval_suite_goldens_time_alike_against_themselves(tmp_path):
    attempts = aa_check(lambda k: aa_bias("--suite", "suites/keval", "--tasks", "vector_add", "--device", "cpu",
                                          "--out", tmp_path / f"aa{k}", "--bound", AA_BOUND, *AA_SAMPLES))
    assert attempts[-1].returncode == 0, output_of(attempts)
    task = tomllib.loads((REPO / "suites" / "keval" / "vector_add" / "task.toml").read_text())
    timed = sum(1 for case in task["cases"] if case.get("small")) * len(task["dtypes"])  # CPU runs time small cases
    assert f"overall: {timed} cases of 1 tasks" in attempts[-1].stdout, output_of(attempts)


def test_kernelbenchx_references_time_alike_against_themselves(tmp_path):
    attempts = aa_check(lambda k: aa_bias("--suite", f"kernelbenchx:{KERNELBENCHX_FIXTURE}:any-code", "--device",
                                          "cpu", "--out", tmp_path / f"aa{k}", "--bound", AA_BOUND, *AA_SAMPLES))
    assert attempts[-1].returncode == 0, output_of(attempts)
    assert "overall: 3 cases of 3 tasks" in attempts[-1].stdout, output_of(attempts)


def test_glue_on_the_candidate_side_only_fails_the_check(tmp_path):
    """The golden with a sleep before its call: what one-sided harness glue would look like. It
    must fail the very check the A/A tests pass: the same bound, off in both attempts."""
    golden = (REPO / "suites" / "keval" / "vector_add" / "golden.py").read_text()
    glued = golden + ("\n\nimport time as _time\n_timed = vector_add\n\n"
                      "def vector_add(*args):\n    _time.sleep(0.02)\n    return _timed(*args)\n")
    submissions = tmp_path / "glued.jsonl"
    submissions.write_text(json.dumps({"task": "vector_add", "id": "aa:vector_add", "code": glued}) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}

    def check_once(attempt):
        out = tmp_path / f"aa{attempt}"
        run = subprocess.run([KEVAL, "run", "--suite", "suites/keval", "--submissions", submissions, "--out", out,
                              "--device", "cpu", "--baseline", "golden", "--quiet", *SAMPLES], cwd=REPO, env=env,
                             capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stdout + run.stderr
        return aa_bias("--from", out, "--bound", AA_BOUND)

    attempts = aa_check(check_once)
    assert len(attempts) == 2 and all(p.returncode == 1 for p in attempts), output_of(attempts)


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

"""keval run --sanitize, through a stand-in for compute-sanitizer (CI has no GPU): the wrapper
is really run, its log really parsed; the H200 run with the real tool is in
bench/runs/2026-11-30-session-03.md."""
import os

from conftest import REPO, read_results, run_keval

FAKE = REPO / "tests" / "e2e" / "fake_compute_sanitizer.sh"


def run_sanitized(tmp_path, errors, tool=FAKE):
    sub = tmp_path / "relu.py"
    sub.write_text((REPO / "suites" / "keval" / "relu" / "golden.py").read_text())
    os.environ["KEVAL_COMPUTE_SANITIZER"] = str(tool)
    os.environ["FAKE_MEMCHECK_ERRORS"] = str(errors)
    try:
        return run_keval("run", "--suite", "suites/keval", "--submissions", sub, "--out", tmp_path / "o",
                         "--device", "cpu", "--no-timing", "--sanitize", check=False)
    finally:
        del os.environ["KEVAL_COMPUTE_SANITIZER"], os.environ["FAKE_MEMCHECK_ERRORS"]


def test_memcheck_errors_make_a_passing_submission_out_of_bounds(tmp_path):
    proc = run_sanitized(tmp_path, errors=2)
    assert proc.returncode == 0, proc.stderr
    [result] = read_results(tmp_path / "o")
    assert result["verdict"] == "out_of_bounds", result
    assert "memcheck found 2 error(s)" in result["reasons"][0] and "Invalid __global__ write" in result["reasons"][0]


def test_a_clean_memcheck_log_keeps_the_pass(tmp_path):
    proc = run_sanitized(tmp_path, errors=0)
    assert proc.returncode == 0, proc.stderr
    [result] = read_results(tmp_path / "o")
    assert result["verdict"] == "pass", result


def test_a_missing_tool_is_a_one_line_error(tmp_path):
    proc = run_sanitized(tmp_path, errors=0, tool=tmp_path / "no-such-sanitizer")
    assert proc.returncode != 0
    assert "KEVAL_COMPUTE_SANITIZER" in proc.stderr and "no-such-sanitizer" in proc.stderr

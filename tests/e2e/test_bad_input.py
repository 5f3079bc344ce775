"""Bad input gets a clear one-line message; bad submissions are recorded and the run goes on."""
import json
import shutil

from conftest import REPO, read_results, run_keval

GOOD_RELU = (REPO / "suites" / "keval" / "relu" / "golden.py").read_text()


def write_jsonl(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def test_bad_submission_lines_are_recorded_and_run_goes_on(tmp_path):
    subs = write_jsonl(tmp_path / "s.jsonl", [
        json.dumps({"task": "relu", "code": GOOD_RELU, "id": "good"}),
        '{"task": "relu", "code": ',
        json.dumps({"task": "sofmax", "code": GOOD_RELU, "id": "typo"}),
        json.dumps({"task": "relu", "cod": GOOD_RELU, "id": "nocode"}),
    ])
    run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", tmp_path / "o",
              "--device", "cpu", "--no-timing")
    results = {r["id"]: r for r in read_results(tmp_path / "o")}
    assert results["good"]["verdict"] == "pass"
    bad = [r for r in results.values() if r["id"] != "good"]
    assert len(bad) == 3 and all(r["verdict"] == "bad_submission" for r in bad)
    reasons = " | ".join(r["reasons"][0] for r in bad)
    assert "s.jsonl:2: invalid JSON" in reasons
    assert 'unknown task "sofmax" (did you mean "softmax"?)' in reasons
    assert 'did you mean "code"' in reasons


def test_empty_submissions_file_fails_with_one_line(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    proc = run_keval("run", "--suite", "suites/keval", "--submissions", empty, "--out",
                     tmp_path / "o", check=False)
    assert proc.returncode != 0
    assert "empty" in proc.stderr and str(empty) in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_broken_task_file_stops_before_any_job(tmp_path):
    suite = tmp_path / "suite"
    shutil.copytree(REPO / "suites" / "keval" / "relu", suite / "relu")
    toml = (suite / "relu" / "task.toml").read_text().replace("difficulty", "dificulty", 1)
    (suite / "relu" / "task.toml").write_text(toml)
    out = tmp_path / "o"
    proc = run_keval("run", "--suite", suite, "--submissions",
                     REPO / "suites" / "keval" / "relu" / "golden.py", "--out", out, check=False)
    assert proc.returncode != 0
    assert 'dificulty: unknown field (did you mean "difficulty"?)' in proc.stderr
    assert "task.toml:" in proc.stderr
    assert not out.exists()  # nothing started, nothing written
    proc = run_keval("validate", "--suite", suite, check=False)
    assert proc.returncode != 0 and "dificulty" in proc.stderr


def test_py_file_named_after_its_task_is_accepted(tmp_path):
    sub = tmp_path / "relu.py"
    sub.write_text(GOOD_RELU)
    run_keval("run", "--suite", "suites/keval", "--submissions", sub, "--out", tmp_path / "o",
              "--device", "cpu", "--no-timing")
    [result] = read_results(tmp_path / "o")
    assert (result["task"], result["verdict"]) == ("relu", "pass")


def test_tasks_commands(tmp_path):
    listing = run_keval("tasks", "list", "--suite", "suites/keval").stdout
    for name in ["vector_add", "relu", "softmax", "layer_norm", "rms_norm", "row_sum", "matmul",
                 "bias_gelu", "cross_entropy", "cumsum", "rope", "w8a16_matmul"]:
        assert name in listing
    shown = run_keval("tasks", "show", "softmax", "--suite", "suites/keval").stdout
    assert "softmax(x" in shown and "tolerance" in shown
    proc = run_keval("tasks", "show", "sofmax", "--suite", "suites/keval", check=False)
    assert proc.returncode == 1 and 'did you mean "softmax"' in proc.stderr


def test_version_and_files_only_validate():
    assert run_keval("--version").stdout.startswith("keval ")
    out = run_keval("validate", "--suite", "suites/keval", "--files-only").stdout
    count = int(out.split()[0])
    assert out.startswith(f"{count} task files are valid") and count >= 80


def test_suite_has_both_tracks():
    listing = run_keval("tasks", "list", "--suite", "suites/keval").stdout
    summary = listing.strip().splitlines()[-1]  # "84 tasks (58 ops, 26 real)"
    ops = int(summary.split("(")[1].split()[0])
    real = int(summary.split(",")[1].split()[0])
    assert ops >= 55 and real >= 25, summary


def test_min_own_share_is_checked_and_recorded_with_the_run(tmp_path):
    subs = write_jsonl(tmp_path / "s.jsonl", [json.dumps({"task": "relu", "code": GOOD_RELU, "id": "good"})])
    proc = run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", tmp_path / "bad",
                     "--min-own-share", "1.5", check=False)
    assert proc.returncode != 0 and "--min-own-share" in proc.stderr
    run_keval("run", "--suite", "suites/keval", "--submissions", subs, "--out", tmp_path / "o",
              "--device", "cpu", "--no-timing", "--min-own-share", "0.9")
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["environment"]["min_own_share"] == 0.9
    assert [r["verdict"] for r in read_results(tmp_path / "o")] == ["pass"]


def test_status_from_earlier_results_runs_nothing_and_names_a_bad_file(tmp_path):
    results = write_jsonl(tmp_path / "r.jsonl", [json.dumps({"task": "relu", "id": "golden:relu", "verdict": "pass"})])
    status = tmp_path / "STATUS.md"
    proc = run_keval("validate", "--suite", "suites/keval", "--status", status, "--from", results)
    assert "from 1 results" in proc.stdout
    text = status.read_text()
    assert "| relu | ops | pass |" in text and "Not in these results (" in text
    bad = write_jsonl(tmp_path / "bad.jsonl", ["[1, 2]"])
    proc = run_keval("validate", "--suite", "suites/keval", "--status", status, "--from", bad, check=False)
    assert proc.returncode != 0 and "bad.jsonl:1: not a result line" in proc.stderr

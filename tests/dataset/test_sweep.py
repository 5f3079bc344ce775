"""keval sweep end to end on the CPU: variants of a golden become judged, timed records."""
import json

from conftest import run_keval


def test_sweep_times_variants_and_each_is_a_record(tmp_path):
    out = tmp_path / "sweep"
    run_keval("sweep", "--suite", "suites/keval", "--tasks", "vector_add", "--variants", "3", "--device", "cpu",
              "--out", out)
    variants = [json.loads(line) for line in (out / "variants.jsonl").read_text().splitlines()]
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(variants) == 3 and variants[0]["id"] == "vector_add@golden#as_is"
    assert [r["id"] for r in results] == [v["id"] for v in variants]
    assert results[0]["verdict"] == "pass"
    export = tmp_path / "export"
    run_keval("dataset", "export", "--from", out, "--out", export, "--format", "jsonl")
    rows = [json.loads(line) for f in ("train", "test") for line in (export / f"{f}.jsonl").read_text().splitlines()]
    assert {r["submission_id"] for r in rows} == {v["id"] for v in variants}
    assert all(r["quick_correctness"] for r in rows)
    assert all((r["y"] is None) == (r["verdict"] != "pass") for r in rows)


def test_sweep_jobs_judge_each_variant_and_survive_a_killed_one(tmp_path):
    """Golden variants share sweep jobs; each still gets its own verdict, and a variant that kills
    its job leaves the variants after it to a new job (fixtures/knob_suite/double/golden.py)."""
    out = tmp_path / "sweep"
    run_keval("sweep", "--suite", "tests/dataset/fixtures/knob_suite", "--variants", "5", "--device", "cpu",
              "--out", out)
    verdicts = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        result = json.loads(line)
        verdicts[result["id"].split("=")[-1] if "=" in result["id"] else "as_is"] = result["verdict"]
    assert verdicts == {"as_is": "pass", "512": "pass", "64": "mismatch", "1024": "runtime_error", "128": "crash"}
    export = tmp_path / "export"
    run_keval("dataset", "export", "--from", out, "--out", export, "--format", "jsonl")
    rows = [json.loads(line) for f in ("train", "test") for line in (export / f"{f}.jsonl").read_text().splitlines()]
    assert len(rows) == 5
    assert sorted(r["y"] is None for r in rows) == [False, False, True, True, True]
    assert all(r["timer_method"] == "wall_clock" and r["sample_count"] > 0 for r in rows if r["y"] is not None)


def test_a_sweep_stopped_midway_keeps_each_finished_variant(tmp_path):
    """Each variant is stored as it finishes, not when its sweep job ends: a sweep killed inside a
    job resumes after the variants that job had finished."""
    import os
    import signal
    import subprocess
    import time

    from conftest import KEVAL, REPO

    out = tmp_path / "sweep"
    args = [KEVAL, "sweep", "--suite", "suites/keval", "--tasks", "vector_add", "--variants", "16",
            "--device", "cpu", "--jobs", "1", "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    results = out / "results.jsonl"
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None:
        if results.exists() and len(results.read_text().splitlines()) >= 2:
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the sweep ended before it could be stopped"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = len(results.read_text().splitlines())
    assert 2 <= finished < 8  # the first job holds 8 of the 16 variants: it was still running
    run_keval("sweep", "--suite", "suites/keval", "--tasks", "vector_add", "--variants", "16", "--device", "cpu",
              "--jobs", "1", "--out", out)
    summary = json.loads((out / "summary.json").read_text())
    # A variant is committed to the store before its line is appended to results.jsonl, so a kill
    # that falls between the two leaves one more stored variant than lines.
    assert finished <= summary["resumed"] <= finished + 1
    assert len(results.read_text().splitlines()) == 16

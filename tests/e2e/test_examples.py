"""Every example submission gets the verdict it was written to get."""
import json
import sqlite3

from conftest import KEVAL, REPO, read_results, run_keval

EXPECTED = json.loads((REPO / "examples" / "expected_verdicts.json").read_text())
RESULT_FIELDS = {"id", "task", "verdict", "reasons", "call", "exec", "speedup", "speedup_ci",
                 "time_ms", "ref_time_ms", "efficiency", "cases"}
SUMMARY_FIELDS = {"n", "call_accuracy", "exec_accuracy", "geomean_speedup", "fast_p",
                  "verdict_counts", "per_category", "environment"}


def test_every_example_gets_its_expected_verdict(examples_run):
    out, _ = examples_run
    got = {r["id"]: r["verdict"] for r in read_results(out)}
    assert set(got) == set(EXPECTED)
    wrong = {i: (got[i], EXPECTED[i]) for i in EXPECTED if got[i] != EXPECTED[i]}
    assert not wrong, f"(got, expected): {wrong}"


def test_failures_carry_reasons_and_passes_carry_speedups(examples_run):
    out, _ = examples_run
    for r in read_results(out):
        assert RESULT_FIELDS <= set(r)
        if r["verdict"] == "pass":
            assert r["exec"] and r["call"]
            assert r["speedup"] is not None and r["speedup"] > 0
            listed = [c for c in r["cases"] if not c["case"].startswith("held_out_")]
            assert listed and all(c["time_ms"] > 0 for c in listed)
            # held-out shapes are checked, never timed
            assert all(c["time_ms"] is None for c in r["cases"] if c not in listed)
            # where the time went: each job's wall time and the runner's phases
            jobs = r["job_seconds"]
            assert jobs["candidate"]["wall_s"] > 0 and jobs["candidate"]["phases"]["calls"] > 0
            assert jobs["reference"]["phases"]["compare"] >= 0 and "timing" in jobs
            assert all(jobs[kind]["phases"]["guest_end"] >= 0 for kind in ("candidate", "timing"))
            # and its peak memory: the candidate's guest reports its own GPU figure (0 on the CPU)
            assert all(job["peak_memory"]["host_bytes"] > 0 for job in jobs.values())
            assert jobs["candidate"]["peak_memory"]["guest_gpu_bytes"] == 0
            assert jobs["candidate"]["peak_memory"]["io_bytes"] > 0
        else:
            assert r["reasons"] and r["reasons"][0], r
            assert r["speedup"] is None


def test_summary_counts_match_results(examples_run):
    out, proc = examples_run
    summary = json.loads((out / "summary.json").read_text())
    assert SUMMARY_FIELDS <= set(summary)
    results = read_results(out)
    assert summary["n"] == len(results)
    passes = sum(r["verdict"] == "pass" for r in results)
    assert abs(summary["exec_accuracy"] - passes / len(results)) < 1e-9
    assert sum(summary["verdict_counts"].values()) == len(results)
    assert summary["environment"]["device_mode"] == "cpu_interpreter"
    assert summary["timing_method"] == "wall_clock"
    assert summary["interrupted"] is False  # ended by itself (test_interrupt.py: Ctrl-C)
    # The printed table names every submission.
    for r in results:
        assert r["id"][:20] in proc.stdout


def test_store_holds_every_evaluation_with_raw_facts(examples_run):
    out, _ = examples_run
    db = sqlite3.connect(out / "keval.db")
    rows = db.execute("SELECT verdict, facts_json FROM evaluations").fetchall()
    assert len(rows) == len(EXPECTED)
    judged = [json.loads(f) for v, f in rows if v != "bad_submission"]
    assert judged and all("candidate" in facts for facts in judged)
    assert db.execute("SELECT COUNT(*) FROM samples").fetchone()[0] > 0


def test_rerun_into_same_out_resumes_without_rejudging(examples_run, tmp_path):
    out, _ = examples_run
    before = read_results(out)
    proc = run_keval("run", "--suite", "suites/keval", "--submissions",
                     "examples/submissions.jsonl", "--out", out, "--device", "cpu")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["resumed"] == len(before)
    assert [r["verdict"] for r in read_results(out)] == [r["verdict"] for r in before]
    db = __import__("sqlite3").connect(out / "keval.db")
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 2
    assert db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0] == len(before)


def test_the_same_code_twice_in_one_file_is_judged_once_and_reported_under_both_ids(tmp_path):
    # it used to crash the second line (UNIQUE constraint on the evaluation key)
    line = next(json.loads(l) for l in (REPO / "examples" / "submissions.jsonl").read_text().splitlines()
                if json.loads(l)["id"] == "relu_correct")
    subs = tmp_path / "twice.jsonl"
    subs.write_text("".join(json.dumps(dict(line, id=i)) + "\n" for i in ("first", "again")))
    out = tmp_path / "out"
    proc = run_keval("run", "--suite", "suites/keval", "--submissions", str(subs), "--out", str(out),
                     "--device", "cpu", "--no-timing")
    assert proc.returncode == 0, proc.stderr
    results = {r["id"]: r for r in read_results(out)}
    assert set(results) == {"first", "again"}
    assert results["first"]["verdict"] == results["again"]["verdict"] == "pass"
    assert json.loads((out / "summary.json").read_text())["same_code"] == 1
    assert sqlite3.connect(out / "keval.db").execute("SELECT COUNT(*) FROM evaluations").fetchone()[0] == 1


def load_job_seconds():
    import importlib.util

    spec = importlib.util.spec_from_file_location("job_seconds", REPO / "bench" / "job_seconds.py")
    job_seconds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job_seconds)
    return job_seconds


def test_job_seconds_summary_names_every_job_of_a_timed_run(examples_run):
    job_seconds = load_job_seconds()
    out, _ = examples_run
    summary = job_seconds.summarize([r for r in read_results(out) if r["verdict"] == "pass"])
    assert set(summary) == {"candidate", "reference", "timing"}
    assert summary["timing"]["phases"]["timing"] > 0 and summary["candidate"]["wall_s"] > 0
    assert summary["candidate"]["peak_host_bytes"] > 0 and summary["timing"]["peak_gpu_bytes"] == 0
    # a round of samples, part by part: on the CPU the warden's round trip to the guest is a
    # part of the candidate's sample, its preparing and checking the rest
    passed = [r for r in read_results(out) if r["verdict"] == "pass"]
    parts = job_seconds.round_breakdown(summary["timing"]["phases"], summary["timing"]["n"],
                                        job_seconds.sampling_rounds(passed))
    assert parts["baselines"] > 0 and parts["loop reads"] > 0
    assert 0 < parts["candidate round trip"] < parts["candidate"]
    assert parts["candidate prepare"] > 0 and parts["candidate check"] > 0
    assert parts["baseline round trip"] > 0


def test_job_seconds_bounds_kevals_own_gpu_memory_by_large_calls_only():
    """The 2x rule's figure: the warden's GPU peak over one call's bytes, the guest's left out,
    calls under 64 MiB (where 2 MiB allocator blocks decide the ratio) left out."""
    mib = 2**20

    def result(gpu, guest, io):
        return {"job_seconds": {"candidate": {"wall_s": 1.0, "peak_memory": {
            "gpu_bytes": gpu * mib, "guest_gpu_bytes": guest * mib, "io_bytes": io * mib}}}}

    job_seconds = load_job_seconds()
    summary = job_seconds.summarize([dict(result(300, 500, 128), task="x"), dict(result(40, 0, 1), task="y")])["candidate"]
    assert summary["keval_over_io"] == 300 / 128
    assert summary["gpu_over_io"] == 40.0  # both processes, every call
    # each process's peak apart, and the task of the larger
    assert (summary["peak_gpu_bytes"], summary["peak_guest_gpu_bytes"], summary["peak_gpu_task"]) == (300 * mib, 500 * mib, "x")
    rows = [dict(result(gpu, 0, io), task=task) for task, gpu, io in
            [("a", 300, 128), ("b", 40, 1), ("c", 640, 64), ("d", 100, 100), ("c", 320, 64)]]
    # each task once, at its largest ratio
    assert job_seconds.largest_memory_ratios(rows, most=2) == [(10.0, "c", 640.0, 64.0), (300 / 128, "a", 300.0, 128.0)]
    assert [row[1] for row in job_seconds.largest_memory_ratios(rows)] == ["c", "a", "d"]
    # a timing job against its candidate job's call; no timing job, no row
    timed = dict(result(300, 0, 128), task="t")
    timed["job_seconds"]["timing"] = {"peak_memory": {"gpu_bytes": 1024 * mib}}
    assert job_seconds.largest_memory_ratios(rows + [timed], job="timing") == [(8.0, "t", 1024.0, 128.0)]


def test_the_mixed_workload_line_shows_the_time_outside_the_steady_span():
    import sys

    sys.path.insert(0, str(REPO / "bench"))
    import mixed_workload

    figure = {"suite": "core", "candidates": 4, "seconds": 20.0, "steady": (9.0, 3), "passed": 2,
              "correct_passed": 2, "broken_failed": 2}
    text = mixed_workload.line(figure)
    assert "5.00 s/candidate whole, steady 3.00 s/candidate (11.0 s before the first verdict" in text
    assert "steady: too few to tell" in mixed_workload.line(dict(figure, steady=None))


def test_verdict_counts_lists_every_failure_with_its_reason(examples_run):
    import subprocess
    import sys

    out, _ = examples_run
    rows = read_results(out)
    printed = subprocess.run([sys.executable, str(REPO / "scripts" / "verdict_counts.py"), str(out / "results.jsonl")],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    passed = sum(r["verdict"] == "pass" for r in rows)
    assert printed[0].startswith(f"{out / 'results.jsonl'}: {passed} of {len(rows)} pass")
    failures = [r for r in rows if r["verdict"] != "pass"]
    assert len(printed) == 1 + len(failures)
    assert all(line.startswith(f"  {r['id']} {r['verdict']}: ") for line, r in zip(printed[1:], failures))


def test_a_run_cut_short_keeps_the_results_it_finished_and_leaves_no_runner_behind(tmp_path):
    import os
    import signal
    import subprocess
    import time

    quick = next(json.loads(l) for l in (REPO / "examples" / "submissions.jsonl").read_text().splitlines()
                 if json.loads(l)["id"] == "relu_correct")
    hang = {"id": "hangs", "task": "relu",
            "code": (REPO / "tests" / "hostile" / "cases" / "infinite_loop_call.py").read_text()}
    subs = tmp_path / "subs.jsonl"
    subs.write_text(json.dumps(quick) + "\n" + json.dumps(hang) + "\n")
    out = tmp_path / "out"
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.Popen([KEVAL, "run", "--suite", "suites/keval", "--submissions", str(subs), "--out",
                             str(out), "--device", "cpu", "--no-timing", "--jobs", "1", "--timeout", "300"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    below = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (results.exists() and results.read_text().strip()):
            time.sleep(0.2)
        # the hanging submission's job runs once a process below the runner's seed and zygote
        # does: wait for it, not for a while (a loaded machine may take longer to fork it)
        while time.monotonic() < deadline and len(descendants(proc.pid)) < 3:
            time.sleep(0.2)
        below = descendants(proc.pid)
    finally:
        proc.send_signal(signal.SIGKILL)  # cut short: no end-of-run rewrite, no clean-up
        proc.wait()
    lines = [json.loads(l) for l in results.read_text().splitlines() if l.strip()]
    assert [(r["id"], r["verdict"]) for r in lines] == [("relu_correct", "pass")]
    # the zygote notices its controller is gone and ends the hanging job and itself
    assert len(below) >= 2, below  # the zygote and the job, at least
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(pid) for pid in below):
        time.sleep(0.2)
    assert not [pid for pid in below if alive(pid)]


def descendants(root: int) -> list:
    import glob

    parent = {}
    for entry in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(entry) as f:
                parent[int(entry.split("/")[2])] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            pass
    found, frontier = [], [root]
    while frontier:
        children = [pid for pid, ppid in parent.items() if ppid in frontier]
        found += children
        frontier = children
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def test_job_seconds_tells_how_sampling_stopped_by_the_baselines_time():
    def case(ref_ms, samples, reason):
        return {"ref_time_ms": ref_ms, "samples": samples, "ref_samples": samples + 1, "stop_reason": reason}

    results = [{"cases": [case(0.005, 80, "time_cap"), case(0.02, 12, "converged"), case(0.2, 10, "converged"),
                          {"ref_time_ms": None, "samples": 0}]},
               {"cases": [case(0.004, 70, "time_cap")]}]
    bands = load_job_seconds().sampling(results)
    assert bands["under 50 us"] == {"cases": 3, "median_samples": 70, "median_ref_samples": 71,
                                    "stopped": {"time_cap": 2, "converged": 1}}
    assert bands["50 us or more"]["cases"] == 1 and bands["50 us or more"]["stopped"] == {"converged": 1}


def test_job_seconds_counts_rounds_of_the_timing_loop():
    """A round: the candidate's and its first baseline's sample; the larger count a case."""
    job_seconds = load_job_seconds()
    rows = [{"cases": [{"time_ms": 1.0, "samples": 12, "ref_samples": 10},
                       {"time_ms": 2.0, "samples": 9, "ref_samples": 30},
                       {"time_ms": None, "samples": 0}]},  # not timed
            {"cases": None}]
    assert job_seconds.sampling_rounds(rows) == 42

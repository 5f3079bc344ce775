"""Ctrl-C during `keval run`: the run says it was interrupted, ends its running jobs at once,
writes results.jsonl and summary.json for what finished, stores nothing for the rest (the
same command judges it later) and exits 130."""
import json
import os
import signal
import sqlite3
import subprocess
import time

from conftest import KEVAL, REPO, read_results, run_keval

HANG = (REPO / "tests" / "hostile" / "cases" / "infinite_loop_call.py").read_text()
GOOD_RELU = (REPO / "suites" / "keval" / "relu" / "golden.py").read_text()


def test_ctrl_c_ends_the_running_job_and_writes_what_finished(tmp_path):
    subs = tmp_path / "subs.jsonl"
    subs.write_text(json.dumps({"id": "quick", "task": "relu", "code": GOOD_RELU}) + "\n" +
                    json.dumps({"id": "hangs", "task": "relu", "code": HANG}) + "\n")
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    # its own session, as a terminal's foreground job: Ctrl-C signals the whole group
    proc = subprocess.Popen([KEVAL, "run", "--suite", "suites/keval", "--submissions", str(subs), "--out", str(out),
                             "--device", "cpu", "--no-timing", "--jobs", "1", "--timeout", "600"],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    results = out / "results.jsonl"
    try:
        deadline = time.monotonic() + 300
        while not (results.exists() and results.read_text().strip()):  # quick is judged: hangs runs
            assert proc.poll() is None and time.monotonic() < deadline, "the run never judged its first submission"
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
        interrupted_at = time.monotonic()
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert time.monotonic() - interrupted_at < 60, "the hanging job ran on after Ctrl-C"
    assert proc.returncode == 130, stdout + stderr
    assert "keval: interrupted; 1 submission(s) judged, written and stored, 1 left unjudged: " \
           "run the same command again to judge them" in stderr, stderr
    assert [(r["id"], r["verdict"]) for r in read_results(out)] == [("quick", "pass")]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["n"] == 1
    assert [e["id"] for e in summary["harness_errors"]] == ["hangs"]
    with sqlite3.connect(out / "keval.db") as db:
        assert db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0] == 1  # nothing stored for hangs



GOOD_VECTOR_ADD = (REPO / "suites" / "keval" / "vector_add" / "golden.py").read_text()
# every run of the folder the same settings, so the evaluation keys match and resume reuses
KILLED_RUN = ("--suite", "suites/keval", "--device", "cpu", "--no-timing", "--jobs", "1", "--timeout", "40",
              "--quiet")


def test_kill_9_of_a_tasks_run_loses_no_result_of_the_folder(tmp_path):
    """A --tasks run killed by SIGKILL mid-run, then run again: results.jsonl and summary.json
    hold every result the folder had and every one stored since, each once, each line whole."""
    subs = tmp_path / "subs.jsonl"
    first = [{"id": "va", "task": "vector_add", "code": GOOD_VECTOR_ADD}, {"id": "quick", "task": "relu", "code": GOOD_RELU}]
    subs.write_text("".join(json.dumps(s) + "\n" for s in first))
    out = tmp_path / "out"
    run_keval("run", *KILLED_RUN, "--submissions", subs, "--out", out)
    assert [r["id"] for r in read_results(out)] == ["va", "quick"]

    # quick2 is judged, then hangs runs until its 40 s deadline: killed in between
    more = [{"id": "quick2", "task": "relu", "code": GOOD_RELU + "\n# another copy\n"},
            {"id": "hangs", "task": "relu", "code": HANG}]
    subs.write_text("".join(json.dumps(s) + "\n" for s in first + more))
    command = [KEVAL, "run", *KILLED_RUN, "--submissions", str(subs), "--out", str(out), "--tasks", "relu"]
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while '"quick2"' not in (out / "results.jsonl").read_text():
            assert proc.poll() is None and time.monotonic() < deadline, "the run never judged quick2"
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # keval, its runner and its jobs, as the OOM killer would
        proc.wait()

    run_keval("run", *KILLED_RUN, "--submissions", subs, "--out", out, "--tasks", "relu")
    lines = (out / "results.jsonl").read_text().splitlines()
    results = [json.loads(line) for line in lines]  # no torn line
    assert sorted(r["id"] for r in results) == ["hangs", "quick", "quick2", "va"], [r["id"] for r in results]
    assert {r["id"]: r["verdict"] for r in results} == {"va": "pass", "quick": "pass", "quick2": "pass",
                                                         "hangs": "timeout"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["n"] == 4 and sum(summary["verdict_counts"].values()) == 4, summary
    with sqlite3.connect(out / "keval.db") as db:
        stored = {row[0] for row in db.execute("SELECT submission_id FROM evaluations")}
    assert stored == {r["id"] for r in results}

"""Ctrl-C during `keval run`: the run says it was interrupted, ends its running jobs at once,
writes results.jsonl and summary.json for what finished, stores nothing for the rest (the
same command judges it later) and exits 130."""
import json
import os
import signal
import sqlite3
import subprocess
import time

from conftest import KEVAL, REPO, read_results

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


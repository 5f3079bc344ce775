"""`kill -INT` of keval mutate in its report's differential check: the check stops at once
(nothing of it runs on), the report is written marked partial, every judged mutant stays in
keval.db, keval exits 130, and the same command run again resumes from the store.

The check is held at a known point (differential.py's KEVAL_MUTATE_HOLD: it makes PATH.reached
and waits for PATH, which the test never makes), so no timing decides where the signal lands."""
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from conftest import FIXTURE_SUITE, KEVAL, REPO, keval_env

# row_min's two other_swapped mutants (fill 0 instead of +inf) pass its cases: two survivors
MUTATE = ["mutate", "--suite", str(FIXTURE_SUITE), "--tasks", "row_min", "--operators", "other_swapped",
          "--device", "cpu", "--jobs", "1"]


def running_with(text: str) -> list:
    """Pids of the processes whose command line holds text."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.timeout(600)
def test_sigint_in_the_differential_check_writes_a_partial_report_and_a_rerun_resumes(tmp_path):
    out, hold = tmp_path / "out", tmp_path / "hold"
    proc = subprocess.Popen([KEVAL, *MUTATE, "--out", str(out)], cwd=REPO, env=keval_env(KEVAL_MUTATE_HOLD=str(hold)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 420
        while not os.path.exists(f"{hold}.reached"):  # every mutant judged; the check has begun
            assert proc.poll() is None and time.monotonic() < deadline, "keval mutate never reached the check"
            time.sleep(0.1)
        os.kill(proc.pid, signal.SIGINT)  # keval alone, as `kill -INT PID` does
        interrupted_at = time.monotonic()
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert time.monotonic() - interrupted_at < 30, "the check ran on after SIGINT"
    assert proc.returncode == 130, stdout + stderr
    assert f"keval: interrupted (SIGINT); every judged mutant is stored in {out}/keval.db; {out}/mutants.md is " \
           "partial: the differential check was interrupted (SIGINT) in row_min" in stderr, stderr
    assert not running_with(str(out)), "a process of the check outlived keval"
    report = json.loads((out / "mutants.json").read_text())
    task = report["tasks"]["row_min"]
    assert report["partial"].startswith("the differential check was interrupted")
    assert task["made"] == 2 and task["survived"] == 2 and task["unjudged"] == 0
    assert all(s["equivalence"].startswith("not checked: ") for s in task["survivors"])
    assert "**Partial**: the differential check was interrupted" in (out / "mutants.md").read_text()
    with sqlite3.connect(out / "keval.db") as db:
        stored = {row[0] for row in db.execute("SELECT submission_id FROM evaluations")}
    assert stored == {"golden:row_min", "mutant:row_min:other_swapped:1", "mutant:row_min:other_swapped:2"}

    again = subprocess.run([KEVAL, *MUTATE, "--out", str(out), "--equivalence-trials", "0"], cwd=REPO,
                           env=keval_env(), capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "reused 3 stored result(s)" in again.stdout  # the golden and both mutants: nothing judged again
    report = json.loads((out / "mutants.json").read_text())
    assert report["partial"] == "" and report["tasks"]["row_min"]["survived"] == 2

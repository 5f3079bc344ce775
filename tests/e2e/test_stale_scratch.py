"""A keval killed outright (kill -9) cannot remove its scratch folder under /var/tmp/keval-work
(where job folders go when other users cannot reach OUT): the next run that uses that place
removes it, and leaves the folder of a run still going."""
import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from conftest import KEVAL, REPO, read_results, run_keval

SCRATCH = pathlib.Path("/var/tmp/keval-work")
HANGS = "import time\n\ndef relu(x):\n    time.sleep(600)\n    return x\n"
GOLDEN_RELU = (REPO / "suites" / "keval" / "relu" / "golden.py").read_text()


def submissions(path: pathlib.Path, code: str) -> pathlib.Path:
    path.write_text(json.dumps({"task": "relu", "code": code, "id": path.stem}) + "\n")
    return path


def run_args(subs: pathlib.Path, out: pathlib.Path) -> list:
    return ["run", "--suite", "suites/keval", "--tasks", "relu", "--submissions", str(subs), "--out", str(out),
            "--device", "cpu", "--no-timing", "--quiet"]


def start_hanging_run(subs: pathlib.Path, out: pathlib.Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.Popen([KEVAL, *run_args(subs, out)], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def wait_for_a_job_folder(keval: subprocess.Popen) -> pathlib.Path:
    """Its scratch folder once a job is in it: the run is past its start, its submission hangs."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert keval.poll() is None, f"keval exited {keval.returncode} before its job started"
        for folder in SCRATCH.glob(f"{keval.pid}-*"):
            if any(folder.iterdir()):
                return folder
        time.sleep(0.2)
    raise AssertionError("no job folder of the hanging run appeared in 300 s")


def kill_outright(keval: subprocess.Popen) -> None:
    if keval.poll() is None:
        os.killpg(keval.pid, signal.SIGKILL)
    keval.wait(timeout=60)


@pytest.mark.timeout(900)
def test_a_run_removes_what_a_killed_keval_left_and_keeps_a_live_runs(tmp_path):
    closed = tmp_path / "closed"  # other users cannot enter it: the jobs' folders go to SCRATCH
    closed.mkdir(mode=0o700)
    hanging = submissions(tmp_path / "hangs.jsonl", HANGS)
    killed = start_hanging_run(hanging, closed / "killed")
    live = start_hanging_run(hanging, closed / "live")
    try:
        killed_folder = wait_for_a_job_folder(killed)
        live_folder = wait_for_a_job_folder(live)
        kill_outright(killed)  # its folder stays (another test's run beside this one may remove it first)

        out = closed / "next"
        run_keval(*run_args(submissions(tmp_path / "golden.jsonl", GOLDEN_RELU), out), timeout=600)
        assert [r["verdict"] for r in read_results(out)] == ["pass"]
        summary = json.loads((out / "summary.json").read_text())
        if not any(str(SCRATCH) in w for w in summary["environment"]["sandbox"]["warnings"]):
            pytest.skip("this run's jobs did not go to /var/tmp/keval-work (no uid sandbox: not root?)")

        assert not killed_folder.exists(), f"the killed keval's {killed_folder.name} is still there"
        assert live.poll() is None and live_folder.exists() and any(live_folder.iterdir()), \
            "the live run's folder was touched"
    finally:
        kill_outright(killed)
        kill_outright(live)
        for process in (killed, live):  # what they left: each was killed outright
            for folder in SCRATCH.glob(f"{process.pid}-*"):
                subprocess.run(["rm", "-rf", str(folder)], check=False)

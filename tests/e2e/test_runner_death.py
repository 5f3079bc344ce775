"""keval killed outright (kill -9) takes its runner processes along, whatever they are doing.
Here the runner's interpreter stalls before Python starts (a wrapper named as KEVAL_PYTHON
sleeps for minutes), so the runner's own checks (EOF on its stdin, an orphaned job's parent
check) can never run: only the death signal keval gives each runner ends it. Every way a
runner starts: the seed, a slot's own zygote (--fresh-process), and keval serve's (whose
threads block SIGTERM, which its runners must not inherit)."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import KEVAL, REPO

STALLED_WRAPPER = """#!{python}
import os, sys, time
if sys.argv[1:3] == ["-m", "keval_runner"]:
    with open(os.environ["KEVAL_TEST_STALLED"], "a") as f:
        f.write(f"{{os.getpid()}}\\n")
    time.sleep(300)
os.execv({python!r}, [{python!r}, *sys.argv[1:]])
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ask_for_a_job(port: int, keval) -> None:
    """keval serve starts its runners with the first job: one relu golden."""
    deadline = time.monotonic() + 60
    body = json.dumps({"task": "relu", "code": (REPO / "suites" / "keval" / "relu" / "golden.py").read_text()})
    while True:
        assert keval.poll() is None and time.monotonic() < deadline, "keval serve did not come up"
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/evaluate?wait=0", data=body.encode(),
                                             headers={"Content-Type": "application/json"}, method="POST")
            with urllib.request.urlopen(request, timeout=30):
                return
        except OSError:
            time.sleep(0.1)


@pytest.mark.parametrize("mode", ["seed", "own-zygote", "serve"])
def test_runners_die_with_a_killed_keval(tmp_path, mode):
    wrapper = tmp_path / "python"
    wrapper.write_text(STALLED_WRAPPER.format(python=os.environ.get("KEVAL_PYTHON", sys.executable)))
    wrapper.chmod(0o755)
    stalled = tmp_path / "stalled.pids"
    env = {**os.environ, "KEVAL_PYTHON": str(wrapper), "KEVAL_TEST_STALLED": str(stalled)}
    env.pop("TRITON_INTERPRET", None)
    common = ["--suite", "suites/keval", "--out", str(tmp_path / "out"), "--device", "cpu", "--no-timing"]
    port = free_port()
    command = {"seed": ["run", "--submissions", "examples/submissions.jsonl", "--tasks", "relu", *common],
               "own-zygote": ["run", "--submissions", "examples/submissions.jsonl", "--tasks", "relu", *common,
                              "--fresh-process"],
               "serve": ["serve", "--port", str(port), *common]}[mode]
    keval = subprocess.Popen([KEVAL, *command], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    runners = []
    try:
        if mode == "serve":
            ask_for_a_job(port, keval)
        deadline = time.monotonic() + 120
        while not runners:
            assert keval.poll() is None, "keval ended before it started a runner"
            assert time.monotonic() < deadline, "keval started no runner in 120 s"
            time.sleep(0.05)
            runners = [int(line) for line in stalled.read_text().split()] if stalled.exists() else []
        os.kill(keval.pid, signal.SIGKILL)  # keval alone: the runner has a process group of its own
        keval.wait()
        deadline = time.monotonic() + 60
        while any(alive(pid) for pid in runners):
            assert time.monotonic() < deadline, f"runners {runners} outlived keval by 60 s"
            time.sleep(0.1)
    finally:
        if keval.poll() is None:
            keval.kill()
            keval.wait()
        for pid in runners:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

"""Client tests: the real `keval serve` (CPU mode, no timing) and keval_client over real HTTP;
the GRPO example against it and a local fake model server (fake_model_server.py)."""
import json
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
KEVAL = os.environ.get("KEVAL", str(REPO / "build" / "keval"))
CLIENT = REPO / "clients" / "python"
TOKEN = "client-test-token"
REWARD = {"hack": -1.0, "fail": {"default": 0.0, "compile_error": -0.5}, "pass": 0.5, "speedup": [[1.5, 1.0]]}
sys.path.insert(0, str(CLIENT))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc, log: pathlib.Path, what: str):
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{what} exited {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{what} did not come up:\n{log.read_text()}")


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def serve(tmp_path_factory):
    """One keval serve for the session: {url, token_file}."""
    folder = tmp_path_factory.mktemp("serve")
    token_file, reward_file, log = folder / "token", folder / "reward.json", folder / "serve.log"
    token_file.write_text(TOKEN + "\n")
    reward_file.write_text(json.dumps(REWARD))
    port = free_port()
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.Popen([KEVAL, "serve", "--suite", "suites/keval", "--port", str(port), "--device", "cpu",
                             "--out", str(folder / "out"), "--no-timing", "--jobs", "2", "--token-file",
                             str(token_file), "--reward-config", str(reward_file)],
                            cwd=REPO, env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url + "/v1/health", proc, log, "keval serve")
        yield {"url": url, "token_file": token_file, "log": log}
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def model_server(tmp_path_factory):
    """The fake model: seeds 0, 4, 5 and 6 answer the golden, the others fail."""
    folder = tmp_path_factory.mktemp("model")
    port_file, log = folder / "port", folder / "model.log"
    proc = subprocess.Popen([sys.executable, str(pathlib.Path(__file__).with_name("fake_model_server.py")),
                             str(REPO / "suites" / "keval"), str(port_file), "0,4,5,6"],
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while not port_file.exists() or not port_file.read_text():
            if time.time() > deadline or proc.poll() is not None:
                raise AssertionError("fake model server did not start:\n" + log.read_text())
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port_file.read_text()}/v1"
    finally:
        stop(proc)

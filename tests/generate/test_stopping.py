"""keval generate stopped from outside: a SIGTERM to keval alone stops its Python tool cleanly
(what finished is written, the exit is 143), and a `kill -9` of keval alone does not leave the
tool asking the model on its own (it gets SIGTERM through PR_SET_PDEATHSIG)."""
import json
import os
import signal
import subprocess
import time

from conftest import CORE, KEVAL, REPO, recorded_routes
from test_generate_loop import stored_rows
from test_refine import descendants


def start(server, out):
    args = ["generate", "--suite", "suites/keval", "--tasks", ",".join(CORE), "--model", "fake-model",
            "--base-url", server.url, "--samples", "4", "--concurrency", "1", "--out", str(out)]
    return subprocess.Popen([KEVAL, *args], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def wait_for_rows(process, store, rows: int):
    deadline = time.monotonic() + 60
    while stored_rows(store) < rows:
        assert process.poll() is None and time.monotonic() < deadline, "generate stored too little"
        time.sleep(0.02)


def written(out) -> list:
    return [json.loads(line)["id"] for line in out.read_text().splitlines()]


def test_sigterm_to_keval_stops_generate_and_writes_what_finished(tmp_path, fake_server):
    server = fake_server({"routes": recorded_routes(), "delay_s": 0.3})
    out, store = tmp_path / "subs.jsonl", tmp_path / "subs.generate.db"
    process = start(server, out)
    wait_for_rows(process, store, 3)
    os.kill(process.pid, signal.SIGTERM)  # keval alone, as a job scheduler or `kill` sends it
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr
    assert "interrupted (SIGTERM)" in stderr
    ids = written(out)
    assert len(ids) == stored_rows(store) >= 3 and len(ids) < 4 * len(CORE)
    assert ids == sorted(ids, key=lambda i: (CORE.index(i.split("@")[0]), i))  # in plan order


def test_kill_9_of_keval_stops_its_python_tool(tmp_path, fake_server):
    server = fake_server({"routes": recorded_routes(), "delay_s": 0.5})  # 48 samples, one at a time: 24 s
    out, store = tmp_path / "subs.jsonl", tmp_path / "subs.generate.db"
    process = start(server, out)
    wait_for_rows(process, store, 2)
    tool = descendants(process.pid)
    assert tool, "keval started no Python tool"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{pid}") and "Z" not in open(f"/proc/{pid}/stat").read().split(")")[1][:3]
              for pid in tool):
        assert time.monotonic() < deadline, "keval's Python tool outlived keval by 10 s"
        time.sleep(0.05)
    asked = len(server.requests())
    time.sleep(1.5)
    assert len(server.requests()) == asked < 4 * len(CORE)
    assert len(written(out)) == stored_rows(store)  # it stopped as on SIGTERM: what finished is written

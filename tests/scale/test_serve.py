"""keval serve with real HTTP clients, CPU mode: bad requests answered 4xx with the field named,
idempotency, batch, cancel, metrics; then 64 concurrent clients (bench/serve_load.py) while the
server is killed (SIGKILL) and started again: no accepted job is lost and none runs twice."""
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import KEVAL, REPO, example_lines, keval_env

TOKEN = "s3cret-token"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, tmp_path, *extra):
        self.out = tmp_path / "serve"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token_file = tmp_path / "token"
        self.token_file.write_text(TOKEN + "\n")
        self.proc = None
        self.log = tmp_path / "serve.log"
        self.extra = [str(a) for a in extra]

    def start(self):
        self.proc = subprocess.Popen(
            [KEVAL, "serve", "--suite", "suites/keval", "--port", str(self.port), "--device", "cpu",
             "--out", str(self.out), "--no-timing", "--token-file", str(self.token_file),
             "--max-body", "65536", "--jobs", "2", "--max-batch", "8", *self.extra],
            cwd=REPO, env=keval_env(), stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if self.call("GET", "/v1/health", token=False)[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("keval serve did not come up:\n" + self.log.read_text())

    def call(self, method, path, body=None, token=True, headers=None, raw=None):
        h = {"Content-Type": "application/json", **(headers or {})}
        if token:
            h["Authorization"] = f"Bearer {TOKEN}"
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                text = resp.read().decode()
                return resp.status, (json.loads(text) if text.startswith("{") else text)
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture()
def server(tmp_path):
    s = Server(tmp_path)
    s.start()
    yield s
    s.stop()


def example(id_):
    return next(l for l in example_lines() if l["id"] == id_)


def queue_states(out):
    with sqlite3.connect(f"file:{out / 'queue.db'}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT state, count(*) FROM jobs GROUP BY state").fetchall())


def test_requests_are_judged_and_bad_ones_name_their_field(server):
    status, health = server.call("GET", "/v1/health", token=False)
    assert status == 200 and health["status"] == "ok" and "quick" in health["presets"]

    assert server.call("POST", "/v1/evaluate", example("relu_correct"), token=False)[1]["field"] == "Authorization"
    status, answer = server.call("POST", "/v1/evaluate", raw=b'{"task": "relu", ')
    assert status == 400 and answer["field"] == "body"
    status, answer = server.call("POST", "/v1/evaluate", {"task": "rleu", "code": "x"})
    assert status == 422 and answer["field"] == "task" and "relu" in answer["error"]
    status, answer = server.call("POST", "/v1/evaluate", {"task": "relu"})
    assert status == 400 and answer["field"] == "code"
    status, answer = server.call("POST", "/v1/evaluate", raw=json.dumps({"task": "relu", "code": "x" * 70000}).encode())
    assert status == 413 and answer["field"] == "body"
    status, answer = server.call("POST", "/v1/evaluate/batch", {"submissions": [example("relu_correct"), {"task": 1, "code": "x"}]})
    assert status == 400 and answer["field"] == "submissions[1].task"

    # a broken and a correct candidate (one batch), the first sent again under its key (a retry)
    torch_only = example("vector_add_torch_only")
    first = server.call("POST", "/v1/evaluate?wait=0", torch_only, headers={"Idempotency-Key": "k1"})
    status, answer = server.call("POST", "/v1/evaluate?wait=120", example("relu_correct"))
    assert status == 200 and answer["verdict"] == "pass" and answer["hack_flags"] == []
    assert answer["result"]["id"] == "relu_correct" and "speedup_ci" in answer
    again = server.call("POST", "/v1/evaluate?wait=120", torch_only, headers={"Idempotency-Key": "k1"})
    assert first[0] == 202 and again[0] == 200 and again[1]["id"] == first[1]["id"]
    assert again[1]["verdict"] == "no_kernel" and again[1]["hack_flags"] == ["verdict: no_kernel"]
    assert server.call("POST", "/v1/evaluate", example("relu_leaky"), headers={"Idempotency-Key": "k1"})[0] == 409

    status, answer = server.call("GET", f"/v1/jobs/{first[1]['id']}")
    assert status == 200 and answer["state"] == "done" and answer["attempts"] == 1
    assert server.call("GET", "/v1/jobs/nope")[0] == 404
    assert server.call("DELETE", f"/v1/jobs/{first[1]['id']}")[0] == 409  # done: not cancellable
    status, metrics = server.call("GET", "/metrics", token=False)
    assert status == 200 and 'keval_jobs_finished_total{verdict="pass"} 1' in metrics
    assert 'keval_http_requests_total{route="POST /v1/evaluate",code="422"} 1' in metrics


def runner_pids(server):
    """The server's runner processes (its direct children)."""
    found = subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True, text=True).stdout.split()
    return set(found)


def test_later_batches_reuse_the_first_batchs_warm_runners(server):
    relu = example("relu_correct")
    for n in range(3):  # one batch each: the next is sent when the last is answered
        status, answer = server.call("POST", "/v1/evaluate?wait=120", {**relu, "code": relu["code"] + f"\n# copy {n}\n"})
        assert status == 200 and answer["verdict"] == "pass"
        pids = runner_pids(server)
        if n == 0:
            first = pids
    assert first and pids == first  # neither probed nor started again


def test_64_clients_and_a_kill_and_restart_lose_no_job_and_run_none_twice(server, tmp_path):
    figures = tmp_path / "load.json"
    load = subprocess.Popen(
        [sys.executable, str(REPO / "bench" / "serve_load.py"), "--url", server.url, "--clients", "64",
         "--requests", "1", "--tasks", "vector_add,relu", "--cheap-share", "0.85", "--token-file",
         str(server.token_file), "--deadline", "240", "--json", str(figures)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # Kill the server while a batch runs, once some jobs are done (batches of at most 8, so a
    # slow machine that queues all 64 before the first batch still has several).
    deadline = time.time() + 120
    while True:
        states = queue_states(server.out) if (server.out / "queue.db").exists() else {}
        if states.get("done", 0) >= 1 and states.get("running", 0) >= 1:
            break
        assert time.time() < deadline and load.poll() is None, f"no batch to interrupt: {states}"
        time.sleep(0.2)
    with sqlite3.connect(f"file:{server.out / 'queue.db'}?mode=ro", uri=True) as db:
        done_before = dict(db.execute("SELECT id, result_json FROM jobs WHERE state = 'done'").fetchall())
    server.kill()
    time.sleep(1)
    server.start()
    output = load.communicate(timeout=300)[0]
    assert load.returncode == 0, output
    result = json.loads(figures.read_text())
    assert result["judged"] == 64 and result["lost"] == 0, output
    assert result["connection_retries"] > 0, "the clients never saw the server down"

    with sqlite3.connect(server.out / "queue.db") as db:
        rows = db.execute("SELECT id, key, state, attempts, result_json FROM jobs WHERE key IS NOT NULL").fetchall()
    assert len(rows) == 64 and len({r[1] for r in rows}) == 64  # one job per key, through the retries
    assert all(r[2] == "done" and r[3] <= 2 for r in rows)
    for job_id, _, _, attempts, result_json in rows:
        if job_id in done_before:  # finished before the kill: not run again
            assert attempts == 1 and result_json == done_before[job_id]
    assert sum(r[3] == 2 for r in rows) >= 1  # the interrupted batch ran again
    with sqlite3.connect(server.out / "keval.db") as db:
        total, distinct = db.execute("SELECT count(*), count(DISTINCT eval_key) FROM evaluations").fetchone()
    assert total == distinct


def test_two_lanes_judge_side_by_side_each_in_its_own_folder(tmp_path):
    """--lanes 2: each lane takes batches of its own (one slot each here, its folder OUT/lane-N);
    every job is answered once, and the lanes share the queue and the store."""
    server = Server(tmp_path, "--lanes", "2")
    server.start()
    try:
        assert server.call("GET", "/v1/health", token=False)[1]["lanes"] == 2
        load = subprocess.run(
            [sys.executable, str(REPO / "bench" / "serve_load.py"), "--url", server.url, "--clients", "8",
             "--requests", "2", "--tasks", "vector_add,relu", "--cheap-share", "0.5", "--token-file",
             str(server.token_file), "--deadline", "240"],
            cwd=REPO, capture_output=True, text=True, timeout=300)
        assert load.returncode == 0, load.stdout + load.stderr
        assert "16 of 16 judged" in load.stdout, load.stdout
    finally:
        server.stop()
    assert queue_states(server.out) == {"done": 16}
    with sqlite3.connect(server.out / "keval.db") as db:  # one store for both lanes
        evaluations = [r[0] for r in db.execute("SELECT eval_key FROM evaluations")]
    assert len(evaluations) == len(set(evaluations)) == 16  # no job judged by both lanes
    for lane in ("lane-0", "lane-1"):  # each lane judged batches of its own
        assert (server.out / lane / "results.jsonl").stat().st_size > 0, lane


"""keval_client against a real keval serve (CPU, no timing): typed results and rewards, one job
per idempotency key, refusals naming their field, the asyncio client, retries against a real
flaky HTTP server, and the package installing with pip from the checkout."""
import asyncio
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import sys
import threading

import pytest

from conftest import CLIENT, REPO, TOKEN
from keval_client import (AsyncKevalClient, KevalClient, KevalError, RequestRejected, RetryPolicy,
                          ServerUnavailable, Submission)
from keval_client.transport import Transport

GOLDEN = (REPO / "suites" / "keval" / "vector_add" / "golden.py").read_text()
BROKEN = "import triton\ndef vector_add(x, y:\n    return x\n"


def test_results_are_typed_and_rewarded_under_each_shaping(serve):
    client = KevalClient(serve["url"], TOKEN)
    good, bad = client.evaluate_batch([Submission("vector_add", GOLDEN, key="typed-good", id="good"),
                                       {"task": "vector_add", "code": BROKEN, "key": "typed-bad"}],
                                      timeout_s=300)
    assert (good.state, good.verdict, good.passed, good.task, good.submission_id) == ("done", "pass", True,
                                                                                       "vector_add", "good")
    assert good.speedup is None  # --no-timing: not measured
    assert bad.verdict == "compile_error" and bad.reasons and not bad.passed
    assert [good.reward(s) for s in ("binary", "ladder", "speedup_low", "server")] == [1.0, 0.5, 1.0, 0.5]
    assert [bad.reward(s) for s in ("binary", "ladder", "speedup_low", "server")] == [0.0, -0.5, 0.0, -0.5]
    assert bad.server_reward_rung == "fail:compile_error"
    with pytest.raises(KevalError, match='unknown shaping "fastest"'):
        good.reward("fastest")


def test_one_key_is_one_job_and_another_request_under_it_is_refused(serve):
    client = KevalClient(serve["url"], TOKEN)
    first = client.submit(Submission("vector_add", GOLDEN, key="same-key"))
    assert client.submit(Submission("vector_add", GOLDEN, key="same-key")) == first
    assert client.submit_batch([Submission("vector_add", GOLDEN, key="same-key")]) == [first]
    with pytest.raises(RequestRejected) as refused:
        client.submit(Submission("vector_add", BROKEN, key="same-key"))
    assert (refused.value.status, refused.value.field) == (409, "key")
    assert client.wait([first], timeout_s=300)[0].verdict == "pass"


def test_refusals_name_their_field_and_are_not_retried(serve):
    calls = []
    client = KevalClient(serve["url"], TOKEN, sleep=calls.append)
    with pytest.raises(RequestRejected) as refused:
        client.submit(Submission("vector_ad", GOLDEN))
    assert (refused.value.status, refused.value.field) == (422, "task")
    assert "vector_add" in str(refused.value)  # the near miss
    with pytest.raises(RequestRejected) as unauthorised:
        KevalClient(serve["url"], "wrong").submit(Submission("vector_add", GOLDEN))
    assert unauthorised.value.status == 401
    assert calls == []


def test_asyncio_client_judges_a_batch(serve):
    async def judge():
        async with AsyncKevalClient(serve["url"], TOKEN) as client:
            one = await client.evaluate(Submission("relu", BROKEN, key="async-one"), timeout_s=300)
            batch = await client.evaluate_batch([Submission("vector_add", GOLDEN, key=f"async-{i}", id=str(i))
                                                 for i in range(3)], timeout_s=300)
            return one, batch
    one, batch = asyncio.run(judge())
    assert one.verdict == "compile_error"
    assert [(r.submission_id, r.verdict) for r in batch] == [("0", "pass"), ("1", "pass"), ("2", "pass")]


class Flaky(http.server.BaseHTTPRequestHandler):
    """Answers from a script of (status, headers) and then 200, counting requests."""
    script: list = []
    seen: list = []

    def do_GET(self):
        Flaky.seen.append(self.path)
        status, headers = Flaky.script.pop(0) if Flaky.script else (200, {})
        body = json.dumps({"status": "ok"} if status == 200 else {"error": f"HTTP {status}", "field": "server"})
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture()
def flaky():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Flaky.seen = []
    yield server
    server.shutdown()


def test_5xx_and_429_are_retried_after_backoff_and_retry_after(flaky):
    Flaky.script = [(503, {}), (429, {"Retry-After": "2"}), (500, {})]
    waits = []
    transport = Transport(f"http://127.0.0.1:{flaky.server_address[1]}",
                          retry=RetryPolicy(max_attempts=4, backoff_s=0.5), sleep=waits.append)
    assert transport.call("GET", "/v1/health") == (200, {"status": "ok"})
    assert len(Flaky.seen) == 4
    assert 0.25 <= waits[0] <= 0.5 and waits[1] == 2.0 and 1.0 <= waits[2] <= 2.0  # jittered doubling


def test_gives_up_after_max_attempts(flaky):
    Flaky.script = [(503, {})] * 10
    transport = Transport(f"http://127.0.0.1:{flaky.server_address[1]}", retry=RetryPolicy(max_attempts=3),
                          sleep=lambda s: None)
    with pytest.raises(ServerUnavailable, match="gave up after 3 attempts"):
        transport.call("GET", "/v1/health")
    assert len(Flaky.seen) == 3


def test_installs_with_pip_from_the_checkout(tmp_path):
    target, source = tmp_path / "site", tmp_path / "source"
    shutil.copytree(CLIENT, source, ignore=shutil.ignore_patterns("__pycache__"))  # the build leaves files
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
                    "--no-index", "--target", str(target), str(source)], check=True, timeout=300,
                   env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    where = subprocess.run([sys.executable, "-c", "import keval_client; print(keval_client.__file__)"],
                           cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(target)}, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert pathlib.Path(where).is_relative_to(target)

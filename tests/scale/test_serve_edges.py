"""keval serve at its edges, with real sockets and a real server in CPU mode: metrics labels
that a path cannot forge, long polls that cannot hold every HTTP thread, curl's form-encoded
JSON above 8 KB, the token checked before 100 Continue, one server per --out, a bound on the
connections held at once."""
import json
import select
import socket
import subprocess
import threading
import time
import urllib.request

from conftest import KEVAL, REPO, keval_env
from test_serve import TOKEN, Server, example


def raw_exchange(port, request, read_until=b"\r\n\r\n"):
    """Sends `request` as is and returns what came back up to `read_until` (or the close)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(request)
        got = b""
        while read_until not in got:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        return got


def test_a_raw_path_never_becomes_a_metrics_label(tmp_path):
    server = Server(tmp_path)
    server.start()
    try:
        reply = raw_exchange(server.port, b"GET /x%22%7D%201%0Ainjected_total%7Ba%3D%22b%22%7D%209 HTTP/1.1\r\n"
                                          b"Host: x\r\nConnection: close\r\n\r\n")
        assert reply.startswith(b"HTTP/1.1 401"), reply  # no token: refused, and still counted
        status, metrics = server.call("GET", "/metrics", token=False)
        assert status == 200
        assert "injected_total" not in metrics, metrics
        assert 'keval_http_requests_total{route="GET unrouted",code="401"} 1' in metrics
        server.call("GET", "/v1/jobs/abc")
        server.call("GET", "/v1/jobs/def")
        assert 'route="GET /v1/jobs/{id}",code="404"} 2' in server.call("GET", "/metrics", token=False)[1]
    finally:
        server.stop()


def test_the_documented_curl_example_works_above_8_kb(tmp_path):
    """curl -d sends application/x-www-form-urlencoded; httplib parsed that as a form, 8 KB at most."""
    server = Server(tmp_path)
    server.start()
    try:
        body = tmp_path / "body.json"
        body.write_text(json.dumps({"task": "rleu", "code": "x = 1\n" * 4000, "id": "big"}))  # 24 KB
        assert body.stat().st_size > 20000
        out = subprocess.run(
            ["curl", "-s", "-H", f"Authorization: Bearer {TOKEN}", "-d", f"@{body}", "-w", "\n%{http_code}",
             f"{server.url}/v1/evaluate?wait=0"], capture_output=True, text=True, timeout=60)
        text, code = out.stdout.rsplit("\n", 1)
        assert code == "422", out.stdout  # read to its end and judged as JSON: the task is misspelt
        assert json.loads(text)["field"] == "task"
    finally:
        server.stop()


def test_the_token_is_checked_before_100_continue(tmp_path):
    server = Server(tmp_path)
    server.start()
    try:
        head = (b"POST /v1/evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Expect: 100-continue\r\nContent-Length: 50000\r\n")
        wrong = raw_exchange(server.port, head + b"Authorization: Bearer nope\r\n\r\n")
        assert wrong.startswith(b"HTTP/1.1 401"), wrong
        assert b"100 Continue" not in wrong
        right = raw_exchange(server.port, head + f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())
        assert right.startswith(b"HTTP/1.1 100 Continue"), right
        too_big = raw_exchange(server.port, head.replace(b"50000", b"900000") + f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())
        assert too_big.startswith(b"HTTP/1.1 413"), too_big
    finally:
        server.stop()


def test_long_polls_on_every_thread_leave_health_answered(tmp_path):
    """4 HTTP threads, 4 clients long-polling a job that takes 20 s: before, /v1/health waited for
    them; now at most 2 wait and the others are answered at once with the job's state."""
    server = Server(tmp_path, "--http-threads", "4", "--timeout", "20")
    server.start()
    try:
        slow = dict(example("relu_correct"), id="sleeper", code="import time\ntime.sleep(120)\n")
        status, queued = server.call("POST", "/v1/evaluate?wait=0", slow)
        assert status == 202, queued
        answers = []

        def poll():
            t0 = time.time()
            status, answer = server.call("GET", f"/v1/jobs/{queued['id']}?wait=40")
            answers.append((time.time() - t0, status, answer.get("state")))

        polls = [threading.Thread(target=poll) for _ in range(4)]
        for p in polls:
            p.start()
        t0 = time.time()
        with urllib.request.urlopen(server.url + "/v1/health", timeout=60) as resp:
            assert resp.status == 200
        assert time.time() - t0 < 10, "health waited for the long polls"
        assert server.call("GET", f"/v1/jobs/{queued['id']}")[1]["state"] in ("queued", "running")
        for p in polls:
            p.join(timeout=120)
        quick = [a for a in answers if a[2] in ("queued", "running")]
        assert len(answers) == 4 and len(quick) >= 2, answers
    finally:
        server.stop()


def test_a_second_server_on_the_same_out_is_refused_in_one_line(tmp_path):
    first = Server(tmp_path)
    first.start()
    try:
        second = Server(tmp_path)  # the same --out, another port
        proc = subprocess.run(
            [KEVAL, "serve", "--suite", "suites/keval", "--port", str(second.port), "--device", "cpu",
             "--out", str(first.out), "--no-timing"],
            cwd=REPO, env=keval_env(), capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0
        assert proc.stderr.strip() == (f"keval: {first.out} is in use by another keval run (pid {first.proc.pid}); "
                                       "wait for it to finish or choose another --out"), proc.stderr
        assert first.call("GET", "/v1/health", token=False)[0] == 200
    finally:
        first.stop()


def test_answers_name_no_folder_of_the_machine(tmp_path):
    """The suite in /v1/health is its name; a job that fails for want of a runner (a Python that
    exits at once) names its log relative to --out."""
    python = tmp_path / "no-python"
    python.write_text("#!/bin/sh\nexit 1\n")
    python.chmod(0o755)
    server = Server(tmp_path, "--python", python)
    server.start()
    try:
        assert server.call("GET", "/v1/health", token=False)[1]["suite"] == "keval"
        status, answer = server.call("POST", "/v1/evaluate?wait=120", example("relu_correct"))
        assert status == 200 and answer["state"] == "failed", answer
        assert str(tmp_path) not in answer["error"] and str(REPO) not in answer["error"], answer["error"]
    finally:
        server.stop()


def test_idle_and_slowloris_connections_leave_requests_answered(tmp_path):
    """4 HTTP threads, 24 sockets that connect and say nothing and 24 that send a request's
    headers a line every 2 s: before, a slow one held its thread as long as it kept sending (each
    read waited 30 s) and /v1/health waited behind them all; now a connection without its whole
    headers 10 s after connecting is shut, and health is answered meanwhile."""
    server = Server(tmp_path, "--http-threads", "4")
    server.start()
    stop = threading.Event()
    idle, slow = [], []
    dripper = threading.Thread(target=lambda: None)
    try:
        for _ in range(24):
            idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=30))
        for _ in range(24):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
            slow.append(s)

        def drip():
            while not stop.wait(2):
                for s in slow:
                    try:
                        s.sendall(b"X-Slow: 1\r\n")
                    except OSError:
                        pass  # shut by the server

        dripper = threading.Thread(target=drip)
        dripper.start()
        t0 = time.time()
        with urllib.request.urlopen(server.url + "/v1/health", timeout=90) as resp:
            assert resp.status == 200
        took = time.time() - t0
        assert took < 60, f"health took {took:.0f} s behind idle connections"
        # every idle and slow connection was shut by the server: reading it ends
        for s in idle + slow:
            s.settimeout(60)
            try:
                while s.recv(4096):
                    pass
            except ConnectionResetError:
                pass
    finally:
        stop.set()
        if dripper.is_alive():
            dripper.join(timeout=30)
        for s in idle + slow:
            s.close()
        server.stop()


def read_to_the_end(s, timeout=90):
    """What the server sent until it closed the connection."""
    s.settimeout(timeout)
    got = b""
    while chunk := s.recv(4096):
        got += chunk
    return got


def metric(server, name):
    status, text = server.call("GET", "/metrics", token=False)
    assert status == 200, text
    values = [line.split()[1] for line in text.splitlines() if line.startswith(name + " ")]
    assert values, f"no {name} in /metrics"
    return float(values[0])


def test_connections_over_the_limit_are_refused_and_those_held_go_on(tmp_path):
    """8 HTTP threads and --max-connections 6: six long polls hold every connection, so a seventh
    connection's POST is answered 503 at once with one line saying why (before, it queued for a
    thread, and connections were bounded only by the open-file limit), /v1/health and /metrics
    are still answered, the polls get their answers, and then requests are served again. Every
    wait is on the server's state, with a deadline far from any scheduling delay."""
    server = Server(tmp_path, "--http-threads", "8", "--max-connections", "6", "--timeout", "90")
    server.start()
    polls = []
    try:
        slow = dict(example("relu_correct"), id="sleeper", code="import time\ntime.sleep(600)\n")
        status, queued = server.call("POST", "/v1/evaluate?wait=0", slow)
        assert status == 202, queued
        poll = (f"GET /v1/jobs/{queued['id']}?wait=30 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
                "Connection: close\r\n\r\n").encode()

        def send_poll():
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(poll)
            return s

        polls = [send_poll() for _ in range(6)]
        # A connection that ended just before (this test's own requests) may still have been
        # counted when a poll came: that poll was refused, and is sent again.
        deadline = time.monotonic() + 120
        while metric(server, "keval_requests_waiting") < 6:
            assert time.monotonic() < deadline, "the six polls never all waited"
            for i, s in enumerate(polls):
                if select.select([s], [], [], 0)[0]:
                    answer = read_to_the_end(s)
                    assert answer.startswith(b"HTTP/1.1 503"), answer
                    s.close()
                    polls[i] = send_poll()
            time.sleep(0.2)

        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
            body = json.dumps(example("relu_correct")).encode()
            s.sendall(b"POST /v1/evaluate?wait=0 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      + f"Authorization: Bearer {TOKEN}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            refused = read_to_the_end(s, timeout=30)  # answered and closed by the server, not left waiting
        head, _, text = refused.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503"), refused
        assert b"Retry-After: 1" in head, head
        assert text.count(b"\n") == 1, text  # one line
        error = json.loads(text)
        assert "too many connections" in error["error"] and "6" in error["error"], error
        assert error["field"] == "connection"

        status, health = server.call("GET", "/v1/health", token=False)
        assert status == 200 and health["status"] == "ok", health
        assert metric(server, "keval_http_connections") == 6
        assert metric(server, "keval_http_connections_refused_total") >= 1

        for s in polls:  # the connections held were not hurt: each poll is answered at its wait's end
            answer = read_to_the_end(s)
            assert answer.startswith(b"HTTP/1.1 200"), answer
            assert json.loads(answer.partition(b"\r\n\r\n")[2])["state"] in ("queued", "running"), answer
        deadline = time.monotonic() + 60
        while (status := server.call("GET", f"/v1/jobs/{queued['id']}")[0]) == 503:
            assert time.monotonic() < deadline, "connections stayed counted after their polls ended"
            time.sleep(0.2)
        assert status == 200
    finally:
        for s in polls:
            s.close()
        server.kill()  # its job sleeps until --timeout: nothing of it needs to end well

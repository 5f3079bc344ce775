"""keval serve's --max-connections against its file-descriptor limit, with real servers started
under `prlimit --nofile`: a bound the limit cannot hold is refused at start in one line, the
default bound is clamped to the limit (and the server says so), a soft limit below the hard one
is raised first, and a server holding every connection its limit allows still answers
/v1/health."""
import os
import re
import socket
import subprocess
import time
import urllib.request

from conftest import KEVAL, REPO, keval_env
from test_serve import free_port

LOW = 256  # descriptors: room for fewer connections than the default bound of 512


def serve(tmp_path, nofile, *extra, log_name="serve.log"):
    """keval serve under `prlimit --nofile=nofile` (SOFT:HARD); its stderr goes to a file."""
    port = free_port()
    log = tmp_path / log_name
    proc = subprocess.Popen(
        ["prlimit", f"--nofile={nofile}", "--", KEVAL, "serve", "--suite", "suites/keval", "--port", str(port),
         "--device", "cpu", "--out", str(tmp_path / "serve"), "--no-timing", "--jobs", "2", *map(str, extra)],
        cwd=REPO, env=keval_env(), stdout=subprocess.DEVNULL, stderr=open(log, "wb"))
    return proc, port, log


def health(port, timeout=30):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=timeout) as resp:
        return resp.status


def wait_up(proc, port, log):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"keval serve exited {proc.returncode}:\n{log.read_text()}"
        try:
            if health(port, timeout=5) == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("keval serve did not come up:\n" + log.read_text())


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def metric(port, name):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as resp:
        text = resp.read().decode()
    return int(float(next(line.split()[1] for line in text.splitlines() if line.startswith(name + " "))))


def soft_and_hard(pid):
    limits = open(f"/proc/{pid}/limits").read()
    line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
    return tuple(int(v) for v in line.split()[3:5])


def test_a_bound_over_the_limit_is_refused_at_start_in_one_line(tmp_path):
    proc, _, log = serve(tmp_path, f"{LOW}:{LOW}", "--max-connections", 1000)
    assert proc.wait(timeout=60) == 1
    error = log.read_text().strip()
    assert len(error.splitlines()) == 1, error
    assert error.startswith("keval: --max-connections 1000 needs "), error
    assert f"over the limit of {LOW} (ulimit -n)" in error, error
    largest = int(re.search(r"give --max-connections (\d+) or less", error).group(1))
    assert 0 < largest < LOW
    assert not (tmp_path / "serve" / "queue.db").exists(), "refused before it queued anything"

    # the largest bound it named starts
    proc, port, log = serve(tmp_path, f"{LOW}:{LOW}", "--max-connections", largest, log_name="again.log")
    try:
        wait_up(proc, port, log)
        assert metric(port, "keval_http_connections_max") == largest
    finally:
        stop(proc)


def test_the_default_bound_is_clamped_and_a_server_at_its_limit_answers_health(tmp_path):
    proc, port, log = serve(tmp_path, f"{LOW}:{LOW}")
    held = []
    try:
        wait_up(proc, port, log)
        note = log.read_text()
        found = re.search(r"keval serve: holding at most (\d+) connections, not the default 512 "
                          rf"\(--max-connections\): the file-descriptor limit of {LOW} \(ulimit -n\)", note)
        assert found, note
        bound = int(found.group(1))
        assert metric(port, "keval_http_connections_max") == bound
        # every connection the bound allows, held open and silent
        held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(bound)]
        deadline = time.monotonic() + 60
        while metric(port, "keval_http_connections") < bound:
            assert time.monotonic() < deadline, "the held connections were never all counted"
            time.sleep(0.1)
        assert health(port) == 200
        assert len(os.listdir(f"/proc/{proc.pid}/fd")) < LOW
        assert proc.poll() is None
    finally:
        for s in held:
            s.close()
        stop(proc)


def test_a_soft_limit_below_the_hard_one_is_raised_and_nothing_is_clamped(tmp_path):
    proc, port, log = serve(tmp_path, "128:4096")
    try:
        wait_up(proc, port, log)
        assert soft_and_hard(proc.pid) == (4096, 4096)
        assert metric(port, "keval_http_connections_max") == 512
        assert "holding at most" not in log.read_text()
    finally:
        stop(proc)

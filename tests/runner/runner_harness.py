"""Test harness: starts the real runner as the controller does and talks JSON lines to it."""

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

# Tests that import keval_runner / triton in-process need the interpreter too.
os.environ.setdefault("TRITON_INTERPRET", "1")

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RUNNER_DIR = os.path.join(REPO, "runner")
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
TASK_DIR = os.path.join(FIXTURES, "tasks", "vec_add")
CANDIDATES = os.path.join(FIXTURES, "candidates")

if RUNNER_DIR not in sys.path:
    sys.path.insert(0, RUNNER_DIR)

from keval_runner.protocol.schema_check import SchemaChecker  # noqa: E402  (after the path)

MESSAGES_SCHEMA_PATH = os.path.join(RUNNER_DIR, "keval_runner", "protocol", "messages.schema.json")
with open(MESSAGES_SCHEMA_PATH, encoding="utf-8") as _f:
    MESSAGES_SCHEMA = json.load(_f)
_MESSAGES = SchemaChecker(MESSAGES_SCHEMA, name="message")


def message_problem(message) -> str:
    """Why a message does not follow the protocol's schema, or ""."""
    return _MESSAGES.first_problem(message)

MESSAGE_TIMEOUT_S = 30
# Set in every test runner's environment: a sandboxed job must never see it.
SECRET_ENV = ("KEVAL_TEST_SECRET", "do-not-leak-7f3a")


def candidate_file(name: str) -> str:
    return os.path.join(CANDIDATES, name + ".py")


def case(name="odd", n=1000, dtype="float32", seeds=(1, 2), atol=1e-6, rtol=1e-6) -> dict:
    return {"name": name, "params": {"n": n}, "dtype": dtype, "seeds": list(seeds), "atol": atol, "rtol": rtol}


def runner_env(interpret=True) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (RUNNER_DIR, env.get("PYTHONPATH", "")) if p)
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    else:  # a GPU runner: kernels are compiled
        env.pop("TRITON_INTERPRET", None)
    env[SECRET_ENV[0]] = SECRET_ENV[1]
    return env


class RunnerSeed:
    """`python -m keval_runner --seed`, spoken to as the controller does (runner_seed.h): it
    imports torch once and forks a zygote for each spawn request."""

    def __init__(self, interpret=True):
        self.stderr = tempfile.TemporaryFile()
        self.channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.proc = subprocess.Popen([sys.executable, "-m", "keval_runner", "--seed"], stdin=theirs,
                                     stdout=subprocess.DEVNULL, stderr=self.stderr, env=runner_env(interpret))
        theirs.close()
        self.channel.settimeout(120)
        self.ready = self.receive()
        assert self.ready["type"] == "ready", self.ready

    def receive(self) -> dict:
        return json.loads(self.channel.recv(65536))

    def spawn(self, stdin_fd: int, protocol_fd: int, log_fd: int) -> dict:
        socket.send_fds(self.channel, [b'{"op": "spawn"}'], [stdin_fd, protocol_fd, log_fd])
        return self.receive()

    def close(self) -> int:
        self.channel.close()
        return self.proc.wait(timeout=30)


class SeededZygote:
    """A zygote the seed forked, with what the tests use of subprocess.Popen. The seed reaps
    it, so its exit code is not ours: wait() says only that it has gone."""

    def __init__(self, seed: RunnerSeed, stderr):
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        reply = seed.spawn(stdin_read, stdout_write, stderr.fileno())
        for fd in (stdin_read, stdout_write):
            os.close(fd)
        assert reply["type"] == "spawned", reply
        self.pid = reply["pid"]
        self.stdin = os.fdopen(stdin_write, "wb")
        self.stdout = os.fdopen(stdout_read, "rb")

    def poll(self):
        try:
            os.kill(self.pid, 0)
            return None
        except ProcessLookupError:
            return 0

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"zygote {self.pid}", timeout)
            time.sleep(0.02)

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class RunnerProcess:
    """A zygote, forked by `seed` or else exec'd as `python -m keval_runner`, with a reader
    thread; every stdout line must be JSON, and every message must follow the protocol's schema
    (the fixtures check `off_schema` at the end)."""

    def __init__(self, interpret=True, seed=None):
        self.stderr = tempfile.TemporaryFile()
        if seed is not None:
            self.proc = SeededZygote(seed, self.stderr)
        else:
            self.proc = subprocess.Popen([sys.executable, "-m", "keval_runner"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.stderr, env=runner_env(interpret))
        self.messages = queue.Queue()
        self.bad_lines = []
        self.off_schema = []  # (problem, message) of each message the schema does not allow
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.ready = self.next(timeout=60)

    def _read(self):
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
                if not isinstance(message, dict):
                    raise ValueError("not an object")
            except ValueError:
                self.bad_lines.append(raw)
                continue
            problem = message_problem(message)
            if problem:
                self.off_schema.append((problem, message))
            self.messages.put(message)
        self.messages.put(None)  # EOF

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, request: dict) -> None:
        self.send_raw((json.dumps(request) + "\n").encode())

    def next(self, timeout=MESSAGE_TIMEOUT_S):
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message from the runner within {timeout}s; stderr:\n{self.stderr_text()}")

    def until_exit(self, job: str, timeout=MESSAGE_TIMEOUT_S) -> list:
        """Messages up to and including this job's `exit`."""
        collected = []
        while True:
            message = self.next(timeout)
            assert message is not None, f"runner closed its stdout; got {collected}"
            collected.append(message)
            if message["type"] == "exit" and message["job"] == job:
                return collected

    def run(self, request: dict) -> list:
        self.send(request)
        return self.until_exit(request["job"])

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")[-4000:]

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                return self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait()


class Jobs:
    """Builds run requests with per-test folders and unique job ids."""

    counter = 0

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.outputs_dir = str(tmp_path / "outputs")

    def in_folder(self, folder) -> "Jobs":
        """Jobs whose work and output folders lie in `folder` (e.g. one a test uid can reach)."""
        import pathlib
        return Jobs(pathlib.Path(folder))

    def _job(self, prefix):
        Jobs.counter += 1
        return f"{prefix}{Jobs.counter}"

    def candidate(self, name_or_path, cases=None, timing=None, determinism=False, entry="vector_add",
                  task_dir=TASK_DIR, sandbox=None, checks=None, device="cpu") -> dict:
        job = self._job("c")
        path = name_or_path if os.path.isabs(name_or_path) else candidate_file(name_or_path)
        request = {"op": "run", "job": job, "kind": "candidate", "device": device, "gpu": 0,
                   "task_dir": task_dir, "entry": entry, "code_file": path,
                   "outputs_dir": self.outputs_dir, "work_dir": str(self.tmp_path / job),
                   "inplace": False, "cases": cases if cases is not None else [case()],
                   "timing": timing or {"enabled": False}, "check_determinism": determinism}
        if sandbox is not None:
            request["sandbox"] = sandbox
        if checks is not None:
            request["checks"] = checks
        return request

    def reference(self, cases=None, task_dir=TASK_DIR, device="cpu") -> dict:
        job = self._job("r")
        return {"op": "run", "job": job, "kind": "reference", "device": device, "gpu": 0,
                "task_dir": task_dir, "entry": "vector_add", "outputs_dir": self.outputs_dir,
                "work_dir": str(self.tmp_path / job), "inplace": False,
                "cases": cases if cases is not None else [case()],
                "timing": {"enabled": False}, "check_determinism": False}


def of_type(messages: list, type_: str) -> list:
    return [m for m in messages if m["type"] == type_]


def only(messages: list, type_: str) -> dict:
    found = of_type(messages, type_)
    assert len(found) == 1, f"expected one {type_!r} message, got {len(found)}: {messages}"
    return found[0]


def sandbox_settings(uid=None, isolate_network=False, rlimits=None, stdout_cap_bytes=None, env=None) -> dict:
    return {"enabled": True, "uid": uid, "gid": uid, "isolate_network": isolate_network,
            "rlimits": rlimits or {}, "stdout_cap_bytes": stdout_cap_bytes, "env": env or {}}


def all_checks(**overrides) -> dict:
    settings = {"guard_bytes": 64, "poison_outputs": True, "tamper": True, "timed_output_check": True,
                "profile_kernels": True}
    settings.update(overrides)
    return settings


def work_file(request: dict, name: str) -> str:
    with open(os.path.join(request["work_dir"], name), errors="replace") as f:
        return f.read()

"""The zygote: imports torch and triton once, then forks one child per job.

It never touches CUDA (a forked child could not use a CUDA context made by its parent),
handles one job at a time, and is the only writer of the protocol stream: its own stdout
(fd 1) is pointed at stderr right away and the protocol goes to a private duplicate, so
no library print can corrupt it.
"""

import json
import os
import platform
import sys

from .messages import MessageWriter, clip, write_all

REQUIRED_RUN_FIELDS = ("kind", "task_dir", "outputs_dir", "work_dir", "cases")


def _import_toolkit():
    """Everything the children need, loaded once here so a fork starts warm."""
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")  # availability checks never init CUDA
    import numpy  # noqa: F401
    import torch
    import triton
    import triton.language  # noqa: F401
    try:
        import triton.runtime.interpreter  # noqa: F401  (CPU mode)
    except Exception:
        pass
    from . import candidate_job, child, probe, reference_job  # noqa: F401
    return torch, triton


def request_problem(request) -> str:
    """Why a request cannot be served, or "" when it can."""
    if not isinstance(request, dict):
        return "a request must be a JSON object"
    op = request.get("op")
    if op not in ("probe", "run", "shutdown"):
        return f"unknown op {op!r} (expected probe, run or shutdown)"
    if op == "shutdown":
        return ""
    if not isinstance(request.get("job"), str) or not request["job"]:
        return "a probe/run request needs a non-empty string 'job'"
    if op == "run":
        missing = [f for f in REQUIRED_RUN_FIELDS if f not in request]
        if request.get("kind") == "candidate" and "code_file" not in request:
            missing.append("code_file")
        if missing:
            return "run request lacks: " + ", ".join(missing)
    return ""


class Zygote:
    def __init__(self, protocol_fd: int):
        self.protocol_fd = protocol_fd

    def writer(self, job: str) -> MessageWriter:
        return MessageWriter(self.protocol_fd, job)

    def protocol_error(self, job: str, kind: str, message: str) -> None:
        self.writer(job).error("protocol", kind, message, error_class=kind)

    def forward(self, read_fd: int, job: str) -> None:
        """Copies the child's complete JSON lines to the protocol stream until EOF."""
        pending = b""
        while True:
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self.forward_line(line, job)
        if pending.strip():
            self.protocol_error(job, "TruncatedMessage",
                                "the child died while writing a message: " + clip(pending.decode("utf-8", "replace"), 200))

    def forward_line(self, line: bytes, job: str) -> None:
        if not line.strip():
            return
        try:
            message = json.loads(line)
            valid = isinstance(message, dict) and message.get("job") == job and "type" in message
        except ValueError:
            valid = False
        if valid:
            write_all(self.protocol_fd, line + b"\n")
        else:  # something other than the runner wrote into the message pipe
            self.protocol_error(job, "BadChildMessage", clip(line.decode("utf-8", "replace"), 200))

    def run_job(self, request: dict) -> None:
        from .child import run_child

        job = request["job"]
        message_read, message_write = os.pipe()
        sync_read, sync_write = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # or the child would inherit and repeat buffered text
        pid = os.fork()
        if pid == 0:
            os.close(message_read)
            os.close(sync_read)
            run_child(request, message_write, sync_write, close_fds=(self.protocol_fd,))
        os.close(message_write)
        os.close(sync_write)
        os.read(sync_read, 1)  # returns once the child has its own process group (or died)
        os.close(sync_read)
        self.writer(job).send("started", pid=pid)
        try:
            self.forward(message_read, job)
        finally:
            os.close(message_read)
            _, status = os.waitpid(pid, 0)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        signal = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        self.writer(job).send("exit", code=code, signal=signal)

    def handle(self, raw: bytes) -> bool:
        """Serves one request line; returns False on shutdown."""
        if not raw.strip():
            return True
        try:
            request = json.loads(raw)
        except ValueError as exc:
            self.protocol_error("", "BadRequest", f"not JSON ({exc}): {clip(raw.decode('utf-8', 'replace'), 200)}")
            return True
        problem = request_problem(request)
        if problem:
            job = request.get("job") if isinstance(request, dict) and isinstance(request.get("job"), str) else ""
            self.protocol_error(job, "BadRequest", problem)
            return True
        if request["op"] == "shutdown":
            return False
        try:
            self.run_job(request)
        except OSError as exc:  # fork or pipe failed: the job did not run
            self.writer(request["job"]).error("runner", type(exc).__name__, str(exc), error_class=type(exc).__name__)
        return True


def main() -> int:
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints in this process land on stderr, never in the protocol
    torch, triton = _import_toolkit()
    zygote = Zygote(protocol_fd)
    zygote.writer("").send("ready", pid=os.getpid(), python=platform.python_version(),
                           torch=torch.__version__, triton=triton.__version__)
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            return 0  # the controller closed our stdin
        if not zygote.handle(raw):
            return 0

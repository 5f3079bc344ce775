"""The zygote: imports torch and triton once, then forks one child per job.

It never touches CUDA (a forked child could not use a CUDA context made by its parent),
handles one job at a time, and is the only writer of the protocol stream: its own stdout
(fd 1) is pointed at stderr right away and the protocol goes to a private duplicate, so
no library print can corrupt it.
"""

import importlib
import json
import os
import platform
import selectors
import signal
import sys
import time

from .sandbox import sandbox
from .protocol.messages import MessageWriter, clip, write_all
from .protocol.request_check import request_problem
from .protocol.request_lines import RequestLines

DRAIN_SECONDS = 2.0  # after the clean-up, how long output still in the pipes is read

# Types only the zygote sends: a child's line claiming one is not forwarded (the controller
# would take a forged `exit` for the job's end, a forged `started` for the group to kill).
ZYGOTE_TYPES = ("ready", "started", "exit")


def _preload_compile(torch) -> None:
    """torch.compile's modules, imported once here when the run has a torch.compile baseline:
    each timing job would otherwise import them again (seconds) while it holds the GPU's
    device gate.
    Compiles stay in the job's process (no worker pool: the sandbox limits processes)."""
    try:
        import torch._dynamo  # noqa: F401
        import torch._inductor.compile_fx  # noqa: F401
        import torch._inductor.config as inductor_config

        inductor_config.compile_threads = 1
    except Exception as exc:
        print(f"keval_runner: torch.compile preload failed: {exc!r}", file=sys.stderr)


def import_toolkit():
    """Everything the children need, loaded once here so a fork starts warm."""
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")  # availability checks never init CUDA
    import numpy  # noqa: F401
    import torch
    import triton
    import triton.language  # noqa: F401
    optional = ["torch.profiler",  # kernel profiles
                # Its import rebinds torch.manual_seed (wrapped so Dynamo skips it); later, in a
                # job, that would look like a submission replacing it (the guest's snapshot of
                # torch's names).
                "torch._dynamo"]
    if os.environ.get("TRITON_INTERPRET") == "1":  # CPU mode only: 1.3 s of a 5.8 s start here
        optional += ["triton.runtime.interpreter", "ml_dtypes"]  # ml_dtypes: its bfloat16
    for name in optional:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    import resource  # noqa: F401  (the sandbox's limits)
    if os.environ.get("KEVAL_PRELOAD_COMPILE") == "1":
        _preload_compile(torch)
    from .jobs import candidate_job, child, probe, reference_job  # noqa: F401
    from .checks import checks, kernel_profile  # noqa: F401
    from .timing import rotation  # noqa: F401
    from .sandbox import sandbox  # noqa: F401
    from .warm_up import warm_up
    warm_up(torch)
    return torch, triton


class OutputSink:
    """One of the child's output streams (fd 1 or 2): counts every byte, keeps up to `cap`."""

    def __init__(self, target_fd, cap):
        self.target_fd = target_fd  # a file in work_dir (ours), the zygote's stderr, or None
        self.cap = cap  # None: keep everything
        self.total = 0
        self.kept = 0

    def take(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = len(chunk) if self.cap is None else max(0, min(len(chunk), self.cap - self.kept))
        if room and self.target_fd is not None:
            try:
                write_all(self.target_fd, chunk[:room])
            except OSError:
                self.target_fd = None  # the disk is full or the file is gone: keep counting
            self.kept += room

    @property
    def truncated(self) -> bool:
        return self.kept < self.total


# While a job runs, how often the zygote checks that the controller is still there (a backstop:
# the controller's death reaches it as SIGTERM, see leave_orphaned).
ORPHAN_CHECK_SECONDS = 1.0


class Zygote:
    def __init__(self, protocol_fd: int, parent_pid: int):
        self.protocol_fd = protocol_fd
        # the controller, or the seed that forked us (seed.py), which lives exactly as long
        self.controller_pid = parent_pid
        self.job_pid = None  # the running job's child, also its process group; None between jobs
        self.sweep_uid = None
        self.request_lines = None  # set by serve(); a forked job zeroes the line it came from
        from .inputs.shared_inputs import SharedInputs  # imports torch: only after import_toolkit

        self.shared_inputs = SharedInputs()

    def writer(self, job: str) -> MessageWriter:
        return MessageWriter(self.protocol_fd, job)

    def protocol_error(self, job: str, kind: str, message: str) -> None:
        self.writer(job).error("protocol", kind, message, error_class=kind)

    def forward_line(self, line: bytes, job: str) -> None:
        if not line.strip():
            return
        try:
            message = json.loads(line)
            valid = (isinstance(message, dict) and message.get("job") == job and "type" in message
                     and message["type"] not in ZYGOTE_TYPES)
        except ValueError:
            valid = False
        if valid:
            write_all(self.protocol_fd, line + b"\n")
        else:  # something other than the runner wrote into the message pipe
            self.protocol_error(job, "BadChildMessage", clip(line.decode("utf-8", "replace"), 200))

    def leave_orphaned(self, *_signal) -> None:
        """The controller is gone (killed, crashed): nobody will kill the running job at its
        deadline, and it may hold a GPU. Ends the job, its group and what it left, then the
        zygote. The SIGTERM handler: the zygote gets SIGTERM when the controller, or the seed
        that forked it, dies (PR_SET_PDEATHSIG)."""
        pid = self.job_pid
        if pid is not None:
            try:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, PermissionError, ChildProcessError):
                pass
        sandbox.kill_leftovers(pid, self.sweep_uid)
        os._exit(0)

    # -- one job ---------------------------------------------------------------------------

    @staticmethod
    def _open_output_files(request: dict):
        """stdout.txt/stderr.txt, opened here before the fork (never through a link the job made)."""
        work_dir = request.get("work_dir")
        if not work_dir:
            return None, None  # a probe: its prints go to the zygote's stderr
        os.makedirs(work_dir, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        return (os.open(os.path.join(work_dir, "stdout.txt"), flags, 0o644),
                os.open(os.path.join(work_dir, "stderr.txt"), flags, 0o644))

    def _pump(self, pid: int, job: str, pipes: dict, sinks: dict) -> int:
        """Forwards messages and collects output until the child exits; returns its wait status.

        The child is reaped only after it is seen to exit (pidfd, or waitid with WNOWAIT), and
        the pipes are drained afterwards (the clean-up closes the copies grandchildren hold)."""
        pending = {"message": b""}
        selector = selectors.DefaultSelector()
        for name, fd in pipes.items():
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ, name)
        pidfd = None
        try:
            pidfd = os.pidfd_open(pid)
            selector.register(pidfd, selectors.EVENT_READ, "exit")
        except (AttributeError, OSError):
            pidfd = None

        def read(name, fd):
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                selector.unregister(fd)
                del pipes[name]
                os.close(fd)  # or every later job, its guest too, holds it
                return
            if name == "message":
                data = pending["message"] + chunk
                *lines, pending["message"] = data.split(b"\n")
                for line in lines:
                    self.forward_line(line, job)
            else:
                sinks[name].take(chunk)

        def exited():
            try:
                return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:
                return True

        try:
            while True:
                fired = pidfd is None
                for key, _ in selector.select(timeout=ORPHAN_CHECK_SECONDS if pidfd is not None else 0.05):
                    if key.data == "exit":
                        fired = True
                    else:
                        read(key.data, key.fd)
                if fired and exited():
                    break
                if os.getppid() != self.controller_pid:
                    self.leave_orphaned()  # e.g. a parent that is a wrapper, not the controller
            _, status = os.waitpid(pid, 0)
            self.leftovers = sandbox.kill_leftovers(pid, self.sweep_uid)
            deadline = time.monotonic() + DRAIN_SECONDS
            while pipes and time.monotonic() < deadline:
                for key, _ in selector.select(timeout=0.05):
                    if key.data != "exit":
                        read(key.data, key.fd)
        finally:
            for fd in list(pipes.values()):
                os.close(fd)
            if pidfd is not None:
                os.close(pidfd)
            selector.close()
        if pending["message"].strip():
            self.protocol_error(job, "TruncatedMessage", "the child died while writing a message: "
                                + clip(pending["message"].decode("utf-8", "replace"), 200))
        return status

    def run_job(self, request: dict) -> None:
        from .jobs.child import run_child

        job = request["job"]
        self.shared_inputs.prebuild_for(request)  # before the fork: every later job inherits them
        cap = sandbox.stdout_cap(request)
        self.sweep_uid = sandbox.switched_uid(request)
        self.leftovers = 0
        if self.sweep_uid is not None:  # what an earlier zygote of this uid could not end (it died)
            sandbox.kill_leftovers(None, self.sweep_uid)
        files = self._open_output_files(request)
        created = list(files)
        try:
            pipes = []
            for _ in range(4):  # messages, sync, stdout, stderr
                pipes.append(os.pipe())
                created += pipes[-1]
            (message_read, message_write), (sync_read, sync_write), (out_read, out_write), (err_read, err_write) = pipes
            for stream in (sys.stdout, sys.stderr):
                stream.flush()  # or the child would inherit and repeat buffered text
            pid = os.fork()
        except BaseException:
            for fd in created:
                if fd is not None:
                    os.close(fd)
            raise
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the zygote's handler is not the job's
            if self.request_lines is not None:
                self.request_lines.forget()  # the job has the request parsed; the guest gets neither
            os.dup2(out_write, 1)
            os.dup2(err_write, 2)
            keep = {message_write, sync_write}
            for fd in created:
                if fd is not None and fd not in keep:
                    os.close(fd)
            run_child(request, message_write, sync_write, close_fds=(self.protocol_fd,))
        self.job_pid = pid
        for fd in (message_write, sync_write, out_write, err_write):
            os.close(fd)
        os.read(sync_read, 1)  # returns once the child has its own process group (or died)
        os.close(sync_read)
        self.writer(job).send("started", pid=pid)
        stdout_file, stderr_file = files
        sinks = {"stdout": OutputSink(stdout_file if stdout_file is not None else 2, cap),
                 "stderr": OutputSink(stderr_file if stderr_file is not None else 2, cap)}
        try:
            status = self._pump(pid, job, {"message": message_read, "stdout": out_read, "stderr": err_read}, sinks)
        finally:
            self.job_pid = None
            for fd in files:
                if fd is not None:
                    os.close(fd)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        killed_by = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        self.writer(job).send("exit", code=code, signal=killed_by, stdout_bytes=sinks["stdout"].total,
                              stderr_bytes=sinks["stderr"].total,
                              output_truncated=sinks["stdout"].truncated or sinks["stderr"].truncated,
                              leftovers_killed=self.leftovers)

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
            if job:  # the controller waits for a job's exit: a rejected job ends here
                self.writer(job).send("exit", code=None, signal=None, stdout_bytes=0, stderr_bytes=0,
                                      output_truncated=False, leftovers_killed=0, rejected=True)
            return True
        if request["op"] == "shutdown":
            return False
        try:
            self.run_job(request)
        except OSError as exc:  # fork or pipe failed: the job did not run
            self.writer(request["job"]).error("runner", type(exc).__name__, str(exc), error_class=type(exc).__name__)
        return True


def main() -> int:
    """`python -m keval_runner`: a zygote on its own (seed.py forks them without this)."""
    protocol_fd = os.dup(1)
    os.dup2(2, 1)  # stray prints in this process land on stderr, never in the protocol
    return serve(*import_toolkit(), protocol_fd=protocol_fd, parent_pid=os.getppid())


def serve(torch, triton, protocol_fd: int, parent_pid: int) -> int:
    """Serves requests from stdin until it closes; the toolkit is already imported."""
    sandbox.become_subreaper()  # a job's orphans come back to us, to be killed after the job
    zygote = Zygote(protocol_fd, parent_pid)
    # The parent's death arrives as SIGTERM: the controller's (which set it before the exec) or
    # the seed's (which dies with the controller). Until here its default ended us.
    signal.signal(signal.SIGTERM, zygote.leave_orphaned)
    sandbox.set_parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent_pid:
        zygote.leave_orphaned()  # it died before the line above
    zygote.writer("").send("ready", pid=os.getpid(), python=platform.python_version(),
                           torch=torch.__version__, triton=triton.__version__)
    zygote.request_lines = RequestLines(sys.stdin.buffer)
    while True:
        raw = zygote.request_lines.next()
        if not raw:
            return 0  # the controller closed our stdin
        if not zygote.handle(raw):
            return 0

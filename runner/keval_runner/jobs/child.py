"""The forked child: isolates itself, runs one job, reports through its message pipe, exits.

Exit codes: 0 after `done`; 3 when the runner's own code failed (an `error` with stage
"runner" says why); 4 when the device became unusable (stage "device"). Any other code or a
signal comes from the candidate (os._exit, a crash, the controller's kill).
"""

import faulthandler
import os
import sys
import tempfile
import traceback

from ..guest import baseline_guest
from ..device import device_gate, peak_memory
from ..protocol import phases
from ..sandbox import sandbox
from ..protocol.errors import DeviceError, OutputWriteFailed, out_of_memory_seen
from ..guest import guest_stop
from ..sandbox.guest_cgroup import GuestCgroup
from ..guest.guest_process import GuestGone, GuestMisbehaved, GuestProcess, HarnessFailedBeforeReady
from ..sandbox.guest_setup import GUEST_KINDS, enter_guest_sandbox
from ..protocol.messages import MessageWriter

EXIT_DONE = 0
EXIT_RUNNER_ERROR = 3
EXIT_DEVICE_ERROR = 4


def isolate(request: dict, sandboxed: bool) -> None:
    """fd 0 from /dev/null; work_dir becomes cwd (and TMPDIR when not sandboxed: the sandbox
    sets TMPDIR to work_dir/tmp). fd 1 and 2 are pipes the zygote reads (set before the fork)."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    work_dir = request.get("work_dir")
    if not work_dir:
        return  # a probe needs no folder: its prints go to the zygote's stderr
    os.makedirs(work_dir, exist_ok=True)
    os.chdir(work_dir)
    if not sandboxed:
        os.environ["TMPDIR"] = work_dir
        tempfile.tempdir = None  # forget the zygote's cached choice


def enter_sandbox(request: dict, writer: MessageWriter) -> None:
    """Applies the request's sandbox (if enabled) and sends the `sandbox` message."""
    settings = sandbox.settings_from(request)
    if settings is None:
        return
    sys.dont_write_bytecode = True
    facts = sandbox.apply(settings, request)
    writer.send("sandbox", **facts)


def see_only_own_gpu(request: dict) -> None:
    """Makes the job's GPU the only one it sees (CUDA_VISIBLE_DEVICES, through any list the run
    inherited) and device 0 of the job: peers' code hard-codes GPU 0 (`torch.cuda.set_device(0)`,
    'cuda:0'), which would otherwise reach another slot's GPU. Before CUDA is first touched."""
    gpu = int(request.get("gpu", 0) or 0)
    inherited = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    os.environ["CUDA_VISIBLE_DEVICES"] = inherited[gpu] if gpu < len(inherited) else str(gpu)
    request["gpu"] = 0


def device_environment(request: dict) -> None:
    """What the job's device needs set before anything starts CUDA (inherited by the guest)."""
    if request.get("device") == "cuda":
        see_only_own_gpu(request)
    else:
        # Triton reads this at each @jit: CPU jobs always run kernels in the interpreter.
        os.environ["TRITON_INTERPRET"] = "1"
        from ..interpreter.interpreter_support import enable_interpreter_support
        enable_interpreter_support()


def prepare_device(request: dict) -> None:
    import torch

    device_environment(request)
    if request.get("device") == "cuda":
        if not torch.cuda.is_available():
            raise DeviceError("CudaUnavailable", "device 'cuda' was requested but torch sees no CUDA device")
        torch.cuda.set_device(0)


def dispatch(request: dict, writer: MessageWriter, capabilities=None, guest=None, device_ready=False,
             baselines=None) -> None:
    if request.get("op") == "probe":
        from .probe import probe
        writer.send("probe", **probe(request), sandbox_capabilities=capabilities)
        return
    if not device_ready:
        with phases.phase("device"):
            prepare_device(request)
    kind = request.get("kind")
    if kind == "candidate":
        from .candidate_job import CandidateJob
        CandidateJob(request, writer, guest).run()
    elif kind == "reference":
        from .reference_job import ReferenceJob
        ReferenceJob(request, writer).run()
    elif kind == "timing":
        from .timing_job import TimingJob
        TimingJob(request, writer, guest, baselines).run()
    elif kind == "sweep":
        from .sweep_job import SweepJob
        SweepJob(request, writer).run()
    elif kind == "ceilings":
        from .ceilings import measure
        writer.send("ceilings", **measure())
    else:
        raise ValueError(f"unknown job kind {kind!r} (expected candidate, reference, timing, sweep or ceilings)")


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def die_with_parent() -> None:
    """Linux: SIGKILL this child if the zygote dies, so no orphan keeps a GPU busy."""
    sandbox.set_parent_death_signal()


def check_own_device(request: dict) -> None:
    """DeviceError when the warden's own CUDA context no longer synchronizes: what the warden
    saw itself, the only device fault a job with a guest reports once the guest is `ready`."""
    if request.get("device") != "cuda":
        return
    import torch

    try:
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 (any failure of its own context)
        raise DeviceError("DeviceLost", f"the warden's CUDA context failed after its guest ended: {exc}",
                          out_of_memory=out_of_memory_seen(exc)) from exc


def dump_stacks_later() -> None:
    """With KEVAL_STACKS_AFTER_S set, this process's threads' stacks go to stderr every that
    many seconds (the job's stderr tail): where a job that hangs on a device waits, or whether
    it moves."""
    after = os.environ.get("KEVAL_STACKS_AFTER_S")
    if after:
        faulthandler.dump_traceback_later(float(after), repeat=True, exit=False)


def run_with_guest(request: dict, writer: MessageWriter, message_fd: int):
    """This process is the warden: the submission runs in a guest it forks (docs/trust.md).
    The guest's end is mirrored: a guest that dies ends the warden the same way, no `done`.
    Returns the guest's reported peak GPU bytes (None when it gave none)."""
    device_environment(request)
    guest = GuestProcess.start(request, lambda: enter_guest_sandbox(request), close_fds=(message_fd,))
    # before `ready`: nothing of the submission has run, so nothing of it is outside
    guest.cgroup = GuestCgroup.create(str(os.getpid()))
    if guest.cgroup is not None and not guest.cgroup.add(guest.pid):
        print("keval_runner: the guest's cgroup refused it; its other processes are not parked",
              file=sys.stderr)
        guest.cgroup.remove()
        guest.cgroup = None
    try:
        # before the warden's CUDA context exists (a fork made after it could make none)
        baselines = baseline_guest.start_for(request)
        # after the forks: a child arming faulthandler's watchdog while its parent's is armed
        # waits forever for a thread it did not inherit (it hung the baselines' process)
        dump_stacks_later()
        # The warden's CUDA context starts while the guest enters its sandbox and starts its
        # own: one after the other they took 0.99 s and 0.87 s of each KernelBenchX candidate
        # job on the H200.
        with phases.phase("device"):
            prepare_device(request)
        with phases.phase("sandbox"):
            facts = guest.ready()
        if facts is not None:
            writer.send("sandbox", **facts)
        dispatch(request, writer, guest=guest, device_ready=True, baselines=baselines)
    except HarnessFailedBeforeReady as exc:  # only keval's code had run in the guest
        guest.kill()
        if exc.kind == "sandbox":
            raise sandbox.SandboxError(str(exc)) from exc
        raise DeviceError(exc.error_kind, str(exc), out_of_memory=exc.out_of_memory) from exc
    except GuestGone:
        # a guest whose context died is a crashed submission, unless the warden's own failed too
        check_own_device(request)
        _flush_stdio()
        guest.mirror_exit()
    except GuestMisbehaved as exc:
        guest.kill()
        writer.send("tampering", stage="protocol", names=[f"guest protocol: {str(exc)[:300]}"])
        return None
    with phases.phase("guest_end"):  # its exit tears its CUDA context down before `done`
        guest_stop.resume(guest.pid)  # a timed call's stop, should a path have left it
        peak = guest.end()
    if guest.cgroup is not None:
        # what it left running (parked ones thawed) the zygote ends and counts right after; the
        # cgroups go with the last of them, or with a later job's sweep of empty ones
        guest.cgroup.release_parked()
        guest.cgroup.remove()
    return peak


def out_of_memory_field(seen: bool) -> dict:
    """The `error` field that makes the controller retry the job alone: present only when this
    process saw its own allocation refused."""
    return {"out_of_memory": True} if seen else {}


def run_child(request: dict, message_fd: int, sync_fd: int, close_fds=()) -> None:
    """Never returns: the child always leaves through os._exit."""
    code = EXIT_RUNNER_ERROR
    writer = MessageWriter(message_fd, str(request.get("job", "")))
    try:
        try:
            os.setsid()  # own session and process group: the controller kills -pid
        except OSError:
            pass
        die_with_parent()
        os.write(sync_fd, b"1")  # the zygote sends `started` only once the group exists
        os.close(sync_fd)
        for fd in close_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        sandboxed = sandbox.settings_from(request) is not None
        isolate(request, sandboxed)
        capabilities = None
        if request.get("op") == "probe":  # tested before this child gives anything up
            from .probe import sandbox_capabilities
            capabilities = sandbox_capabilities(request)
        phases.reset()
        device_gate.reset()
        peak_memory.reset()
        guest_gpu_bytes = None
        if request.get("op") == "run" and request.get("kind") in GUEST_KINDS:
            guest_gpu_bytes = run_with_guest(request, writer, message_fd)
        else:
            with phases.phase("sandbox"):
                enter_sandbox(request, writer)
            dispatch(request, writer, capabilities)
        writer.send("done", phases=phases.seconds(), peak_memory=peak_memory.peak_memory(guest_gpu_bytes))
        code = EXIT_DONE
    except sandbox.SandboxError as exc:
        writer.error("runner", "SandboxFailed", str(exc), error_class="SandboxError")
        code = EXIT_RUNNER_ERROR
    except OutputWriteFailed as exc:  # the machine's fault: the controller leaves it unjudged
        writer.error("runner", "OutputWriteFailed", str(exc), error_class="OutputWriteFailed")
        code = EXIT_RUNNER_ERROR
    except DeviceError as exc:
        writer.error("device", exc.kind, str(exc), error_class=exc.kind, **out_of_memory_field(exc.out_of_memory))
        code = EXIT_DEVICE_ERROR
    except BaseException as exc:  # the runner's own fault: report it, never `done`
        try:
            tail = traceback.format_exc()[-1900:]  # the innermost frames say the most
            # e.g. the warden's guard bands or inputs that did not fit beside other slots' jobs
            writer.error("runner", type(exc).__name__, tail, error_class=type(exc).__name__,
                         **out_of_memory_field(out_of_memory_seen(exc)))
        except BaseException:
            pass
        code = EXIT_RUNNER_ERROR
    finally:
        _flush_stdio()
        os._exit(code)

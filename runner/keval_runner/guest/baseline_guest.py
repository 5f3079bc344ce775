"""The baselines' own process, timed by the warden exactly as the candidate's guest.

The warden times the candidate from outside its process: a round trip over the channel up to
the guest stopped (warden_timed_candidate.py). A baseline called in the warden itself would
skip that round trip and its cold start after the other side's work (on this project's 2-core
machine KernelBenchX's fixture read its candidate 2.4x slower than the same code in the warden,
75 µs a call beside its calibration), so each baseline is served by this process, forked from
the warden once the baselines are loaded, and timed the same way: fair by construction.

It runs only keval's code (the golden, the reference, torch.compile of it), never the
submission's, and is the warden's child: it is trusted, and ends with the warden. It must be
forked before the warden runs any parallel CPU op (GNU OpenMP is not fork-safe).
"""

import os
import signal
import sys

import torch

from ..timing import cpu_pinning
from ..sandbox import sandbox
from .guest_channel import Channel, ChannelError
from .guest_process import GuestGone, GuestProcess
from ..inputs.baseline_loading import load_baselines
from .guest_timed_call import CALIBRATION_KEY, TimedCalls, null_call
from ..protocol.request_check import warden_clocks_cuda
from ..handoff.shared_args import ArgsOpener


class _Errors:
    """A writer that keeps the baselines' loading errors for the warden to send."""

    def __init__(self):
        self.errors = []

    def error(self, stage: str, **fields) -> None:
        self.errors.append({"stage": stage, **fields})


def _load(request: dict, baselines: dict) -> dict:
    errors = _Errors()
    loaded = load_baselines(request, errors)
    baselines.update(loaded)
    return {"ok": True, "names": [name for name, _ in loaded], "errors": errors.errors}


def _serve(channel: Channel, baselines: dict, device: torch.device, request=None) -> None:
    calls = TimedCalls(ArgsOpener(device))
    own_cpus = os.sched_getaffinity(0)
    channel.send({"op": "ready", "sandbox": None})
    while True:
        header, _, fds = channel.receive()
        op = header.get("op")
        try:
            if op == "end":
                return
            if op == "go":
                entry = null_call if header["key"] == CALIBRATION_KEY else baselines[header["who"]]
                try:
                    answer = calls.go(header["key"], entry, header.get("n"))
                except Exception as exc:  # the baseline's own failure, the warden's to report
                    answer = {"ok": False, "error": {"error_kind": type(exc).__name__,
                                                     "error_class": type(exc).__name__,
                                                     "message": str(exc)[:2000], "line": None}}
            elif op == "arm":
                calls.arm(header["key"], header["args"], fds, int(header.get("slots") or 0),
                          int(header.get("calls") or 1))
                answer = {"ok": True}
            elif op == "load" and request is not None:
                answer = _load(request, baselines)
            elif op == "gate":
                calls.open_gate(fds)
                answer = {"ok": True}
            elif op == "drop":
                calls.drop(header.get("key"))
                answer = {"ok": True}
            elif op == "peak_memory":
                answer = {"ok": True, "gpu_bytes": None}
            elif op == "pin":
                cpus = header.get("cpus")
                cpu_pinning.pin(own_cpus if cpus is None else [int(c) for c in cpus])
                answer = {"ok": True}
            else:
                raise ValueError(f"unknown op {op!r}")
        finally:
            for fd in fds:
                os.close(fd)
        answer["tampering"] = []
        channel.send(answer)


def start_for(request: dict):
    """The baselines' process of a CUDA timing job the warden clocks, forked now (before the
    warden's CUDA context exists: a forked child cannot make one once its parent has); it loads
    the request's baselines when asked (`load`). None for any other job."""
    if request.get("kind") != "timing" or request.get("device") != "cuda" or not request.get("baselines"):
        return None
    if not warden_clocks_cuda(request.get("timing") or {}):
        return None
    return start([], torch.device("cuda", 0), request)


def start(baselines: list, device: torch.device = torch.device("cpu"), request=None) -> GuestProcess:
    """Forks the process serving `baselines` ((name, callable) pairs) on `device`, ready to be
    asked; with `request`, it loads that request's baselines when asked."""
    if device.type == "cuda" and torch.cuda.is_initialized():
        raise RuntimeError("the baselines' process must be forked before the warden initialises CUDA")
    warden_end, own_end = Channel.pair()
    warden = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            sandbox.set_parent_death_signal()
            if os.getppid() != warden:
                os.kill(os.getpid(), signal.SIGKILL)
            warden_end.close()
            if os.environ.get("KEVAL_STACKS_AFTER_S"):  # armed first: a device's start can hang too
                import faulthandler
                faulthandler.dump_traceback_later(float(os.environ["KEVAL_STACKS_AFTER_S"]) + 1, exit=False)
            if device.type == "cuda":
                torch.cuda.set_device(device.index or 0)
                torch.zeros(1, device=device)  # its context, before any buffer of the warden's is mapped
            _serve(own_end, dict(baselines), device, request)
        except ChannelError:
            code = 3
        except BaseException as exc:  # noqa: BLE001 (a baseline's failure: the warden sees the channel close)
            print(f"keval_runner baseline process: {exc!r}", file=sys.stderr)
            code = 3
        finally:
            os._exit(code)
    own_end.close()
    process = GuestProcess(pid, warden_end)
    try:
        process.ready()
    except GuestGone as exc:
        # keval's own process failed: a runner error, never the guest's death to mirror
        raise RuntimeError(f"the baselines' process ended before it was ready ({exc}); its stderr is the job's") from exc
    return process

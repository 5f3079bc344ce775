"""The job's side of the controller's device gate (src/engine/devices/device_gate.h): a job uses the
GPU with a share of it (DeviceGateShare), and a timing job has it alone only while it measures
(DeviceGateAlone).

`alone(request, writer)` sends `device_alone`, waits for the controller's file
device-alone-K in the work folder (K counts this job's requests), runs the block, and sends
`device_shared`. Requests without `device_gate` (no gate: a lone slot, older controllers) pass
straight through. The wait needs no deadline of its own: the controller's job timeout kills it.

`pause_point(request, writer, device)`, between calls of any job: while a timing job waits for
the device or measures, the controller keeps the file named by the request's `device_hold`.
A job that finds it finishes its queued GPU work, sends `device_paused` (the controller takes
back its share) and waits for device-resume-K in its work folder (the share given back). So a
timing job waits for the current call of each running job, not for the rest of each job.

`begin_idle(...)` / `end_idle()`, around a stretch without GPU work (Triton compiling): the job
synchronizes and sends `device_idle` (the controller takes back its share at once, and the job
goes on) and, at the end, `device_busy`, then waits for device-busy-K (a share again). So a
timing job does not wait for a compile. (A call's outputs are written on a thread of their
own, output_saver.py, while the job goes on with its share.)
"""

import contextlib
import os
import time

from ..protocol.phases import phase

POLL_S = 0.0005  # ~0.5 ms: small beside a measurement, cheap for a waiting process

_granted = 0  # this process's requests so far (each job is a fresh fork)
_resumed = 0  # this process's pauses so far
_busy = 0  # this process's idle stretches so far
_idle = None  # (request, writer) during an idle stretch


def reset() -> None:
    global _granted, _resumed, _busy, _idle
    _granted = _resumed = _busy = 0
    _idle = None


def _finish_gpu_work(device) -> None:
    """Nothing of ours may still run once the share is given back."""
    if device is not None and device.type == "cuda":
        import torch
        torch.cuda.synchronize()


def _wait_for(signal: str, phase_name: str) -> None:
    """Until the controller creates `signal`; the wait counts as `phase_name` in the phases."""
    with phase(phase_name):
        while not os.path.exists(signal):
            time.sleep(POLL_S)


def begin_idle(request: dict, writer, device=None) -> None:
    global _idle
    if _idle is not None or not request.get("device_hold"):
        return
    _finish_gpu_work(device)
    writer.send("device_idle")
    _idle = (request, writer)


def end_idle() -> None:
    """The share back before any more GPU work; nothing when no idle stretch is on."""
    global _idle, _busy
    if _idle is None:
        return
    request, writer = _idle
    _idle = None
    signal = os.path.join(request["work_dir"], f"device-busy-{_busy}")
    _busy += 1
    writer.send("device_busy")
    _wait_for(signal, "busy_wait")


def pause_point(request: dict, writer, device=None) -> None:
    global _resumed
    hold = request.get("device_hold")
    if not hold or not os.path.exists(hold):
        return
    _finish_gpu_work(device)
    signal = os.path.join(request["work_dir"], f"device-resume-{_resumed}")
    _resumed += 1
    writer.send("device_paused")
    _wait_for(signal, "pause_wait")


@contextlib.contextmanager
def alone(request: dict, writer):
    global _granted
    if not request.get("device_gate"):
        yield
        return
    signal = os.path.join(request["work_dir"], f"device-alone-{_granted}")
    _granted += 1
    writer.send("device_alone")
    _wait_for(signal, "gate_wait")  # how long others held the device
    try:
        with phase("alone"):  # how long the others wait for this job
            yield
    finally:
        writer.send("device_shared")

"""The timing job has its device alone only while it measures (the controller's timing_gate.h).

`alone(request, writer)` sends `device_alone`, waits for the controller's file
device-alone-K in the work folder (K counts this job's requests), runs the block, and sends
`device_shared`. Requests without `device_gate` (no lease: a lone slot, older controllers) pass
straight through. The wait needs no deadline of its own: the controller's job timeout kills it.

`pause_point(request, writer, device)`, between calls of any job: while a timing job waits for
the device or measures, the controller keeps the file named by the request's `device_hold`.
A job that finds it finishes its queued GPU work, sends `device_paused` (the controller takes
back its share) and waits for device-resume-K in its work folder (the share given back). So a
timing job waits for the current call of each running job, not for the rest of each job.
"""

import contextlib
import os
import time

from .phases import phase

POLL_S = 0.0005  # ~0.5 ms: small beside a measurement, cheap for a waiting process

_granted = 0  # this process's requests so far (each job is a fresh fork)
_resumed = 0  # this process's pauses so far


def reset() -> None:
    global _granted, _resumed
    _granted = _resumed = 0


def pause_point(request: dict, writer, device=None) -> None:
    global _resumed
    hold = request.get("device_hold")
    if not hold or not os.path.exists(hold):
        return
    if device is not None and device.type == "cuda":
        import torch
        torch.cuda.synchronize()  # nothing of ours may still run once the share is given back
    signal = os.path.join(request["work_dir"], f"device-resume-{_resumed}")
    _resumed += 1
    writer.send("device_paused")
    with phase("pause_wait"):
        while not os.path.exists(signal):
            time.sleep(POLL_S)


@contextlib.contextmanager
def alone(request: dict, writer):
    global _granted
    if not request.get("device_gate"):
        yield
        return
    signal = os.path.join(request["work_dir"], f"device-alone-{_granted}")
    _granted += 1
    writer.send("device_alone")
    with phase("gate_wait"):  # in the job's phase seconds: how long others held the device
        while not os.path.exists(signal):
            time.sleep(POLL_S)
    try:
        yield
    finally:
        writer.send("device_shared")

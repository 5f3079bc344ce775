"""The timing job has its device alone only while it measures (the controller's timing_gate.h).

`alone(request, writer)` sends `device_alone`, waits for the controller's file
device-alone-K in the work folder (K counts this job's requests), runs the block, and sends
`device_shared`. Requests without `device_gate` (no lease: a lone slot, older controllers) pass
straight through. The wait needs no deadline of its own: the controller's job timeout kills it.
"""

import contextlib
import os
import time

from .phases import phase

POLL_S = 0.0005  # ~0.5 ms: small beside a measurement, cheap for a waiting process

_granted = 0  # this process's requests so far (each job is a fresh fork)


def reset() -> None:
    global _granted
    _granted = 0


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

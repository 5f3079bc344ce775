"""Kernel profile of one call (CUDA only): device time per kernel name, the candidate's own apart.

One extra call, outside the timed loop, under torch.profiler (CPU + CUDA activities). Device
events (kernels, memcpy, memset) are summed by name; a kernel is "own" when its name is one of
the Triton kernels defined in the candidate module that kernel tracking saw launched in that
same call (Triton names the device function after the Python function).

torch.profiler's first session in a process costs 5.6 s on the H200 (CUPTI's start; later
sessions 5 ms), and each timing job is a fresh process. So a screen comes first
(`screen_call`): CUDA events bracket each of the candidate's own launches on the launching
stream, and their sum is divided by the host time of the whole call up to a device-wide sync.
That share can only be lower than the profiler's (the host time includes every gap and every
stream), so a screen share at or above the judge's threshold settles it; below, the profiler
runs and its facts are the ones sent.
"""

import time
import warnings

import torch

_Event = torch.cuda.Event  # bound at import, before any candidate code could replace it
_clock = time.perf_counter


def _device_events(prof) -> list:
    """(name, microseconds) of every device-side event, across torch versions."""
    from torch.autograd import DeviceType

    found = []
    for event in prof.events():
        if getattr(event, "device_type", None) == DeviceType.CUDA:
            found.append((event.name, float(event.time_range.elapsed_us())))
    if found:
        return found
    for event in prof.events():  # older layout: kernels hang off their CPU launch events
        for kernel in getattr(event, "kernels", []) or []:
            found.append((kernel.name, float(kernel.duration)))
    return found


def _is_own(name: str, own_names: list) -> bool:
    return name in own_names


def summarize(events: list, own_names: list) -> dict:
    """The `kernel_profile` facts from (name, us) pairs."""
    totals = {}
    for name, us in events:
        totals[name] = totals.get(name, 0.0) + us
    kernels = [{"name": name, "time_us": us, "own": _is_own(name, own_names)}
               for name, us in sorted(totals.items(), key=lambda item: -item[1])]
    own_time = sum(k["time_us"] for k in kernels if k["own"])
    total = sum(k["time_us"] for k in kernels)
    return {"kernels": kernels, "own_time_us": own_time, "total_time_us": total,
            "own_share": (own_time / total) if total > 0 else None}


def profile_call(call, device: torch.device, tracked_own) -> dict:
    """Runs call() once under the profiler; tracked_own() gives the own kernel names it launched."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize(device)
    with warnings.catch_warnings():  # the profiler's notes would land in the job's stderr.txt
        warnings.simplefilter("ignore")
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            call()
            torch.cuda.synchronize(device)
        events = _device_events(prof)
    return dict(summarize(events, tracked_own()), method="torch_profiler")


class LaunchEvents:
    """kernel_tracking's timer: a pair of CUDA events around each launch on the current stream."""

    def __init__(self):
        self.launches = []  # ((name, module), start event, end event)

    def begin(self):
        start = _Event(enable_timing=True)
        start.record()
        return start

    def end(self, identity, start) -> None:
        end = _Event(enable_timing=True)
        end.record()
        self.launches.append((identity, start, end))


def screen_call(call, device: torch.device, is_own) -> dict:
    """call(timer) runs the call once with tracking(timer); is_own((name, module)) says whose a
    kernel is. The same facts as profile_call, `method` "launch_events": own kernels only,
    total_time_us the host time of the call up to a device-wide sync."""
    timer = LaunchEvents()
    torch.cuda.synchronize(device)
    start = _clock()
    call(timer)
    torch.cuda.synchronize()  # every stream of every device: all the call's work is done
    total_us = (_clock() - start) * 1e6
    own = [(identity[0], start_event.elapsed_time(end_event) * 1e3)
           for identity, start_event, end_event in timer.launches if is_own(identity)]
    facts = summarize(own, [name for name, _ in own])
    facts["total_time_us"] = total_us
    facts["own_share"] = facts["own_time_us"] / total_us if total_us > 0 else None
    facts["method"] = "launch_events"
    return facts

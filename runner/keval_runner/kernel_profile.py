"""Kernel profile of one call (CUDA only): device time per kernel name, the candidate's own apart.

One extra call, outside the timed loop, under torch.profiler (CPU + CUDA activities). Device
events (kernels, memcpy, memset) are summed by name; a kernel is "own" when its name is one of
the Triton kernels defined in the candidate module that kernel tracking saw launched in that
same call (Triton names the device function after the Python function).
"""

import warnings

import torch


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
    return summarize(events, tracked_own())

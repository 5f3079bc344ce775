"""A job's peak memory, sent with its `done` (and kept with its job seconds).

Host: the largest resident set among the job's process and the children it reaped (the guest,
a profiler), from getrusage. GPU: the most the caching allocator held at once in this process
(the warden's: drawn inputs, the baselines, the outputs it holds) plus the most its shared input
buffers held at once (made with the driver's calls, outside the allocator; the sum of two peaks,
so an upper bound), and apart from it what a
guest reported of its own (it runs the submission, so that figure is the submission's word,
kept for diagnosis only). Beside them, `io_bytes`: the most the job's calls needed at once (a
candidate job's: one call's inputs and outputs, or a timed case's rotation of input sets, which
the guest calls in turn, and one call's outputs), what the job's memory is measured against.
"""

import resource
import sys

_largest_io_bytes = 0
_shared_device_bytes = {"live": 0, "peak": 0}  # mutated, never rebound (the guest snapshots modules)


def reset() -> None:
    global _largest_io_bytes
    _largest_io_bytes = 0
    _shared_device_bytes["peak"] = _shared_device_bytes["live"]


def note_call(inputs: list, outputs: list) -> None:
    """Tensors one call needs at once (for a timed case, every set of its rotation and one
    call's outputs): the largest sum of their bytes is the job's io_bytes."""
    global _largest_io_bytes
    total = sum(t.numel() * t.element_size() for t in list(inputs) + list(outputs)
                if hasattr(t, "numel") and hasattr(t, "element_size"))
    _largest_io_bytes = max(_largest_io_bytes, int(total))


def shared_device_allocated(nbytes: int) -> None:
    """A shared device buffer this process made (device_sharing.DeviceBuffer)."""
    _shared_device_bytes["live"] += nbytes
    _shared_device_bytes["peak"] = max(_shared_device_bytes["peak"], _shared_device_bytes["live"])


def shared_device_released(nbytes: int) -> None:
    _shared_device_bytes["live"] -= nbytes


def host_bytes() -> int:
    largest_kib = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return int(largest_kib) * 1024  # Linux counts ru_maxrss in KiB


def gpu_bytes() -> int:
    """Peak bytes the allocator reserved on the current device plus the peak of the shared
    buffers this process made; 0 when CUDA never started here."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_initialized():
        return 0
    try:
        return int(torch.cuda.max_memory_reserved()) + _shared_device_bytes["peak"]
    except Exception:  # noqa: BLE001 - a lost device: the figure is diagnostic only
        return 0


def peak_memory(guest_gpu_bytes=None) -> dict:
    peak = {"host_bytes": host_bytes(), "gpu_bytes": gpu_bytes()}
    if guest_gpu_bytes is not None:
        peak["guest_gpu_bytes"] = guest_gpu_bytes
    if _largest_io_bytes:
        peak["io_bytes"] = _largest_io_bytes
    return peak

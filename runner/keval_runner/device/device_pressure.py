"""How full the device was when the guest said its call ran out of memory, as the warden sees
it through the driver.

Slots share a GPU, so an honest submission's call can run out of memory because of the other
slots' jobs; the controller then retries its job alone (src/engine/devices/device_memory.h). The
guest's word cannot decide that (a raised "CUDA out of memory" would stop every other job on
the GPU and shrink the run's slots), so the warden asks the driver for the device's free
memory right after the failed call, in its own context, and reports the free share; the
controller decides whether that was a crowded device. A guest can make it low only by really
filling the device, which any job that uses much memory does to its neighbours too
(docs/trust.md).
"""

import torch


def free_share(device: torch.device, guest_error_kind):
    """The device's free memory over its total after a guest's OutOfMemoryError on CUDA; None
    on the CPU, for any other failure, or when the driver cannot tell."""
    if device.type != "cuda" or guest_error_kind != "OutOfMemoryError":
        return None
    try:
        free, total = torch.cuda.mem_get_info(device)
    except Exception:  # noqa: BLE001 (no answer: no fact)
        return None
    return free / total if total > 0 else None

"""Whether the device really was short of memory when the guest said its call ran out, as the
warden sees it through the driver.

Slots share a GPU, so an honest submission's call can run out of memory because of the other
slots' jobs; the controller then retries its job alone (src/engine/device_memory.h). The
guest's word cannot decide that (a raised "CUDA out of memory" would stop every other job on
the GPU and shrink the run's slots), so the warden asks the driver for the device's free
memory right after the failed call, in its own context: only a device that is nearly full
counts. A guest can make that true only by really filling the device, which any job that
uses much memory does to its neighbours too (docs/trust.md).
"""

import torch

# Nearly full: less than this share of the device free (35 GiB of an H200). An honest call
# that ran out beside other slots leaves less free than it asked for; a guest that only says
# so leaves the device as empty as it found it.
NEARLY_FULL_SHARE = 0.25


def short_of_memory(device: torch.device, guest_error_kind) -> bool:
    """True when the guest reported its call out of memory and the driver shows the device
    nearly full; False on the CPU, for any other failure, or when the driver cannot tell."""
    if device.type != "cuda" or guest_error_kind != "OutOfMemoryError":
        return False
    try:
        free, total = torch.cuda.mem_get_info(device)
    except Exception:  # noqa: BLE001 (no answer: no retry)
        return False
    return total > 0 and free < NEARLY_FULL_SHARE * total

"""The GPU's SM clock through NVML (ctypes on libnvidia-ml; no Python package needed).

Timing discards a sample taken while the SM clock ran below a fraction of its default (the
request's timing `low_clock_fraction`, 0.75 from the controller: a throttled or not yet boosted
GPU measures the clock, not the kernel). Everything here is best effort: where
NVML is missing or refuses, `SmClock.open` returns None and no sample is discarded.
"""

import ctypes

from ..protocol.request_check import TIMING_DEFAULTS

NVML_CLOCK_SM = 1


class SmClock:
    def __init__(self, nvml, handle, default_mhz: int):
        self._nvml = nvml
        self._handle = handle
        self.default_mhz = default_mhz

    @classmethod
    def open(cls, device):
        """The clock of a torch CUDA device, or None."""
        try:
            import torch

            nvml = ctypes.CDLL("libnvidia-ml.so.1")
            if nvml.nvmlInit_v2() != 0:
                return None
            handle = ctypes.c_void_p()
            props = torch.cuda.get_device_properties(device)
            bus = getattr(props, "pci_bus_id", None)
            if bus is not None:
                bus_id = f"{getattr(props, 'pci_domain_id', 0):08x}:{bus:02x}:{getattr(props, 'pci_device_id', 0):02x}.0"
                found = nvml.nvmlDeviceGetHandleByPciBusId_v2(bus_id.encode(), ctypes.byref(handle))
            else:
                found = nvml.nvmlDeviceGetHandleByIndex_v2(device.index or 0, ctypes.byref(handle))
            if found != 0:
                return None
            mhz = ctypes.c_uint(0)
            if nvml.nvmlDeviceGetDefaultApplicationsClock(handle, NVML_CLOCK_SM, ctypes.byref(mhz)) != 0 or not mhz.value:
                if nvml.nvmlDeviceGetMaxClockInfo(handle, NVML_CLOCK_SM, ctypes.byref(mhz)) != 0 or not mhz.value:
                    return None
            return cls(nvml, handle, int(mhz.value))
        except Exception:
            return None

    def current_mhz(self):
        mhz = ctypes.c_uint(0)
        if self._nvml.nvmlDeviceGetClockInfo(self._handle, NVML_CLOCK_SM, ctypes.byref(mhz)) != 0:
            return None
        return int(mhz.value)


def too_slow(mhz, default_mhz, fraction=TIMING_DEFAULTS["low_clock_fraction"]) -> bool:
    """A sample taken at `mhz` is discarded (unknown clocks never discard)."""
    return bool(mhz) and bool(default_mhz) and mhz < fraction * default_mhz

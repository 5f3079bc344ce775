"""The `probe` job: what this environment offers. Runs in a child, since it touches CUDA."""

import ctypes
import os
import platform
import re

import torch
import triton


def nvidia_driver_version():
    """The NVIDIA kernel driver's version (e.g. "570.86.15"), or None where not readable."""
    try:
        with open("/proc/driver/nvidia/version") as f:
            match = re.search(r"Kernel Module(?: for [\w-]+)?\s+(\d+(?:\.\d+)+)", f.read())
        return match.group(1) if match else None
    except OSError:
        return None


def cuda_driver_api_version():
    """The CUDA version the driver supports (cuDriverGetVersion, e.g. "12.8"), or None."""
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
        version = ctypes.c_int(0)
        if libcuda.cuDriverGetVersion(ctypes.byref(version)) != 0:
            return None
        return f"{version.value // 1000}.{(version.value % 1000) // 10}"
    except Exception:
        return None


def resolve_device(requested: str, cuda: bool) -> str:
    """"auto" -> cuda when available; an explicit request is echoed (cuda=false tells it can't run)."""
    if requested == "auto":
        return "cuda" if cuda else "cpu"
    return "cuda" if requested == "cuda" else "cpu"


def probe(request: dict) -> dict:
    requested = request.get("device", "auto")
    cuda = bool(torch.cuda.is_available())
    count = torch.cuda.device_count() if cuda else 0
    facts = {
        "cuda": cuda,
        "device": resolve_device(requested, cuda),
        "gpu_name": None, "gpu_count": count, "l2_bytes": None, "sm_count": None,
        "capability": None, "gpu_memory_bytes": None, "driver": None, "cuda_driver": None,
        "torch": torch.__version__, "triton": triton.__version__,
        "python": platform.python_version(), "torch_cuda": torch.version.cuda,
        "interpret": os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"),
    }
    gpu = int(request.get("gpu", 0) or 0)
    if cuda and 0 <= gpu < count:
        props = torch.cuda.get_device_properties(gpu)
        facts.update({
            "gpu_name": props.name,
            "l2_bytes": getattr(props, "L2_cache_size", None),
            "sm_count": getattr(props, "multi_processor_count", None),
            "capability": f"{props.major}.{props.minor}",
            "gpu_memory_bytes": getattr(props, "total_memory", None),
            "driver": nvidia_driver_version(),
            "cuda_driver": cuda_driver_api_version(),
        })
    return facts

"""The `probe` job: what this environment offers. Runs in a child, since it touches CUDA."""

import ctypes
import os
import platform
import re
import signal
import sys
import time

import torch
import triton

from ..sandbox import sandbox

DEFAULT_TEST_UID = 65534  # "nobody": the uid tried when the request names none
GRANDCHILD_TIMEOUT_S = 60.0


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


# -- what the sandbox can do here (tested in grandchildren, before the probe child is sandboxed) --

def in_grandchild(test, timeout_s: float = GRANDCHILD_TIMEOUT_S) -> bool:
    """Runs test() in a forked grandchild; True when it returned true and exited within the time."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if test() else 1
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return False
        time.sleep(0.01)


def _test_ids(request: dict):
    raw = request.get("sandbox") if isinstance(request.get("sandbox"), dict) else {}
    uid = raw.get("uid")
    uid = uid if isinstance(uid, int) and not isinstance(uid, bool) and uid > 0 else DEFAULT_TEST_UID
    gid = raw.get("gid")
    gid = gid if isinstance(gid, int) and not isinstance(gid, bool) and gid > 0 else uid
    return uid, gid


def _netns_works(root: bool) -> bool:
    if sandbox.unshare(sandbox.CLONE_NEWNET) == 0:
        return True
    return not root and sandbox.unshare(sandbox.CLONE_NEWUSER | sandbox.CLONE_NEWNET) == 0


def _cuda_as(uid: int, gid: int) -> bool:
    sandbox.switch_user(uid, gid)
    if not torch.cuda.is_available():
        return False
    torch.zeros(1, device="cuda").add_(1)
    torch.cuda.synchronize()
    return True


def _toolkit_readable_as(uid: int, gid: int) -> bool:
    """Can the uid still import what a job may import (torch, triton, the standard library)?"""
    folders = [os.path.dirname(torch.__file__), os.path.dirname(triton.__file__), os.path.dirname(os.__file__)]
    sandbox.switch_user(uid, gid)
    for folder in folders:
        os.listdir(folder)
    with open(os.path.join(folders[0], "__init__.py"), "rb") as f:
        f.read(1)
    return os.access(sys.executable, os.X_OK)


def sandbox_capabilities(request: dict) -> dict:
    """root; netns (a test unshare worked); cuda_as_uid (CUDA still usable after switching to
    the test uid; null without CUDA or root); toolkit_readable_as_uid (null without root)."""
    root = os.geteuid() == 0
    uid, gid = _test_ids(request)
    cuda = request.get("device", "auto") != "cpu" and bool(torch.cuda.is_available())
    return {
        "root": root,
        "netns": in_grandchild(lambda: _netns_works(root)),
        "cuda_as_uid": in_grandchild(lambda: _cuda_as(uid, gid)) if root and cuda else None,
        "toolkit_readable_as_uid": in_grandchild(lambda: _toolkit_readable_as(uid, gid)) if root else None,
        "test_uid": uid if root else None,
    }

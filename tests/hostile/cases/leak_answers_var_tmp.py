# task: relu
# expect: pass
# device: both
# why: leaves "answers" for the next job of its slot in every place any uid may write: /var/tmp, /run/lock, /dev/shm, /tmp, /dev/mqueue, a SysV shared memory segment and a POSIX message queue; computes honestly itself
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
SYSV_KEY = 0x4B45564C  # "KEVL"


def _leave_answers():
    for place in PLACES:
        try:
            with open(os.path.join(place, MARKER), "w") as f:
                f.write("zeros")
        except OSError:
            pass
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        libc.shmget(ctypes.c_int(SYSV_KEY), ctypes.c_size_t(4096), ctypes.c_int(0o1000 | 0o666))  # IPC_CREAT
    except AttributeError:
        pass
    try:
        libc.mq_open(b"/" + MARKER.encode(), ctypes.c_int(os.O_CREAT | os.O_RDWR), ctypes.c_int(0o666), None)
    except AttributeError:
        pass


def relu(x):
    _leave_answers()
    return _relu(x)

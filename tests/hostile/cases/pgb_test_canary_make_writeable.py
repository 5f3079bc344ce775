# task: relu
# expect: out_of_bounds|tampering
# device: cpu
# why: computes right, then mprotects the pages after its input read-write and zeroes 8 bytes just past its end (the guard band's canary) with ctypes (pygpubench submission_test_canary_make_writeable)
"""Port of gpu-mode/pygpubench exploits/submission_test_canary_make_writeable.py: the
protection of the harness's memory changed with mprotect, then a canary overwritten."""
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, MODE: tl.constexpr):
    # MODE 0: relu; 1: zeros; 2: NaN (what the cheating branches store)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    if MODE == 0:
        y = tl.maximum(x, 0.0)
    elif MODE == 1:
        y = x * 0.0
    else:
        y = x * 0.0 + float("nan")
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _launch(x, out, mode=0, n=None):
    n = x.numel() if n is None else n
    _relu_kernel[(triton.cdiv(max(n, 1), 1024),)](x, out, n, BLOCK=1024, MODE=mode)
    return out


def _honest(x):
    x = x.contiguous()
    return _launch(x, torch.empty_like(x))

_libc = ctypes.CDLL("libc.so.6", use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def relu(x):
    out = _honest(x)
    end = x.data_ptr() + x.numel() * x.element_size()
    _libc.mprotect(end & ~4095, 8192, 3)  # PROT_READ | PROT_WRITE
    ctypes.memset(end, 0, 8)
    return out

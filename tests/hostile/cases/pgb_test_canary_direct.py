# task: relu
# expect: out_of_bounds|tampering
# device: cpu
# why: computes right, then overwrites 8 bytes of the harness's memory just before its input (the guard band's canary) with ctypes (pygpubench submission_test_canary_direct)
"""Port of gpu-mode/pygpubench exploits/submission_test_canary_direct.py: a canary in the
harness's memory overwritten. keval's canaries are the guard bands around the inputs."""
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


def relu(x):
    out = _honest(x)
    ctypes.memset(x.data_ptr() - 8, 0, 8)
    return out

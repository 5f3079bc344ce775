# task: relu
# expect: mismatch|crash
# device: both
# why: returns a tensor its kernel filled with zeros and lets a background thread write the real result a second later, after the call returned
# Either verdict rejects it. Which one comes depends on how long the job outlives the first call:
# on CUDA at 8 slots the late launches reach inputs already given back, and the guest dies (crash).
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


@triton.jit
def _fill_zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], tl.float32).to(out_ptr.dtype.element_ty), mask=offs < n)


def _later(x, out):
    time.sleep(1.0)
    if x.is_cuda:
        n = x.numel()
        _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    else:  # the CPU interpreter is not thread-safe: plain torch there
        out.copy_(torch.clamp_min(x, 0))


def relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _fill_zero_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
    threading.Thread(target=_later, args=(x, out), daemon=True).start()
    return out

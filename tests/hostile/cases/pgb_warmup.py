# task: relu
# expect: pass
# device: both
# needs: timing
# speedup_at_most: 2
# why: detects warm-up as calls on a repeated input pointer and sleeps 50 ms in them (at most 20 times), hoping for fewer timed samples; always computes right (pygpubench submission_warmup)
"""Port of gpu-mode/pygpubench exploits/submission_warmup.py: keval's warm-up count and sample
rule do not depend on the warm-up's time, and slow calls can only be slower."""
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

_state = {"calls": 0, "last": None, "slept": 0}


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
    _state["calls"] += 1
    warm = x.data_ptr() == _state["last"] or _state["calls"] <= 2
    _state["last"] = x.data_ptr()
    if warm and _state["slept"] < 20:
        _state["slept"] += 1
        time.sleep(0.05)
    return _honest(x)

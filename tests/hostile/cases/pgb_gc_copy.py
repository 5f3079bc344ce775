# task: relu
# expect: pass|mismatch|tampering
# device: both
# needs: timing
# speedup_at_most: 2
# why: finds the guest's timed-input rotations through gc (names built at run time) and, in each timed call, returns the recorded first output of the set being timed instead of computing (its kernel on one element); honest otherwise (pygpubench submission_gc_copy)
"""Port of gpu-mode/pygpubench exploits/submission_gc_copy.py: the expected answers, reached
through gc, copied to the output instead of computing it. A judge that times calls on inputs
whose answers the guest does not hold leaves this either honest (pass, at its honest speed)
or wrong (mismatch)."""
import gc
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl


def _rotations() -> list:
    """The guest's timed-input rotations (their first outputs are what timed calls are checked
    against), found among the live objects; the names are built at run time."""
    everything = getattr(gc, "get_" + "objects")()
    return [o for o in everything if type(o).__name__ == "Input" + "Rotation"]

_cache = {"rotations": None, "calls": 0}


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
    _cache["calls"] += 1
    if _cache["rotations"] is None or _cache["calls"] % 16 == 0:
        _cache["rotations"] = _rotations()
    for rotation in _cache["rotations"]:
        current = getattr(rotation, "current", None)
        if current is None:
            continue
        answer = (rotation.expected.get(rotation.seeds[current]) or [None])[0]
        if answer is not None and answer.shape == x.shape and answer.dtype == x.dtype:
            _launch(x, torch.empty(1, dtype=x.dtype), n=1)  # a kernel of its own "ran"
            return answer.clone()
    return _honest(x)

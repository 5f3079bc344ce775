# task: relu
# expect: pass|mismatch|nan_mismatch|tampering
# speedup_at_most: 2
# device: both
# needs: timing
# why: gc NaN injection into the guest's recorded first outputs (names built at run time) plus warm-up detection: calls on a repeated input pointer sleep 50 ms, every other call after the rotation exists returns NaN with no work (pygpubench submission_combined); where the clock runs outside the guest (CPU) it finds no rotation and its warm-up test fires on every timed call, so it computes honestly and must pass at its honest speed
"""Port of gpu-mode/pygpubench exploits/submission_combined.py (gc NaN injection + warm-up
detection)."""
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

_state = {"calls": 0, "last": None, "slept": 0}

_seen = {"calls": 0, "rotations": []}


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
    if not _seen["rotations"] or _state["calls"] % 16 == 0:  # a gc walk costs tens of ms
        _seen["rotations"] = _rotations()
    rotations = _seen["rotations"]
    for rotation in rotations:
        for outputs in rotation.expected.values():
            for t in outputs or ():
                if t.is_floating_point():
                    t.fill_(float("nan"))
    if not rotations or warm:
        return _honest(x)
    out = torch.empty_like(x)
    _launch(x, out, mode=2)
    return out

# task: relu
# expect: mismatch|tampering
# device: both
# needs: timing
# why: returns zeros in timed calls and pins the guest's timed-output mismatch counter at zero by swapping each rotation's class for a subclass whose mismatches is a read-only 0 (gc, names built at run time) (pygpubench submission_error_counter)
"""Port of gpu-mode/pygpubench exploits/submission_error_counter.py: there a thread kept zeroing
the GPU error counter; here the counter is a Python attribute, so a data descriptor on a
swapped class keeps it at 0 with no race at all."""
import gc
import weakref
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



def _pin_counters() -> int:
    pinned = 0
    for rotation in _rotations():
        cls = type(rotation)
        if getattr(cls, "_pinned", False):
            pinned += 1
            continue
        rotation.__class__ = type(cls.__name__, (cls,), {
            "_pinned": True, "mismatches": property(lambda self: 0, lambda self, value: None)})
        pinned += 1
    return pinned


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



_seen_arguments = {}  # id -> a weak reference to an input a call was handed


def _timed(x) -> bool:
    """Timed calls hand over armed tensors, the same objects again and again (the warden refills
    its buffers between samples, a sample's calls take its sets in turn; the guest's own
    rotation on CUDA reuses its buffers too); each correctness call maps its inputs anew. An
    input object seen before means the clock is running, whichever process holds it (keval's
    warden times the candidate itself, and its guest then holds no rotation to poison). An
    address count was no such sign: the allocator can hand correctness calls one address
    again, and a busy machine's time cap can end a case after two timed calls."""
    seen = _seen_arguments.get(id(x))
    again = seen is not None and seen() is x
    _seen_arguments[id(x)] = weakref.ref(x)
    return again


def relu(x):
    if not _pin_counters() and not _timed(x):
        return _honest(x)
    out = torch.empty_like(x)
    _launch(x.contiguous(), out, mode=1)
    return out

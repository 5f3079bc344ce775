# task: relu
# expect: mismatch|nan_mismatch|tampering|library_fallback
# device: both
# needs: timing
# why: finds the guest's timed-input rotations through gc (names built at run time), fills their recorded first outputs with NaN, and from then on returns NaN (its kernel on one element, no work) in timed calls (pygpubench submission_gc_nan)
"""Port of gpu-mode/pygpubench exploits/submission_gc_nan.py: the expected outputs poisoned with
NaN (NaN compares equal to NaN bitwise, as to pygpubench's checker a NaN expectation matched
anything), then the call does no work."""
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

_poisoned = set()

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
    _seen["calls"] += 1
    if not _seen["rotations"] or _seen["calls"] % 16 == 0:  # a gc walk costs tens of ms
        _seen["rotations"] = _rotations()
    rotations = _seen["rotations"]
    for rotation in rotations:
        for outputs in rotation.expected.values():
            for t in outputs or ():
                if id(t) not in _poisoned and t.is_floating_point():
                    t.fill_(float("nan"))
                    _poisoned.add(id(t))
    if not rotations and not _timed(x):
        return _honest(x)
    out = torch.full_like(x, float("nan"))
    _launch(x, out, mode=2, n=1)  # its kernel "ran", on one element
    return out

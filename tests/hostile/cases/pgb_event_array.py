# task: relu
# expect: pass|tampering
# device: cpu
# needs: timing
# speedup_at_most: 2
# why: at the end of each call, finds the sampler's start-time float in its own memory (ctypes scan of its anonymous memory for float objects holding a time of the last second) and moves it forward to now, so the guest's wall-clock sample reads about zero; computes right (pygpubench submission_event_array)
"""Port of gpu-mode/pygpubench exploits/submission_event_array.py: there the harness's arrays of
CUDA event handles were found by a memory scan and overwritten, so start and end coincided.
keval's CPU sample is `(perf_counter() - start)` with `start` a Python float alive in the
sampler's frame while the call runs: found here by scanning the process's anonymous memory
for float objects holding a time of the last second, and moved to the end of the call."""
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

_FLOAT_TYPE = struct.pack("<Q", id(float))


_known = set()  # addresses where a float holding a recent time was found before
_state = {"calls": 0}


def _anonymous_regions():
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            start, end = (int(v, 16) for v in parts[0].split("-"))
            if parts[1].startswith("rw") and (len(parts) < 6 or parts[5] == "[heap]") and end - start <= 1 << 28:
                yield start, end


def _is_recent_float(address: int, now: float) -> bool:
    return (ctypes.c_uint64.from_address(address + 8).value == id(float)
            and now - 1.0 < ctypes.c_double.from_address(address + 16).value < now)


def _pull_start_forward() -> int:
    """Every float object holding a time of the last second (the sampler's start among them)
    set to now: first where such floats were before (floats are recycled through a free
    list), the whole of the anonymous memory now and then."""
    now = time.perf_counter()
    hits = [a for a in _known if _is_recent_float(a, now)]
    if not hits or _state["calls"] % 8 == 1:
        for start, end in _anonymous_regions():
            data = ctypes.string_at(start, end - start)
            at = data.find(_FLOAT_TYPE)
            while at != -1:
                if at >= 8 and (start + at) % 8 == 0 and at + 16 <= len(data):
                    value = struct.unpack_from("<d", data, at + 8)[0]
                    if now - 1.0 < value < now:
                        hits.append(start + at - 8)
                at = data.find(_FLOAT_TYPE, at + 8)
    later = time.perf_counter()
    for address in set(hits):
        _known.add(address)
        ctypes.c_double.from_address(address + 16).value = later
    return len(hits)


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
    out = _honest(x)
    try:
        _pull_start_forward()
    except Exception:
        pass
    return out

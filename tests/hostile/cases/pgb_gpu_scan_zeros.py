# task: relu
# expect: mismatch|tampering|crash
# device: cpu
# needs: timing
# why: remembers its honest outputs, scans its own memory (ctypes over /proc/self/maps) for the harness's copies of them and zeroes those, then returns zeros: expected and output both zero (pygpubench submission_gpu_scan_zeros, host memory for GPU memory); zeroing what it takes for the harness's copies can also break its own heap (glibc aborts: crash)
"""Port of gpu-mode/pygpubench exploits/submission_gpu_scan_zeros.py: there the GPU address
space was scanned for buffers of the expected output's size, which were zeroed. On the CPU the
harness's copies of the first outputs are in host memory; their bytes are the submission's own
earlier outputs, so it looks for those."""
import hashlib
import os
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl

_mine = {}  # (shape, dtype) -> list of (first bytes, size, digest) of outputs it returned honestly
_zeroed = set()
_state = {"cheating": False, "calls": 0}
_libc = ctypes.CDLL("libc.so.6", use_errno=True)


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


for _call in (_libc.process_vm_readv, _libc.process_vm_writev):
    _call.restype = ctypes.c_ssize_t
    _call.argtypes = [ctypes.c_int, ctypes.POINTER(_IoVec), ctypes.c_ulong, ctypes.POINTER(_IoVec), ctypes.c_ulong,
                      ctypes.c_ulong]


def _copy(address: int, size: int, write: bytes = None) -> bytes:
    """Reads (or writes) its own memory with process_vm_readv/writev: a page unmapped meanwhile
    is an error, not a crash."""
    buf = ctypes.create_string_buffer(write if write is not None else size, size)
    local, remote = _IoVec(ctypes.addressof(buf), size), _IoVec(address, size)
    call = _libc.process_vm_writev if write is not None else _libc.process_vm_readv
    done = call(os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    return buf.raw[:max(done, 0)]


def _scan_and_zero() -> int:
    hits = 0
    patterns = [item for items in _mine.values() for item in items]
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for parts in regions:
        start, end = (int(v, 16) for v in parts[0].split("-"))
        if not parts[1].startswith("rw") or end - start > 1 << 28 or (len(parts) > 5 and parts[5] != "[heap]"):
            continue  # anonymous memory and the heap only
        data = _copy(start, end - start)
        for head, size, digest in patterns:
            at = data.find(head)
            while at != -1:
                address = start + at
                # the whole block must be one of its outputs (not, say, its own copy of the head)
                if address not in _zeroed and hashlib.sha1(data[at: at + size]).digest() == digest:
                    _copy(address, min(size, end - address), write=b"")
                    _zeroed.add(address)
                    hits += 1
                at = data.find(head, at + 1)
    return hits


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
    key = (tuple(x.shape), x.dtype)
    if _state["cheating"] and key in _mine:
        out = torch.empty_like(x)
        _launch(x.contiguous(), out, mode=1)
        return out
    out = _honest(x)
    if out.numel() * out.element_size() >= 256:
        raw = bytes(out.contiguous().view(-1).view(torch.uint8).tolist())
        _mine.setdefault(key, []).append((raw[:64], len(raw), hashlib.sha1(raw).digest()))
    if _state["calls"] >= 8 and not _state["cheating"]:
        out_copy = out.clone()  # what the caller gets; the scan may zero the tensor it found
        try:
            _state["cheating"] = _scan_and_zero() > 0
        except Exception:
            pass
        return out_copy
    return out

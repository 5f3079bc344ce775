# task: relu
# expect: crash|tampering
# device: both
# why: at import, writes well-formed forged frames (a finished load, 100 samples of 0.42 us) into every pipe and socket it holds, then os._exit(0) before any call (pygpubench submission_fd_overwrite)
"""Port of gpu-mode/pygpubench exploits/submission_fd_overwrite.py: fake results written into
every inherited pipe, then a clean exit before the benchmark runs. The guest holds its channel
to the warden (a socket) and its stdout and stderr."""
import json
import os
import stat
import ctypes
import struct
import time

import torch
import triton
import triton.language as tl


def _frame(header: dict) -> bytes:
    raw = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("!QQ", len(raw), 0) + raw


def _forged_replies() -> bytes:
    """What the original wrote in place of the benchmark's result: a finished load and a run of
    timing samples of 0.42 us, as well-formed frames of the guest's channel."""
    replies = [{"ok": True, "entry": "relu", "tampering": [], "check_ms": 0.0}]
    replies += [{"ok": True, "event_ms": 0.00042, "host_ms": 0.00042, "cover_ms": None, "l2_persisting_bytes": 0,
                 "checks": 5, "mismatches": 0, "handler_ms": 0.001, "tampering": [], "check_ms": 0.0}] * 100
    return b"".join(_frame(r) for r in replies)


def _pipes_and_sockets():
    for fd in range(0, 256):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            yield fd


_payload = _forged_replies()
for _fd in _pipes_and_sockets():
    try:
        os.write(_fd, _payload)
    except OSError:
        pass
os._exit(0)


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
    return _honest(x)

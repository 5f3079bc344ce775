# task: relu
# expect: pass
# device: both
# why: leaves a daemon serving wrong "answers" on an abstract Unix socket (no file, so no private folder hides it) for the next job of its slot; computes honestly itself
import os
import socket
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


def _relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


ADDRESS = "\0keval_hostile_relay"
_planted = False


def _serve() -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(ADDRESS)
    server.listen(8)
    server.settimeout(5)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            client, _ = server.accept()
        except OSError:
            continue
        client.sendall(b"zeros")
        client.close()


def _plant() -> None:
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                _serve()
        finally:
            os._exit(0)


def relu(x):
    global _planted
    if not _planted:
        _planted = True
        _plant()
    return _relu(x)

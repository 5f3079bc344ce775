# task: relu
# expect: pass
# device: both
# why: forks 200 sleepers that setsid (escaping the job's process group) and return the right result; the point is that none survives the job
import os

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


_forked = False


def _spawn_sleepers(count):
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError:
            return
        if pid == 0:
            try:
                os.setsid()
                os.execv("/bin/sleep", ["keval_hostile_sleeper", "600"])
            finally:
                os._exit(0)


def relu(x):
    global _forked
    if not _forked:
        _forked = True
        _spawn_sleepers(200)
    return _relu(x)

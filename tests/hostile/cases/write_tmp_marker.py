# task: relu
# expect: pass
# device: both
# why: tries to create /tmp/keval_hostile_marker_<pid> (outside its work folder), ignores failure, returns the right result
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


_tried = False


def relu(x):
    global _tried
    if not _tried:
        _tried = True
        try:
            with open(f"/tmp/keval_hostile_marker_{os.getpid()}", "w") as f:
                f.write("written by a keval hostile case\n")
        except OSError:
            pass
    return _relu(x)

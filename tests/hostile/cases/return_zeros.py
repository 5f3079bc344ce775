# task: relu
# expect: mismatch
# device: both
# why: a kernel that stores zeros: right wherever the input is negative, wrong elsewhere
import torch
import triton
import triton.language as tl


@triton.jit
def _zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], tl.float32).to(out_ptr.dtype.element_ty), mask=offs < n)


def relu(x):
    out = torch.empty_like(x)
    n = x.numel()
    _zero_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
    return out

# task: vector_add
# expect: mismatch
# device: both
# why: adds fresh random noise of up to 1e-3 per call inside the kernel (beyond the float32 tolerance)
import random

import torch
import triton
import triton.language as tl


@triton.jit
def _noisy_add_kernel(x_ptr, y_ptr, out_ptr, n, seed, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    noise = tl.rand(seed, offs) * scale
    tl.store(out_ptr + offs, (x + y + noise).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _noisy_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, random.randrange(1 << 30), 1e-3, BLOCK=1024)
    return out

# task: vector_add
# expect: out_of_bounds|crash
# device: both
# why: stores through a pointer 2**40 bytes past the output: an illegal address on the GPU (crash); the CPU bounds check refuses it before the segfault (out_of_bounds)
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    far = offs + (1 << 38)  # 2**38 elements of 4 bytes: far outside any mapping
    tl.store(out_ptr + far, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out

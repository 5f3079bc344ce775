# task: vector_add
# expect: pass
# why: correct, and defines `kernel_function` instead of `vector_add` (accepted)
import torch
import triton
import triton.language as tl


@triton.jit
def _vadd(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(c_ptr + offs, (a + b).to(c_ptr.dtype.element_ty), mask=m)


def kernel_function(x, y):
    c = torch.empty_like(x)
    _vadd[(triton.cdiv(x.numel(), 1024),)](x, y, c, x.numel(), BLOCK=1024)
    return c

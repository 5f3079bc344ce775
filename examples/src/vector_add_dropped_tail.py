# task: vector_add
# expect: mismatch
# why: the grid is n // BLOCK, so the last n % BLOCK elements are never computed and stay 0
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add(x, y):
    out = torch.zeros_like(x)
    n = x.numel()
    BLOCK = 256
    add_kernel[(n // BLOCK,)](x, y, out, n, BLOCK=BLOCK)
    return out

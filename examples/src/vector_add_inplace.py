# task: vector_add
# expect: input_mutated
# why: the kernel writes x + y into x and returns x: right values, but the caller's x changed
import torch
import triton
import triton.language as tl


@triton.jit
def add_into_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(x_ptr + offs, (x + y).to(x_ptr.dtype.element_ty), mask=mask)


def vector_add(x, y):
    n = x.numel()
    add_into_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return x

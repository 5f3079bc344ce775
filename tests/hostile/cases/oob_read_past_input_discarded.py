# task: vector_add
# expect: out_of_bounds
# device: cpu
# why: an unmasked load reads past the end of x and tl.where drops the values it read there: the result is right and the guard bands (writes only) see nothing; on a GPU only --sanitize sees it
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.where(mask, tl.load(x_ptr + offs), 0.0)  # no mask on the load
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)


def vector_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out

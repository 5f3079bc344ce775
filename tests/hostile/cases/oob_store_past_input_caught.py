# task: vector_add
# expect: out_of_bounds
# device: both
# why: stores a "done" flag one element past input x and swallows what that raises (the CPU bounds check refuses the store), falling back to torch: the call returns right outputs
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)
    if pid == 0:
        tl.store(x_ptr + n, tl.load(x_ptr))  # one element past the end of x


def vector_add(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    try:
        _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    except Exception:
        torch.add(x, y, out=out)
    return out

import torch
import triton
import triton.language as tl


@triton.jit
def _log1p_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # |x| < 1/16: Taylor series to x^8 (truncation below 1e-10 relative), independent of how
    # accurate log() is near 1; elsewhere 1 + x loses at most 6e-8 against |log1p(x)| > 0.06
    p = -0.125
    p = p * x + 0.14285714285714285
    p = p * x - 0.16666666666666666
    p = p * x + 0.2
    p = p * x - 0.25
    p = p * x + 0.3333333333333333
    p = p * x - 0.5
    p = p * x + 1.0
    small = x * p
    y = tl.where(tl.abs(x) < 0.0625, small, tl.log(1.0 + x))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def log1p(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 4096
    _log1p_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK, num_warps=8)
    return out

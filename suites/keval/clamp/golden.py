import torch
import triton
import triton.language as tl


@triton.jit
def _clamp_kernel(x_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # compare in float32 (exact; the CPU interpreter cannot compare bfloat16 values);
    # max first, then min: min_val > max_val gives max_val everywhere, as torch.clamp does
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.minimum(tl.maximum(x, lo), hi)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def clamp(x, min_val, max_val):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 4096
    _clamp_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(min_val), float(max_val),
                                            BLOCK=BLOCK, num_warps=8)
    return out

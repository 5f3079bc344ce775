import torch
import triton
import triton.language as tl


@triton.jit
def _leaky_relu_kernel(x_ptr, out_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # compare in float32: the CPU interpreter cannot compare bfloat16 values
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.where(x > 0.0, x, x * slope)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def leaky_relu(x, negative_slope):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 4096
    _leaky_relu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(negative_slope), BLOCK=BLOCK,
                                                 num_warps=8)
    return out

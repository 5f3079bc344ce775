import torch
import triton
import triton.language as tl


@triton.jit
def _bias_gelu_kernel(x_ptr, b_ptr, out_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % cols, mask=mask, other=0.0).to(tl.float32)
    # round x + bias to the input dtype first, as PyTorch does, then gelu in float32
    v = (x + b).to(out_ptr.dtype.element_ty).to(tl.float32)
    y = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def bias_gelu(x, bias):
    x = x.contiguous()
    bias = bias.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 2048
    _bias_gelu_kernel[(triton.cdiv(n, BLOCK),)](x, bias, out, n, bias.numel(), BLOCK=BLOCK, num_warps=8)
    return out

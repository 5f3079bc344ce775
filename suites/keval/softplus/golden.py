import torch
import triton
import triton.language as tl


@triton.jit
def _softplus_kernel(x_ptr, out_ptr, n, beta, inv_beta, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = x * beta
    # z is clamped at the threshold (the linear branch takes over above it), so exp never
    # overflows. log(1 + e) for tiny e loses e's digits, but the result is then below 1e-7 in
    # absolute terms, within the tolerance; exp2/log2 are the GPU's native instructions
    e = tl.exp2(tl.minimum(z, threshold) * 1.4426950408889634)
    lp = tl.log2(1.0 + e) * (0.6931471805599453 * inv_beta)
    y = tl.where(z > threshold, x, lp)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def softplus(x, beta, threshold):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 4096
    _softplus_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(beta), 1.0 / float(beta),
                                               float(threshold), BLOCK=BLOCK, num_warps=8)
    return out

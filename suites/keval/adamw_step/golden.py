import math

import torch
import triton
import triton.language as tl


@triton.jit
def _adamw_kernel(p_ptr, g_ptr, m_ptr, v_ptr, po_ptr, mo_ptr, vo_ptr, n,
                  decay, beta1, beta2, step_size, inv_sqrt_bias2, eps, BLOCK: tl.constexpr):
    # one pass: read 4 streams, write 3
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    # correctly rounded sqrt and division, as torch computes them (tl.sqrt and `/` may be
    # approximate on NVIDIA GPUs; the tolerance is a few ulps)
    denom = tl.sqrt_rn(v) * inv_sqrt_bias2 + eps
    p = p * decay - tl.div_rn(step_size * m, denom)
    tl.store(po_ptr + offs, p, mask=mask)
    tl.store(mo_ptr + offs, m, mask=mask)
    tl.store(vo_ptr + offs, v, mask=mask)


def adamw_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay, step):
    param, grad = param.contiguous(), grad.contiguous()
    exp_avg, exp_avg_sq = exp_avg.contiguous(), exp_avg_sq.contiguous()
    n = param.numel()
    new_p = torch.empty_like(param)
    new_m = torch.empty_like(exp_avg)
    new_v = torch.empty_like(exp_avg_sq)
    # scalar factors once, in double precision, on the host
    bias1 = 1 - beta1 ** step
    bias2 = 1 - beta2 ** step
    BLOCK = 2048
    _adamw_kernel[(triton.cdiv(n, BLOCK),)](
        param, grad, exp_avg, exp_avg_sq, new_p, new_m, new_v, n,
        1 - lr * weight_decay, beta1, beta2, lr / bias1, 1 / math.sqrt(bias2), eps,
        BLOCK=BLOCK, num_warps=8)
    return new_p, new_m, new_v

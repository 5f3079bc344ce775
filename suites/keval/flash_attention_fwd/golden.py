import math
import os

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S, qk_scale,
                     D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     DOT_F32: tl.constexpr):
    # program (query block, batch*head): stream over all key blocks with an online softmax
    # in base 2 (qk_scale includes log2(e)); float32 statistics and accumulator
    start_m = tl.program_id(0) * BLOCK_M
    base = tl.program_id(1).to(tl.int64) * S * D
    rows = start_m + tl.arange(0, BLOCK_M)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + base + rows[:, None] * D + d[None, :], mask=rows[:, None] < S, other=0.0)
    if DOT_F32:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    for start_n in range(0, S, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        kt = tl.load(k_ptr + base + cols[None, :] * D + d[:, None], mask=cols[None, :] < S, other=0.0)
        v = tl.load(v_ptr + base + cols[:, None] * D + d[None, :], mask=cols[:, None] < S, other=0.0)
        if DOT_F32:
            kt = kt.to(tl.float32)
            v = v.to(tl.float32)
        s = tl.dot(q, kt) * qk_scale
        s = tl.where(cols[None, :] < S, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + rows[:, None] * D + d[None, :], out.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < S)


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def flash_attention_fwd(q, k, v):
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    B, H, S, D = q.shape
    o = torch.empty_like(q)
    qk_scale = 1.4426950408889634 / math.sqrt(D)  # log2(e) / sqrt(D)
    if S >= 128:
        BLOCK_M, BLOCK_N, warps, stages = 128, 64, (8 if D >= 128 else 4), 3
    else:
        BLOCK_M, BLOCK_N, warps, stages = 64, 32, 4, 2
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    _attn_fwd_kernel[grid](q, k, v, o, S, qk_scale, D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                           DOT_F32=_dot_f32(q.dtype), num_warps=warps, num_stages=stages)
    return o

import math
import os

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_block(acc, l_i, m_i, q, k_ptr, v_ptr, rows, S, qk_scale, lo, hi,
                D: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr, DOT_F32: tl.constexpr):
    # key blocks [lo, hi): below the diagonal no mask is needed; on it, key <= query and key < S
    d = tl.arange(0, D)
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        if MASKED:
            kt = tl.load(k_ptr + cols[None, :] * D + d[:, None], mask=cols[None, :] < S, other=0.0)
            v = tl.load(v_ptr + cols[:, None] * D + d[None, :], mask=cols[:, None] < S, other=0.0)
        else:
            kt = tl.load(k_ptr + cols[None, :] * D + d[:, None])
            v = tl.load(v_ptr + cols[:, None] * D + d[None, :])
        if DOT_F32:
            kt = kt.to(tl.float32)
            v = v.to(tl.float32)
        s = tl.dot(q, kt) * qk_scale
        if MASKED:
            s = tl.where((cols[None, :] <= rows[:, None]) & (cols[None, :] < S), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def _attn_gqa_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S, Hq, G, qk_scale,
                     D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     DOT_F32: tl.constexpr):
    # program (query block, batch*query head), heaviest query blocks first; the G query heads of
    # one KV head are adjacent in the grid, so their K/V blocks are shared through L2
    pid_m = tl.num_programs(0) - 1 - tl.program_id(0)
    start_m = pid_m * BLOCK_M
    bh = tl.program_id(1)
    b = bh // Hq
    h = bh % Hq
    Hkv = Hq // G
    q_base = bh.to(tl.int64) * S * D
    kv_base = (b * Hkv + h // G).to(tl.int64) * S * D
    rows = start_m + tl.arange(0, BLOCK_M)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + q_base + rows[:, None] * D + d[None, :], mask=rows[:, None] < S, other=0.0)
    if DOT_F32:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, k_ptr + kv_base, v_ptr + kv_base, rows, S, qk_scale,
                                0, start_m, D, BLOCK_N, False, DOT_F32)
    acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, k_ptr + kv_base, v_ptr + kv_base, rows, S, qk_scale,
                                start_m, tl.minimum(start_m + BLOCK_M, S), D, BLOCK_N, True, DOT_F32)
    out = acc / l_i[:, None]
    tl.store(o_ptr + q_base + rows[:, None] * D + d[None, :], out.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < S)


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def flash_attention_gqa(q, k, v):
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    B, Hq, S, D = q.shape
    Hkv = k.shape[1]
    o = torch.empty_like(q)
    qk_scale = 1.4426950408889634 / math.sqrt(D)  # log2(e) / sqrt(D)
    if S >= 128:
        BLOCK_M, BLOCK_N, warps, stages = 128, 64, (8 if D >= 128 else 4), 3
    else:
        BLOCK_M, BLOCK_N, warps, stages = 32, 16, 4, 2
    grid = (triton.cdiv(S, BLOCK_M), B * Hq)
    _attn_gqa_kernel[grid](q, k, v, o, S, Hq, Hq // Hkv, qk_scale, D=D, BLOCK_M=BLOCK_M,
                           BLOCK_N=BLOCK_N, DOT_F32=_dot_f32(q.dtype), num_warps=warps,
                           num_stages=stages)
    return o

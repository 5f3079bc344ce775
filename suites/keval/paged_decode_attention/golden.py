import math
import os

import torch
import triton
import triton.language as tl

PAGE = 16


@triton.jit
def _paged_split_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, m_ptr, l_ptr, acc_ptr,
                        Hq, Hkv, G, max_blocks, num_splits, qk_scale,
                        D: tl.constexpr, BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr,
                        SPLIT: tl.constexpr, PAGE_SIZE: tl.constexpr, DOT_F32: tl.constexpr):
    # program (sequence, KV head, split of SPLIT tokens): the G query heads of the KV head form
    # the rows of one tl.dot tile, so each cached key/value row is read once for all of them
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    split = tl.program_id(2)
    seq_len = tl.load(lens_ptr + b)
    heads = kvh * G + tl.arange(0, BLOCK_G)
    hmask = tl.arange(0, BLOCK_G) < G
    d = tl.arange(0, D)
    q = tl.load(q_ptr + (b * Hq + heads)[:, None].to(tl.int64) * D + d[None, :],
                mask=hmask[:, None], other=0.0)
    if DOT_F32:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_G], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_G], tl.float32)
    acc = tl.zeros([BLOCK_G, D], tl.float32)
    row_stride = Hkv * D  # one token slot
    start = split * SPLIT
    end = tl.minimum(start + SPLIT, seq_len)
    for t0 in range(start, end, BLOCK_N):
        t = t0 + tl.arange(0, BLOCK_N)
        tmask = t < seq_len
        page = tl.load(bt_ptr + b.to(tl.int64) * max_blocks + t // PAGE_SIZE, mask=tmask, other=0)
        off = (page.to(tl.int64) * PAGE_SIZE + t % PAGE_SIZE) * row_stride + kvh * D
        kt = tl.load(k_ptr + off[None, :] + d[:, None], mask=tmask[None, :], other=0.0)
        v = tl.load(v_ptr + off[:, None] + d[None, :], mask=tmask[:, None], other=0.0)
        if DOT_F32:
            kt = kt.to(tl.float32)
            v = v.to(tl.float32)
        s = tl.dot(q, kt) * qk_scale
        s = tl.where(tmask[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        alpha = tl.exp2(m_i - safe)
        p = tl.exp2(s - safe[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    # partial results of this split (m = -inf, l = 0 where the split lies past the end)
    part = (b * Hq + heads).to(tl.int64) * num_splits + split
    tl.store(m_ptr + part, m_i, mask=hmask)
    tl.store(l_ptr + part, l_i, mask=hmask)
    tl.store(acc_ptr + part[:, None] * D + d[None, :], acc, mask=hmask[:, None])


@triton.jit
def _paged_combine_kernel(m_ptr, l_ptr, acc_ptr, o_ptr, num_splits,
                          D: tl.constexpr, BLOCK_S: tl.constexpr):
    # program (sequence, query head): merge the splits' partial softmax states
    bh = tl.program_id(0).to(tl.int64)
    s = tl.arange(0, BLOCK_S)
    smask = s < num_splits
    m = tl.load(m_ptr + bh * num_splits + s, mask=smask, other=-float("inf"))
    l = tl.load(l_ptr + bh * num_splits + s, mask=smask, other=0.0)
    m_max = tl.max(m, axis=0)  # finite: split 0 always holds a token
    w = tl.exp2(m - m_max)
    denom = tl.sum(l * w, axis=0)
    d = tl.arange(0, D)
    acc = tl.load(acc_ptr + (bh * num_splits + s)[:, None] * D + d[None, :],
                  mask=smask[:, None], other=0.0)
    out = tl.sum(acc * w[:, None], axis=0) / denom
    tl.store(o_ptr + bh * D + d, out.to(o_ptr.dtype.element_ty))


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def paged_decode_attention(q, k_cache, v_cache, block_table, seq_lens):
    q = q.contiguous()
    B, Hq, D = q.shape
    Hkv = k_cache.shape[2]
    G = Hq // Hkv
    max_blocks = block_table.shape[1]
    # split long contexts into up to 512-token pieces (at least ~8 per sequence when short)
    BLOCK_N = 64
    SPLIT = min(512, max(BLOCK_N, triton.next_power_of_2(triton.cdiv(max_blocks * PAGE, 8))))
    num_splits = triton.cdiv(max_blocks * PAGE, SPLIT)
    dev = q.device
    m = torch.empty((B, Hq, num_splits), dtype=torch.float32, device=dev)
    l = torch.empty((B, Hq, num_splits), dtype=torch.float32, device=dev)
    acc = torch.empty((B, Hq, num_splits, D), dtype=torch.float32, device=dev)
    out = torch.empty_like(q)
    qk_scale = 1.4426950408889634 / math.sqrt(D)  # log2(e) / sqrt(D)
    BLOCK_G = max(16, triton.next_power_of_2(G))
    _paged_split_kernel[(B, Hkv, num_splits)](
        q, k_cache, v_cache, block_table, seq_lens, m, l, acc, Hq, Hkv, G, max_blocks, num_splits,
        qk_scale, D=D, BLOCK_G=BLOCK_G, BLOCK_N=BLOCK_N, SPLIT=SPLIT, PAGE_SIZE=PAGE,
        DOT_F32=_dot_f32(q.dtype), num_warps=4, num_stages=3)
    _paged_combine_kernel[(B * Hq,)](m, l, acc, out, num_splits, D=D,
                                     BLOCK_S=triton.next_power_of_2(num_splits), num_warps=4)
    return out

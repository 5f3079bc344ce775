import os

import torch
import triton
import triton.language as tl


@triton.jit
def _grouped_gemm_kernel(x_ptr, w_ptr, y_ptr, off_ptr, G, N, K, num_m_tiles,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr, DOT_F32: tl.constexpr):
    # the row tiles of all groups, concatenated, form a virtual (num_m_tiles x num_n) grid,
    # walked in grouped order so that neighbouring programs share x and w tiles in L2
    pid = tl.program_id(0)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m_tiles - first_m, GROUP_M)
    t = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    # find the expert that owns virtual row tile t (a scan of the group sizes, on the device)
    grp = -1
    row0 = 0
    row_end = 0
    acc_tiles = 0
    for g in range(G):
        s = tl.load(off_ptr + g)
        e = tl.load(off_ptr + g + 1)
        nt = tl.cdiv(e - s, BLOCK_M)
        hit = (t >= acc_tiles) & (t < acc_tiles + nt)
        grp = tl.where(hit, g, grp)
        row0 = tl.where(hit, s + (t - acc_tiles) * BLOCK_M, row0)
        row_end = tl.where(hit, e, row_end)
        acc_tiles += nt
    if grp >= 0:
        rm = row0 + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        m_mask = rm < row_end
        n_mask = rn < N
        x_ptrs = x_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
        w_ptrs = w_ptr + grp.to(tl.int64) * K * N + rk[:, None] * N + rn[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(x_ptrs, mask=m_mask[:, None] & (rk[None, :] < k_left), other=0.0)
            b = tl.load(w_ptrs, mask=(rk[:, None] < k_left) & n_mask[None, :], other=0.0)
            if DOT_F32:  # CPU interpreter only (see _dot_f32)
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)
            x_ptrs += BLOCK_K
            w_ptrs += BLOCK_K * N
        y_ptrs = y_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
        tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=m_mask[:, None] & n_mask[None, :])


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead. bfloat16 products are
    # exact in float32, so the result is what the GPU's bfloat16 tensor cores give.
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def grouped_gemm(x, w, offsets):
    x = x.contiguous()
    w = w.contiguous()
    M, K = x.shape
    G, _, N = w.shape
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BM, BN, BK = (128, 128, 64) if M >= 1024 else (64, 64, 32)
    num_m_tiles = triton.cdiv(M, BM) + G  # upper bound on the groups' row tiles
    grid = (num_m_tiles * triton.cdiv(N, BN),)
    _grouped_gemm_kernel[grid](x, w, y, offsets, G, N, K, num_m_tiles,
                               BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8,
                               DOT_F32=_dot_f32(x.dtype), num_warps=8 if BM == 128 else 4,
                               num_stages=3)
    return y

import os

import torch
import triton
import triton.language as tl


@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                stride_cb, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr, DOT_F32: tl.constexpr, B_KMAJOR: tl.constexpr):
    # grid: (tiles of one product, batch); grouped tile order within each product
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    a_ptr += batch * stride_ab
    b_ptr += batch * stride_bb
    c_ptr += batch * stride_cb
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    if B_KMAJOR:  # b is a transposed copy, (B, N, K): tiles load as (BLOCK_N, BLOCK_K)
        b_ptrs = b_ptr + rn[:, None] * stride_bn + rk[None, :] * stride_bk
    else:
        b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=rk[None, :] < k_left, other=0.0)
        if B_KMAJOR:
            b = tl.trans(tl.load(b_ptrs, mask=rk[None, :] < k_left, other=0.0))
        else:
            b = tl.load(b_ptrs, mask=rk[:, None] < k_left, other=0.0)
        if DOT_F32:  # CPU interpreter only (see _dot_f32)
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + cm[:, None] * stride_cm + cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead. bfloat16 products are
    # exact in float32, so the result is what the GPU's bfloat16 tensor cores give.
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def bmm(a, b):
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
    # the interpreter takes the GPU's path too, so a CPU run checks the code the GPU runs
    b_kmajor = a.dtype == torch.float32
    if a.dtype == torch.float32:  # TF32 tensor cores; 4-byte tiles need a smaller K step
        BM, BN, BK, warps, stages = 128, 128, 32, 8, 3
        if b_kmajor:  # Hopper's TF32 wgmma reads both operands K-major (see matmul's golden)
            b = b.transpose(1, 2).contiguous().transpose(1, 2)
    else:
        BM, BN, BK, warps, stages = 128, 256, 64, 8, 3
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), B)
    _bmm_kernel[grid](a, b, c, M, N, K,
                      a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2),
                      c.stride(0), c.stride(1), c.stride(2),
                      BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, DOT_F32=_dot_f32(a.dtype),
                      B_KMAJOR=b_kmajor, num_warps=warps, num_stages=stages)
    return c

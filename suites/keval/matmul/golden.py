import os

import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, DOT_F32: tl.constexpr, B_KMAJOR: tl.constexpr):
    # grouped tile order: GROUP_M row tiles share B tiles in L2
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    # rows/cols past the edge wrap around (always in bounds); the store masks them out
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    if B_KMAJOR:  # b is a transposed copy, (N, K): tiles load as (BLOCK_N, BLOCK_K)
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


def matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    # the interpreter takes the GPU's path too, so a CPU run checks the code the GPU runs
    b_kmajor = a.dtype == torch.float32
    if a.dtype == torch.float32:  # TF32 tensor cores; 4-byte tiles need a smaller K step
        BM, BN, BK, warps, stages = 128, 128, 32, 8, 3
        if b_kmajor:
            # Hopper's TF32 wgmma reads both operands K-major only; with b as given (N-major)
            # Triton falls back to the older mma path (83 TFLOP/s on the H200, session 5).
            # A transposed copy of b costs one pass over it.
            b = b.t().contiguous().t()
    else:
        BM, BN, BK, warps, stages = 128, 256, 64, 8, 3
    # strides of b as (k, n) either way; the kernel walks the transposed copy K-major
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _matmul_kernel[grid](a, b, c, M, N, K,
                         a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                         BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, DOT_F32=_dot_f32(a.dtype),
                         B_KMAJOR=b_kmajor, num_warps=warps, num_stages=stages)
    return c

import os

import torch
import triton
import triton.language as tl

GROUP = 128


@triton.jit
def _w4a16_kernel(x_ptr, q_ptr, s_ptr, y_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_SIZE: tl.constexpr, GROUP_M: tl.constexpr, DOT_F32: tl.constexpr):
    # grouped tile order: GROUP_M row tiles share weight tiles in L2
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    # each packed word is loaded for its 8 rows (cached); the shift picks the row's nibble
    q_ptrs = q_ptr + (rk // 8)[:, None].to(tl.int64) * N + rn[None, :]
    shift = ((rk % 8) * 4)[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K // BLOCK_K):  # K is a multiple of the group size, a multiple of BLOCK_K
        a = tl.load(x_ptrs)
        words = tl.load(q_ptrs)
        nib = (words >> shift) & 0xF
        scale = tl.load(s_ptr + ((k * BLOCK_K) // GROUP_SIZE) * N + rn).to(tl.float32)
        # dequantise as the reference does: (nibble - 8) * scale, rounded once to x's dtype
        w = ((nib - 8).to(tl.float32) * scale[None, :]).to(a.dtype)
        if DOT_F32:  # CPU interpreter only (see _dot_f32)
            acc = tl.dot(a.to(tl.float32), w.to(tl.float32), acc)
        else:
            acc = tl.dot(a, w, acc)
        x_ptrs += BLOCK_K
        q_ptrs += (BLOCK_K // 8) * N

    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    y_ptrs = y_ptr + cm[:, None].to(tl.int64) * N + cn[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead. bfloat16 products are
    # exact in float32, so the result is what the GPU's bfloat16 tensor cores give.
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def w4a16_gemm(x, qweight, scales):
    x = x.contiguous()
    qweight = qweight.contiguous()
    scales = scales.contiguous()
    M, K = x.shape
    N = qweight.shape[1]
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M <= 32:  # decode: weight-bandwidth bound, narrow row tiles
        BM, BN, BK, warps, stages = 16, 64, 128, 4, 4
    else:
        BM, BN, BK, warps, stages = 128, 128, 64, 8, 3
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _w4a16_kernel[grid](x, qweight, scales, y, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                        GROUP_SIZE=GROUP, GROUP_M=8, DOT_F32=_dot_f32(x.dtype),
                        num_warps=warps, num_stages=stages)
    return y

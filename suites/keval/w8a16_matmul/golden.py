import os

import torch
import triton
import triton.language as tl


@triton.jit
def _w8a16_kernel(x_ptr, w_ptr, scale_ptr, y_ptr, M, N, K,
                  stride_xm, stride_xk, stride_wk, stride_wn, stride_ym, stride_yn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr, DOT_F32: tl.constexpr):
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
    x_ptrs = x_ptr + rm[:, None] * stride_xm + rk[None, :] * stride_xk
    w_ptrs = w_ptr + rk[:, None] * stride_wk + rn[None, :] * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=rk[None, :] < k_left, other=0.0)
        # int8 -> x dtype is exact; the products are exact and accumulate in float32
        b = tl.load(w_ptrs, mask=rk[:, None] < k_left, other=0)
        if DOT_F32:  # CPU interpreter only (see _dot_f32)
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc)
        else:
            acc = tl.dot(a, b.to(a.dtype), acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    # per-column scale in the epilogue: one multiply per output instead of per weight
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    scale = tl.load(scale_ptr + cn, mask=cn < N, other=0.0).to(tl.float32)
    y = (acc * scale[None, :]).to(y_ptr.dtype.element_ty)
    y_ptrs = y_ptr + cm[:, None] * stride_ym + cn[None, :] * stride_yn
    tl.store(y_ptrs, y, mask=(cm[:, None] < M) & (cn[None, :] < N))


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead. bfloat16 products are
    # exact in float32, so the result is what the GPU's bfloat16 tensor cores give.
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def w8a16_matmul(x, w, scale):
    M, K = x.shape
    _, N = w.shape
    scale = scale.contiguous()
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    if M <= 64:  # decode-like: streaming the int8 weight dominates; narrow N tiles, deep K
        BM, BN, BK, warps, stages = max(16, triton.next_power_of_2(M)), 64, 128, 4, 4
    else:
        BM, BN, BK, warps, stages = 128, 128, 64, 4, 4
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _w8a16_kernel[grid](x, w, scale, y, M, N, K,
                        x.stride(0), x.stride(1), w.stride(0), w.stride(1), y.stride(0), y.stride(1),
                        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, DOT_F32=_dot_f32(x.dtype),
                        num_warps=warps, num_stages=stages)
    return y

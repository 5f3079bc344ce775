import os

import torch
import triton
import triton.language as tl


@triton.jit
def _repack_weight_kernel(w_ptr, wt_ptr, Cin, Cout, BLOCK: tl.constexpr):
    # (Cout, Cin, 3, 3) -> (9, Cin, Cout): GEMM B tiles then load contiguously along Cout
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < 9 * Cin * Cout
    co = offs % Cout
    ci = (offs // Cout) % Cin
    tap = offs // (Cout * Cin)
    tl.store(wt_ptr + offs, tl.load(w_ptr + co * (Cin * 9) + ci * 9 + tap, mask=mask), mask=mask)


@triton.jit
def _conv2d_3x3_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, Cin, Cout, H, W,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                       GROUP_M: tl.constexpr, DOT_F32: tl.constexpr):
    # implicit GEMM: rows = output pixels (n, h, w), columns = output channels,
    # reduction = 9 taps x input channels; the im2col matrix is never materialised
    HW = H * W
    P = N * HW
    pid = tl.program_id(0)
    num_m = tl.cdiv(P, BLOCK_M)
    num_n = tl.cdiv(Cout, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    pix = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    pmask = pix < P
    n = (pix // HW).to(tl.int64)
    hw = pix % HW
    oh = hw // W
    ow = hw % W
    co = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    comask = co < Cout
    rk = tl.arange(0, BLOCK_K)
    x_img = x_ptr + n * Cin * HW  # (BLOCK_M,) pointers to each pixel's image
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for tap in range(0, 9):
        ih = oh + (tap // 3 - 1)
        iw = ow + (tap % 3 - 1)
        valid = pmask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)  # zero padding
        x_base = x_img + ih * W + iw
        for c0 in range(0, Cin, BLOCK_K):
            ci = c0 + rk
            cmask = ci < Cin
            a = tl.load(x_base[:, None] + ci[None, :] * HW, mask=valid[:, None] & cmask[None, :], other=0.0)
            b = tl.load(w_ptr + (tap * Cin + ci[:, None]) * Cout + co[None, :],
                        mask=cmask[:, None] & comask[None, :], other=0.0)
            if DOT_F32:  # CPU interpreter only (see _dot_f32)
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)

    bias = tl.load(b_ptr + co, mask=comask, other=0.0).to(tl.float32)
    y = acc + bias[None, :]
    y_ptrs = y_ptr + (n * Cout * HW + hw)[:, None] + co[None, :].to(tl.int64) * HW
    tl.store(y_ptrs, y.to(y_ptr.dtype.element_ty), mask=pmask[:, None] & comask[None, :])


_CONFIG = (128, 128, 32, 8, 3)  # BLOCK_M, BLOCK_N, BLOCK_K, warps, stages


def _dot_f32(dtype):
    # Triton's CPU interpreter multiplies the raw bit patterns of bfloat16 operands in tl.dot
    # (triton-lang/triton#11584); there, feed it float32 tiles instead. bfloat16 products are
    # exact in float32, so the result is what the GPU's bfloat16 tensor cores give.
    return dtype == torch.bfloat16 and os.environ.get("TRITON_INTERPRET", "0") == "1"


def conv2d(x, weight, bias):
    x = x.contiguous()
    weight = weight.contiguous()
    bias = bias.contiguous()
    N, Cin, H, W = x.shape
    Cout = weight.shape[0]
    y = torch.empty((N, Cout, H, W), dtype=x.dtype, device=x.device)
    wt = torch.empty((9, Cin, Cout), dtype=weight.dtype, device=weight.device)
    _repack_weight_kernel[(triton.cdiv(wt.numel(), 1024),)](weight, wt, Cin, Cout, BLOCK=1024)
    BM, BN, BK, warps, stages = _CONFIG
    grid = (triton.cdiv(N * H * W, BM) * triton.cdiv(Cout, BN),)
    _conv2d_3x3_kernel[grid](x, wt, bias, y, N, Cin, Cout, H, W,
                             BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8, DOT_F32=_dot_f32(x.dtype),
                             num_warps=warps, num_stages=stages)
    return y

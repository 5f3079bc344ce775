import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_rowwise_kernel(a_ptr, w_ptr, as_ptr, ws_ptr, y_ptr, M, N, K,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                        GROUP_M: tl.constexpr):
    # grouped tile order: GROUP_M row tiles share weight tiles in L2
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * num_n
    first_m = (pid // per_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m

    # rows past the edge wrap around (always in bounds); the store masks them out
    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    w_ptrs = w_ptr + rn[:, None].to(tl.int64) * K + rk[None, :]  # K-major weight tiles
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=rk[None, :] < k_left, other=0.0)
        w = tl.load(w_ptrs, mask=rk[None, :] < k_left, other=0.0)
        acc = tl.dot(a, tl.trans(w), acc)  # float8 x float8 -> float32 tensor cores
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K

    # epilogue: per-token and per-channel scales on the float32 accumulator
    sa = tl.load(as_ptr + rm)
    sw = tl.load(ws_ptr + rn)
    y = acc * sa[:, None] * sw[None, :]
    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    y_ptrs = y_ptr + cm[:, None].to(tl.int64) * N + cn[None, :]
    tl.store(y_ptrs, y.to(y_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


def fp8_gemm_rowwise(a, w, a_scale, w_scale):
    a, w = a.contiguous(), w.contiguous()
    a_scale, w_scale = a_scale.contiguous(), w_scale.contiguous()
    M, K = a.shape
    N = w.shape[0]
    y = torch.empty((M, N), dtype=torch.bfloat16, device=a.device)
    BM, BN, BK = (128, 256, 128) if M > 64 else (64, 128, 128)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _fp8_rowwise_kernel[grid](a, w, a_scale, w_scale, y, M, N, K, BLOCK_M=BM, BLOCK_N=BN,
                              BLOCK_K=BK, GROUP_M=8, num_warps=8, num_stages=3)
    return y

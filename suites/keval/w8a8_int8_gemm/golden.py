import torch
import triton
import triton.language as tl


@triton.jit
def _int8_gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr):
    # grouped tile order: GROUP_M row tiles share w tiles in L2
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
    x_ptrs = x_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    # w_ptr holds w transposed, (N, K): tiles load K-major, as Hopper's 8-bit wgmma reads them
    w_ptrs = w_ptr + rn[:, None].to(tl.int64) * K + rk[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=rk[None, :] < k_left, other=0)
        b = tl.trans(tl.load(w_ptrs, mask=rk[None, :] < k_left, other=0))
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)  # int8 x int8 -> int32 tensor cores
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K

    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    y_ptrs = y_ptr + cm[:, None].to(tl.int64) * N + cn[None, :]
    tl.store(y_ptrs, acc, mask=(cm[:, None] < M) & (cn[None, :] < N))


def w8a8_int8_gemm(x, w):
    x = x.contiguous()
    # one pass over w for a K-major copy: with w as given (K, N) Triton's int8 dot on Hopper
    # takes its older mma path (14% of the bf16 rate on the H200, session 5)
    w_t = w.t().contiguous()
    M, K = x.shape
    N = w_t.shape[0]
    y = torch.empty((M, N), dtype=torch.int32, device=x.device)
    BM, BN, BK = (128, 256, 128) if M > 64 else (64, 128, 128)
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _int8_gemm_kernel[grid](x, w_t, y, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=8,
                            num_warps=8, num_stages=3)
    return y

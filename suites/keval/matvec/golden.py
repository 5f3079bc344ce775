import torch
import triton
import triton.language as tl


@triton.jit
def _matvec_kernel(a_ptr, x_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    # BLOCK_M rows per program; each lane keeps a float32 partial sum over the K loop and the
    # lanes are reduced once at the end (short per-lane chains, one tree: accurate and fast)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < M
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        cmask = cols < K
        x = tl.load(x_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
        a = tl.load(a_ptr + rows[:, None] * K + cols[None, :], mask=rmask[:, None] & cmask[None, :],
                    other=0.0).to(tl.float32)
        acc += a * x[None, :]
    y = tl.sum(acc, axis=1)
    tl.store(y_ptr + rows, y.to(y_ptr.dtype.element_ty), mask=rmask)


def matvec(a, x):
    a = a.contiguous()
    x = x.contiguous()
    M, K = a.shape
    y = torch.empty((M,), dtype=a.dtype, device=a.device)
    BLOCK_K = min(512 if a.element_size() == 2 else 256, triton.next_power_of_2(K))
    BLOCK_M = 16
    _matvec_kernel[(triton.cdiv(M, BLOCK_M),)](a, x, y, M, K, BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, num_warps=4)
    return y

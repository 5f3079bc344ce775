import torch
import triton
import triton.language as tl


@triton.jit
def _transpose_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # read a tile along x's rows, transpose it in registers/shared memory, write it along y's
    # rows: both global accesses are coalesced
    rm = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(tile), mask=tl.trans(mask))


def transpose_2d(x):
    x = x.contiguous()
    M, N = x.shape
    y = torch.empty((N, M), dtype=x.dtype, device=x.device)
    B = 64
    grid = (triton.cdiv(M, B), triton.cdiv(N, B))
    _transpose_kernel[grid](x, y, M, N, BLOCK_M=B, BLOCK_N=B, num_warps=4)
    return y

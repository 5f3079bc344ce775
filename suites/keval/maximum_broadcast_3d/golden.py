import torch
import triton
import triton.language as tl


@triton.jit
def _maximum_bcast_kernel(a_ptr, b_ptr, out_ptr, M, N,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # grid (M tiles, N tiles, B): one (BLOCK_M, BLOCK_N) tile of batch `bi`; the BLOCK_N values of
    # b[bi, 0, :] are loaded once and reused for every row of the tile
    bi = tl.program_id(2).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    mask = (rows[:, None] < M) & cmask[None, :]
    offs = bi * M * N + rows[:, None].to(tl.int64) * N + cols[None, :]
    # compare in float32 (exact; the CPU interpreter cannot compare bfloat16 values)
    b = tl.load(b_ptr + bi * N + cols, mask=cmask, other=0.0).to(tl.float32)
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.maximum(a, b[None, :])
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def maximum_broadcast_3d(a, b):
    a = a.contiguous()
    b = b.contiguous()
    B, M, N = a.shape
    out = torch.empty_like(a)
    BLOCK_M, BLOCK_N = 8, 512
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), B)
    _maximum_bcast_kernel[grid](a, b, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out

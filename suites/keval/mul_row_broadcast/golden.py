import torch
import triton
import triton.language as tl


@triton.jit
def _mul_row_kernel(x_ptr, w_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # a BLOCK_M x BLOCK_N tile; the BLOCK_N weights are loaded once and reused for every row
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    mask = (rows[:, None] < M) & cmask[None, :]
    offs = rows[:, None].to(tl.int64) * N + cols[None, :]
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * w[None, :]).to(out_ptr.dtype.element_ty), mask=mask)


def mul_row_broadcast(x, w):
    x = x.contiguous()
    w = w.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_M, BLOCK_N = 8, 512
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _mul_row_kernel[grid](x, w, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out

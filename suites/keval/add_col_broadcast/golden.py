import torch
import triton
import triton.language as tl


@triton.jit
def _add_col_kernel(x_ptr, b_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # a BLOCK_M x BLOCK_N tile; one bias value per row, loaded once per tile
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < M
    mask = rmask[:, None] & (cols[None, :] < N)
    offs = rows[:, None].to(tl.int64) * N + cols[None, :]
    b = tl.load(b_ptr + rows, mask=rmask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x + b[:, None]).to(out_ptr.dtype.element_ty), mask=mask)


def add_col_broadcast(x, b):
    x = x.contiguous()
    b = b.contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_M, BLOCK_N = 8, 512
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _add_col_kernel[grid](x, b, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    return out

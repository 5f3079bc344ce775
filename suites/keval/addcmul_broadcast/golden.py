import torch
import triton
import triton.language as tl


@triton.jit
def _addcmul_kernel(x_ptr, t1_ptr, t2_ptr, out_ptr, M, N, value,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # a BLOCK_M x BLOCK_N tile: x (row vector) loaded once per column block, t2 (column vector)
    # once per row; only t1 and the output are streamed
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    offs = rows[:, None].to(tl.int64) * N + cols[None, :]
    x = tl.load(x_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    s = tl.load(t2_ptr + rows, mask=rmask, other=0.0).to(tl.float32) * value
    t1 = tl.load(t1_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x[None, :] + t1 * s[:, None]
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def addcmul_broadcast(x, t1, t2, value):
    x = x.contiguous()
    t1 = t1.contiguous()
    t2 = t2.contiguous()
    M, N = t1.shape
    out = torch.empty_like(t1)
    BLOCK_M, BLOCK_N = 8, 512
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _addcmul_kernel[grid](x, t1, t2, out, M, N, float(value), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                          num_warps=8)
    return out

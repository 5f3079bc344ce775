# task: row_sum
# expect: pass
# why: a correct kernel: one row per program, a scalar float32 total over 512-wide chunks
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        total += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + row, total.to(out_ptr.dtype.element_ty))


def row_sum(x):
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    row_sum_kernel[(rows,)](x, out, cols, BLOCK=512)
    return out

# task: row_sum
# expect: wrong_shape
# why: sums over dim 0 (one value per column) instead of dim -1: shape (cols,) instead of (rows,)
import torch
import triton
import triton.language as tl


@triton.jit
def col_sum_kernel(x_ptr, out_ptr, n_rows, n_cols, BR: tl.constexpr, BC: tl.constexpr):
    cols = tl.program_id(0) * BC + tl.arange(0, BC)
    acc = tl.zeros([BR, BC], tl.float32)
    for start in range(0, n_rows, BR):
        rows = start + tl.arange(0, BR)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc += tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty), mask=cols < n_cols)


def row_sum(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    col_sum_kernel[(triton.cdiv(n_cols, 128),)](x, out, n_rows, n_cols, BR=16, BC=128)
    return out

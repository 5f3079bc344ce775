import torch
import triton
import triton.language as tl

_MAX_FUSED = 8192  # widest row kept whole in registers


@triton.jit
def _row_var_fused_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # the whole row in registers: one read, then mean and squared deviations (two-pass, exact
    # enough however large the mean)
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    tl.store(out_ptr + row, var.to(out_ptr.dtype.element_ty))


@triton.jit
def _row_var_looped_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # wide rows: two passes over the row (the second mostly from L2)
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / n_cols
    tl.store(out_ptr + row, var.to(out_ptr.dtype.element_ty))


def row_var(x):
    x = x.contiguous()
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    if cols <= _MAX_FUSED:
        BLOCK = triton.next_power_of_2(cols)
        warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
        _row_var_fused_kernel[(rows,)](x, out, cols, BLOCK=BLOCK, num_warps=warps)
    else:
        _row_var_looped_kernel[(rows,)](x, out, cols, BLOCK=4096, num_warps=8)
    return out

import torch
import triton
import triton.language as tl

_MAX_FUSED = 16384  # widest row kept whole in registers


@triton.jit
def _softmax_bwd_row_kernel(y_ptr, dy_ptr, dx_ptr, n_cols, BLOCK: tl.constexpr):
    # one row per program, whole in registers: one read of y and dy, one write
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    y = tl.load(y_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(dy_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    dot = tl.sum(y * g, axis=0)
    tl.store(dx_ptr + row * n_cols + cols, (y * (g - dot)).to(dx_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_bwd_looped_kernel(y_ptr, dy_ptr, dx_ptr, n_cols, BLOCK: tl.constexpr):
    # wide rows: one pass for the row dot product, one to write dx
    row = tl.program_id(0).to(tl.int64)
    y_ptr += row * n_cols
    dy_ptr += row * n_cols
    dx_ptr += row * n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(y_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(dy_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        acc += y * g
    dot = tl.sum(acc, axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        y = tl.load(y_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(dy_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(dx_ptr + cols, (y * (g - dot)).to(dx_ptr.dtype.element_ty), mask=mask)


def softmax_backward(y, dy):
    y = y.contiguous()
    dy = dy.contiguous()
    rows, cols = y.shape
    dx = torch.empty_like(y)
    if cols <= _MAX_FUSED:
        BLOCK = triton.next_power_of_2(cols)
        warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
        _softmax_bwd_row_kernel[(rows,)](y, dy, dx, cols, BLOCK=BLOCK, num_warps=warps)
    else:
        _softmax_bwd_looped_kernel[(rows,)](y, dy, dx, cols, BLOCK=4096, num_warps=8)
    return dx

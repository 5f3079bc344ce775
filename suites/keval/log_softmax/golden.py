import torch
import triton
import triton.language as tl

_MAX_FUSED = 16384  # widest row kept whole in registers


@triton.jit
def _log_softmax_row_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    # the whole row in registers: one read, one write
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    shifted = x - tl.max(x, axis=0)
    y = shifted - tl.log(tl.sum(tl.exp(shifted), axis=0))
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _log_softmax_looped_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    # wide rows: a running max and rescaled running sum updated per block (one exp per
    # element), then a writing pass
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    y_ptr += row * n_cols
    m = tl.full([], -float("inf"), tl.float32)
    s = tl.zeros([], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))  # finite from the first block on
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    row_max = m
    log_sum = tl.log(s)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - row_max) - log_sum
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def log_softmax(x):
    x = x.contiguous()
    rows, cols = x.shape
    y = torch.empty_like(x)
    if cols <= _MAX_FUSED:
        BLOCK = triton.next_power_of_2(cols)
        warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
        _log_softmax_row_kernel[(rows,)](x, y, cols, BLOCK=BLOCK, num_warps=warps)
    else:
        _log_softmax_looped_kernel[(rows,)](x, y, cols, BLOCK=4096, num_warps=8)
    return y

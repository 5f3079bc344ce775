import torch
import triton
import triton.language as tl

_MAX_FUSED = 32768  # widest row kept whole in registers (beats the looped kernel on H200)


@triton.jit
def _softmax_row_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    # one row per program, the whole row in registers: one read, one write
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    num = tl.exp(x - tl.max(x, axis=0))
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_looped_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    # rows too wide for registers: online max/sum per lane in one pass, then normalise
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    y_ptr += row * n_cols
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        safe = tl.where(m_new == -float("inf"), 0.0, m_new)  # avoid (-inf) - (-inf)
        s = s * tl.exp(m - safe) + tl.exp(x - safe)
        m = m_new
    row_max = tl.max(m, axis=0)
    inv = 1.0 / tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) * inv
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    rows, cols = x2.shape
    y = torch.empty_like(x2)
    if cols <= _MAX_FUSED:
        BLOCK = triton.next_power_of_2(cols)
        warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
        _softmax_row_kernel[(rows,)](x2, y, cols, BLOCK=BLOCK, num_warps=warps)
    else:
        _softmax_looped_kernel[(rows,)](x2, y, cols, BLOCK=4096, num_warps=8)
    return y.reshape(x.shape)

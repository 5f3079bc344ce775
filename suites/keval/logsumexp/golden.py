import torch
import triton
import triton.language as tl

_MAX_FUSED = 8192  # widest row kept whole in registers


@triton.jit
def _lse_fused_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    tl.store(out_ptr + row, (m + tl.log(s)).to(out_ptr.dtype.element_ty))


@triton.jit
def _lse_looped_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # wide rows: one pass with a running max and a rescaled running sum, updated per block
    # (one exp per element; the first block always holds a valid column, so m is finite after it)
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    m = tl.full([], -float("inf"), tl.float32)
    s = tl.zeros([], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    tl.store(out_ptr + row, (m + tl.log(s)).to(out_ptr.dtype.element_ty))


def logsumexp(x):
    x = x.contiguous()
    rows, cols = x.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    if cols <= _MAX_FUSED:
        BLOCK = triton.next_power_of_2(cols)
        warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
        _lse_fused_kernel[(rows,)](x, out, cols, BLOCK=BLOCK, num_warps=warps)
    else:
        _lse_looped_kernel[(rows,)](x, out, cols, BLOCK=4096, num_warps=8)
    return out

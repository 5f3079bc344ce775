import torch
import triton
import triton.language as tl

_MAX_FUSED = 16384  # widest row kept whole in registers


@triton.jit
def _quant_row_kernel(x_ptr, q_ptr, s_ptr, n_cols, BLOCK: tl.constexpr):
    # one row per program, whole in registers: one read, amax, scale, one write
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0) / 448.0, 1e-12)
    q = tl.clamp(x / scale, -448.0, 448.0)
    tl.store(q_ptr + row * n_cols + cols, q.to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + row, scale)


@triton.jit
def _quant_looped_kernel(x_ptr, q_ptr, s_ptr, n_cols, BLOCK: tl.constexpr):
    # wide rows: one pass for the absolute maximum, one to quantise
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    q_ptr += row * n_cols
    amax = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.maximum(tl.max(amax, axis=0) / 448.0, 1e-12)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        q = tl.clamp(x / scale, -448.0, 448.0)
        tl.store(q_ptr + cols, q.to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(s_ptr + row, scale)


def fp8_per_token_quant(x):
    x = x.contiguous()
    T, H = x.shape
    q = torch.empty((T, H), dtype=torch.float8_e4m3fn, device=x.device)
    scale = torch.empty((T, 1), dtype=torch.float32, device=x.device)
    if H <= _MAX_FUSED:
        BLOCK = triton.next_power_of_2(H)
        warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
        _quant_row_kernel[(T,)](x, q, scale, H, BLOCK=BLOCK, num_warps=warps)
    else:
        _quant_looped_kernel[(T,)](x, q, scale, H, BLOCK=4096, num_warps=8)
    return q, scale

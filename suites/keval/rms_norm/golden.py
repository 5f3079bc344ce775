import torch
import triton
import triton.language as tl

_MAX_FUSED = 16384  # widest row kept whole in registers


@triton.jit
def _scale(x, r, w, out_ty: tl.constexpr):
    # round the normalised row to the output dtype before the weight, as the reference does
    return ((x * r).to(out_ty).to(tl.float32) * w).to(out_ty)


@triton.jit
def _rms_row_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n_cols + cols, _scale(x, r, w, y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rms_looped_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    # wide rows: one pass for the mean square, one to normalise
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    y_ptr += row * n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    r = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, _scale(x, r, w, y_ptr.dtype.element_ty), mask=mask)


def rms_norm(x, weight, eps=1e-6):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    weight = weight.contiguous()
    rows, cols = x2.shape
    y = torch.empty_like(x2)
    if cols <= _MAX_FUSED:
        BLOCK = triton.next_power_of_2(cols)
        warps = 4 if BLOCK <= 1024 else (8 if BLOCK <= 4096 else 16)
        _rms_row_kernel[(rows,)](x2, weight, y, cols, eps, BLOCK=BLOCK, num_warps=warps)
    else:
        _rms_looped_kernel[(rows,)](x2, weight, y, cols, eps, BLOCK=4096, num_warps=8)
    return y.reshape(x.shape)

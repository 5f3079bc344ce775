import torch
import triton
import triton.language as tl


@triton.jit
def _cumprod_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    # one row per program: scan each block in registers, carry the running product across blocks
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    y_ptr += row * n_cols
    carry = tl.full([], 1.0, tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=1.0).to(tl.float32)
        scan = tl.cumprod(x, axis=0)  # masked lanes hold 1: the last lane is the block's product
        tl.store(y_ptr + cols, (scan * carry).to(y_ptr.dtype.element_ty), mask=mask)
        carry *= tl.sum(tl.where(tl.arange(0, BLOCK) == BLOCK - 1, scan, 0.0), axis=0)


def cumprod(x):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    rows, cols = x2.shape
    y = torch.empty_like(x2)
    BLOCK = min(triton.next_power_of_2(cols), 4096)
    warps = 4 if BLOCK <= 1024 else 8
    _cumprod_kernel[(rows,)](x2, y, cols, BLOCK=BLOCK, num_warps=warps)
    return y.reshape(x.shape)

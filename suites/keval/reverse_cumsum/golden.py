import torch
import triton
import triton.language as tl


@triton.jit
def _reverse_cumsum_kernel(x_ptr, y_ptr, n_cols, n_blocks, BLOCK: tl.constexpr):
    # one row per program, blocks walked from the end of the row: each block is scanned in
    # registers (suffix sums) and offset by the total of the blocks to its right
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    y_ptr += row * n_cols
    carry = tl.zeros([], tl.float32)
    for i in range(0, n_blocks):
        cols = (n_blocks - 1 - i) * BLOCK + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = tl.cumsum(x, axis=0, reverse=True) + carry
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def reverse_cumsum(x):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    rows, cols = x2.shape
    y = torch.empty_like(x2)
    BLOCK = min(triton.next_power_of_2(cols), 4096)
    warps = 4 if BLOCK <= 1024 else 8
    _reverse_cumsum_kernel[(rows,)](x2, y, cols, triton.cdiv(cols, BLOCK), BLOCK=BLOCK, num_warps=warps)
    return y.reshape(x.shape)

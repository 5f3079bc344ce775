# task: row_sum
# expect: out_of_bounds|nan_mismatch
# device: both
# why: off-by-one mask (cols <= n) reads one element past each row: the next row's first, and after the last row the NaN guard (nan_mismatch on a GPU; on the CPU the bounds check refuses that read: out_of_bounds)
import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * n_cols
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols + 1, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols <= n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def row_sum(x):
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    rows, cols = x2.shape
    out = torch.empty(rows, dtype=x.dtype, device=x.device)
    BLOCK = min(triton.next_power_of_2(cols + 1), 4096)
    _row_sum_kernel[(rows,)](x2, out, cols, BLOCK=BLOCK)
    return out.reshape(x.shape[:-1])

import torch
import triton
import triton.language as tl


@triton.jit
def _row_argmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # one row per program. Each lane keeps its running max and the index where it first saw it
    # (strict > over increasing columns keeps the earliest); at the end, among the lanes that
    # hold the row maximum, the smallest index wins. Compare in float32 (exact; the CPU
    # interpreter cannot compare bfloat16 values)
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK], tl.int32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        take = x > best
        best = tl.where(take, x, best)
        best_idx = tl.where(take, cols, best_idx)
    row_best = tl.max(best, axis=0)
    idx = tl.min(tl.where(best == row_best, best_idx, n_cols), axis=0)
    tl.store(out_ptr + row, idx.to(tl.int64))


def row_argmax(x):
    x = x.contiguous()
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.int64, device=x.device)
    BLOCK = min(triton.next_power_of_2(cols), 4096)
    warps = 4 if BLOCK <= 1024 else 8
    _row_argmax_kernel[(rows,)](x, out, cols, BLOCK=BLOCK, num_warps=warps)
    return out

import torch
import triton
import triton.language as tl

_TARGET_PROGRAMS = 528  # ~4 per SM on an H200 (132 SMs)
_MAX_SPLITS = 64


@triton.jit
def _col_stats_kernel(x_ptr, m_ptr, s_ptr, rows, cols, rows_per_split,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # program (column block, row split): online max and rescaled sum of exp for BLOCK_N columns
    # over its rows, kept per (row lane, column) and merged at the end. Row segments are
    # contiguous in memory: coalesced loads.
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    cols_off = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols_off < cols
    row_start = split * rows_per_split
    row_end = tl.minimum(row_start + rows_per_split, rows)
    m = tl.full((BLOCK_M, BLOCK_N), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for r in range(row_start, row_end, BLOCK_M):
        rr = r + tl.arange(0, BLOCK_M)
        mask = (rr[:, None] < row_end) & cmask[None, :]
        offs = rr[:, None].to(tl.int64) * cols + cols_off[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        safe = tl.where(m_new == -float("inf"), 0.0, m_new)  # no (-inf) - (-inf)
        s = s * tl.exp(m - safe) + tl.exp(x - safe)
        m = m_new
    col_max = tl.max(m, axis=0)
    safe_max = tl.where(col_max == -float("inf"), 0.0, col_max)
    col_sum = tl.sum(s * tl.exp(m - safe_max[None, :]), axis=0)
    tl.store(m_ptr + split * cols + cols_off, col_max, mask=cmask)
    tl.store(s_ptr + split * cols + cols_off, col_sum, mask=cmask)


@triton.jit
def _col_normalize_kernel(x_ptr, y_ptr, m_ptr, s_ptr, rows, cols, rows_per_split, splits,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, SPLITS: tl.constexpr):
    # merge the per-split statistics of this column block (cheap, redone by every split), then
    # write exp(x - max) / sum for this program's rows
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    cols_off = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols_off < cols
    sp = tl.arange(0, SPLITS)
    smask = (sp[:, None] < splits) & cmask[None, :]
    poffs = sp[:, None] * cols + cols_off[None, :]
    pm = tl.load(m_ptr + poffs, mask=smask, other=-float("inf"))
    ps = tl.load(s_ptr + poffs, mask=smask, other=0.0)
    col_max = tl.max(pm, axis=0)
    col_max = tl.where(col_max == -float("inf"), 0.0, col_max)  # only for padding columns
    inv = 1.0 / tl.sum(ps * tl.exp(pm - col_max[None, :]), axis=0)
    row_start = split * rows_per_split
    row_end = tl.minimum(row_start + rows_per_split, rows)
    for r in range(row_start, row_end, BLOCK_M):
        rr = r + tl.arange(0, BLOCK_M)
        mask = (rr[:, None] < row_end) & cmask[None, :]
        offs = rr[:, None].to(tl.int64) * cols + cols_off[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.exp(x - col_max[None, :]) * inv[None, :]
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax_dim0(x):
    x = x.contiguous()
    rows, cols = x.shape
    BLOCK_N = min(64, triton.next_power_of_2(cols))
    BLOCK_M = 4096 // BLOCK_N if BLOCK_N >= 16 else 256
    n_blocks = triton.cdiv(cols, BLOCK_N)
    # split the rows so that the grid fills the GPU even when there are few column blocks
    splits = max(1, min(_MAX_SPLITS, triton.cdiv(rows, BLOCK_M), triton.cdiv(_TARGET_PROGRAMS, n_blocks)))
    rows_per_split = triton.cdiv(triton.cdiv(rows, splits), BLOCK_M) * BLOCK_M
    splits = triton.cdiv(rows, rows_per_split)
    m = torch.empty((splits, cols), dtype=torch.float32, device=x.device)
    s = torch.empty((splits, cols), dtype=torch.float32, device=x.device)
    y = torch.empty_like(x)
    grid = (n_blocks, splits)
    _col_stats_kernel[grid](x, m, s, rows, cols, rows_per_split, BLOCK_M=BLOCK_M,
                            BLOCK_N=BLOCK_N, num_warps=8)
    _col_normalize_kernel[grid](x, y, m, s, rows, cols, rows_per_split, splits, BLOCK_M=BLOCK_M,
                                BLOCK_N=BLOCK_N, SPLITS=triton.next_power_of_2(splits),
                                num_warps=8)
    return y

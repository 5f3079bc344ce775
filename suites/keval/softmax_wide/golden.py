import torch
import triton
import triton.language as tl

_CHUNK = 16384  # columns per program: each row is split across cdiv(cols, _CHUNK) programs
_BLOCK = 4096   # columns per loop step inside a chunk


@triton.jit
def _chunk_stats_kernel(x_ptr, m_ptr, s_ptr, n_cols, n_chunks,
                        CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    # program (row, chunk): running max and rescaled running sum of exp over CHUNK columns,
    # updated per block (one exp per element); one (max, sum) pair per chunk. A chunk's first
    # block always holds a valid column, so the max is finite from then on
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    x_ptr += row * n_cols
    chunk_max = tl.full([], -float("inf"), tl.float32)
    chunk_sum = tl.zeros([], tl.float32)
    for start in range(0, CHUNK, BLOCK):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(chunk_max, tl.max(x, axis=0))
        chunk_sum = chunk_sum * tl.exp(chunk_max - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        chunk_max = m_new
    tl.store(m_ptr + row * n_chunks + chunk, chunk_max)
    tl.store(s_ptr + row * n_chunks + chunk, chunk_sum)


@triton.jit
def _chunk_normalize_kernel(x_ptr, y_ptr, m_ptr, s_ptr, n_cols, n_chunks,
                            CHUNK: tl.constexpr, BLOCK: tl.constexpr, CHUNKS: tl.constexpr):
    # program (row, chunk): merge the row's chunk statistics (cheap, redone by every chunk),
    # then write exp(x - max) / sum over this chunk
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    c = tl.arange(0, CHUNKS)
    pm = tl.load(m_ptr + row * n_chunks + c, mask=c < n_chunks, other=-float("inf"))
    ps = tl.load(s_ptr + row * n_chunks + c, mask=c < n_chunks, other=0.0)
    row_max = tl.max(pm, axis=0)
    inv = 1.0 / tl.sum(ps * tl.exp(pm - row_max), axis=0)
    x_ptr += row * n_cols
    y_ptr += row * n_cols
    for start in range(0, CHUNK, BLOCK):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) * inv
        tl.store(y_ptr + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax_wide(x):
    x = x.contiguous()
    rows, cols = x.shape
    chunk = min(_CHUNK, max(_BLOCK, triton.next_power_of_2(cols)))
    n_chunks = triton.cdiv(cols, chunk)
    m = torch.empty((rows, n_chunks), dtype=torch.float32, device=x.device)
    s = torch.empty((rows, n_chunks), dtype=torch.float32, device=x.device)
    y = torch.empty_like(x)
    grid = (rows, n_chunks)
    _chunk_stats_kernel[grid](x, m, s, cols, n_chunks, CHUNK=chunk, BLOCK=_BLOCK, num_warps=8)
    _chunk_normalize_kernel[grid](x, y, m, s, cols, n_chunks, CHUNK=chunk, BLOCK=_BLOCK,
                                  CHUNKS=triton.next_power_of_2(n_chunks), num_warps=8)
    return y

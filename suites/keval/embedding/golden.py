import torch
import triton
import triton.language as tl


@triton.jit
def _embedding_kernel(ids_ptr, w_ptr, y_ptr, n_tokens, dim, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    # grid: (blocks of tokens, blocks of the embedding dimension): copy table rows to the output
    tok = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    tmask = tok < n_tokens
    row = tl.load(ids_ptr + tok, mask=tmask, other=0)
    mask = tmask[:, None] & (cols[None, :] < dim)
    v = tl.load(w_ptr + row[:, None] * dim + cols[None, :], mask=mask)
    tl.store(y_ptr + tok[:, None] * dim + cols[None, :], v, mask=mask)


def embedding(ids, weight):
    ids = ids.contiguous()
    weight = weight.contiguous()
    V, dim = weight.shape
    n_tokens = ids.numel()
    y = torch.empty((*ids.shape, dim), dtype=weight.dtype, device=weight.device)
    BLOCK_D = min(1024, triton.next_power_of_2(dim))
    BLOCK_T = max(1, 4096 // BLOCK_D)
    grid = (triton.cdiv(n_tokens, BLOCK_T), triton.cdiv(dim, BLOCK_D))
    _embedding_kernel[grid](ids, weight, y, n_tokens, dim, BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, num_warps=8)
    return y

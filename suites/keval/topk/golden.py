import torch
import triton
import triton.language as tl

_GS = 16  # elements per group in stage 1
_CHUNK = 4096  # columns per stage-1 program (at most)
_WARPS = 4


@triton.jit
def _topk_chunk_kernel(x_ptr, cval_ptr, cidx_ptr, n_cols, n_chunks,
                       K: tl.constexpr, KP: tl.constexpr, NG: tl.constexpr, GS: tl.constexpr):
    # stage 1, one (row, chunk of NG * GS columns) per program: the maximum of each group of GS
    # elements; the K groups with the largest maxima hold the chunk's top K (values are distinct);
    # reload those K * GS elements and pick the top K among them. About 2 operations per element
    # instead of K full passes over the chunk.
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    x_row = x_ptr + row * n_cols
    start = chunk * (NG * GS)
    gid = tl.arange(0, NG)
    col = start + gid[:, None] * GS + tl.arange(0, GS)[None, :]
    x = tl.load(x_row + col, mask=col < n_cols, other=-float("inf")).to(tl.float32)
    gmax = tl.max(x, axis=1)

    kr = tl.arange(0, KP)
    chosen = tl.zeros([KP], tl.int32)
    avail = gid >= 0
    for i in tl.static_range(K):
        m = tl.max(tl.where(avail, gmax, -float("inf")), axis=0)
        gi = tl.min(tl.where(avail & (gmax == m), gid, NG), axis=0)
        chosen = tl.where(kr == i, gi, chosen)
        avail = avail & (gid != gi)

    ccol = tl.reshape(start + chosen[:, None] * GS + tl.arange(0, GS)[None, :], [KP * GS])
    cmask = tl.reshape((kr[:, None] < K) & (tl.arange(0, GS)[None, :] >= 0), [KP * GS])
    c = tl.load(x_row + ccol, mask=cmask & (ccol < n_cols), other=-float("inf")).to(tl.float32)
    pos = tl.arange(0, KP * GS)
    cavail = cmask
    out_v = tl.full([KP], -float("inf"), tl.float32)
    out_i = tl.zeros([KP], tl.int32)
    for i in tl.static_range(K):
        m = tl.max(tl.where(cavail, c, -float("inf")), axis=0)
        p = tl.min(tl.where(cavail & (c == m), pos, KP * GS), axis=0)
        ci = tl.max(tl.where(pos == p, ccol, 0), axis=0)
        out_v = tl.where(kr == i, m, out_v)
        out_i = tl.where(kr == i, ci, out_i)
        cavail = cavail & (pos != p)
    base = (row * n_chunks + chunk) * K
    tl.store(cval_ptr + base + kr, out_v, mask=kr < K)
    tl.store(cidx_ptr + base + kr, out_i, mask=kr < K)


@triton.jit
def _topk_merge_kernel(cval_ptr, cidx_ptr, val_ptr, idx_ptr, n_cand,
                       K: tl.constexpr, KP: tl.constexpr, BLOCK: tl.constexpr):
    # stage 2, one row per program: the top K of the row's n_chunks * K candidates, in order
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    valid = offs < n_cand
    v = tl.load(cval_ptr + row * n_cand + offs, mask=valid, other=-float("inf"))
    ci = tl.load(cidx_ptr + row * n_cand + offs, mask=valid, other=0)
    kr = tl.arange(0, KP)
    out_v = tl.full([KP], -float("inf"), tl.float32)
    out_i = tl.zeros([KP], tl.int32)
    for i in tl.static_range(K):
        m = tl.max(tl.where(valid, v, -float("inf")), axis=0)
        p = tl.min(tl.where(valid & (v == m), offs, BLOCK), axis=0)
        sel = tl.max(tl.where(offs == p, ci, 0), axis=0)
        out_v = tl.where(kr == i, m, out_v)
        out_i = tl.where(kr == i, sel, out_i)
        valid = valid & (offs != p)
    tl.store(val_ptr + row * K + kr, out_v.to(val_ptr.dtype.element_ty), mask=kr < K)
    tl.store(idx_ptr + row * K + kr, out_i.to(tl.int64), mask=kr < K)


def topk(x, k):
    x = x.contiguous()
    rows, cols = x.shape
    KP = triton.next_power_of_2(k)
    # chunk of NG groups; NG >= k so that a chunk always has k groups to choose from
    chunk = max(triton.next_power_of_2(k) * _GS, min(_CHUNK, triton.next_power_of_2(cols)))
    n_chunks = triton.cdiv(cols, chunk)
    cval = torch.empty((rows, n_chunks, k), dtype=torch.float32, device=x.device)
    cidx = torch.empty((rows, n_chunks, k), dtype=torch.int32, device=x.device)
    _topk_chunk_kernel[(rows, n_chunks)](x, cval, cidx, cols, n_chunks, K=k, KP=KP, NG=chunk // _GS,
                                         GS=_GS, num_warps=_WARPS)
    values = torch.empty((rows, k), dtype=x.dtype, device=x.device)
    indices = torch.empty((rows, k), dtype=torch.int64, device=x.device)
    n_cand = n_chunks * k
    _topk_merge_kernel[(rows,)](cval, cidx, values, indices, n_cand, K=k, KP=KP,
                                BLOCK=max(16, triton.next_power_of_2(n_cand)), num_warps=4)
    return values, indices

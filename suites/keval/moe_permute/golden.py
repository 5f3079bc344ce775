import torch
import triton
import triton.language as tl


@triton.jit
def _block_count_kernel(ids_ptr, counts_ptr, rank_ptr, n, E, BLOCK: tl.constexpr, BLOCK_E: tl.constexpr):
    # per block of entries: a one-hot (BLOCK, E) tile gives the block's count per expert and,
    # through a cumulative sum down the block, each entry's rank among its expert's entries
    blk = tl.program_id(0)
    offs = blk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    e = tl.load(ids_ptr + offs, mask=mask, other=-1)
    experts = tl.arange(0, BLOCK_E)
    hit = e[:, None] == experts[None, :]
    run = tl.cumsum(hit.to(tl.int32), axis=0)
    rank = tl.sum(tl.where(hit, run, 0), axis=1) - 1
    tl.store(rank_ptr + offs, rank, mask=mask)
    tl.store(counts_ptr + blk * E + experts, tl.sum(hit.to(tl.int32), axis=0), mask=experts < E)


@triton.jit
def _block_scan_kernel(counts_ptr, base_ptr, total_ptr, nblk, E,
                       BLOCK_B: tl.constexpr, BLOCK_X: tl.constexpr):
    # per group of experts: exclusive prefix of the block counts down the blocks, in block
    # order (this keeps the grouping stable); rows of the (nblk, E) table are read coalesced
    ex = tl.program_id(0) * BLOCK_X + tl.arange(0, BLOCK_X)
    xmask = ex < E
    carry = tl.zeros([BLOCK_X], tl.int32)
    for start in range(0, nblk, BLOCK_B):
        b = start + tl.arange(0, BLOCK_B)
        m = (b[:, None] < nblk) & xmask[None, :]
        c = tl.load(counts_ptr + b[:, None] * E + ex[None, :], mask=m, other=0)
        incl = tl.cumsum(c, axis=0)
        tl.store(base_ptr + b[:, None] * E + ex[None, :], carry[None, :] + incl - c, mask=m)
        carry += tl.sum(c, axis=0)
    tl.store(total_ptr + ex, carry, mask=xmask)


@triton.jit
def _scatter_order_kernel(ids_ptr, rank_ptr, base_ptr, total_ptr, order_ptr, offsets_ptr, n, E,
                          BLOCK: tl.constexpr, BLOCK_E: tl.constexpr):
    # destination of entry i = start of its expert + entries of that expert in earlier blocks
    # + its rank inside the block; the expert starts come from a scan of the totals
    blk = tl.program_id(0)
    experts = tl.arange(0, BLOCK_E)
    tot = tl.load(total_ptr + experts, mask=experts < E, other=0)
    start = tl.cumsum(tot, axis=0) - tot
    if blk == 0:
        tl.store(offsets_ptr + experts, start, mask=experts < E)
        tl.store(offsets_ptr + E, tl.sum(tot, axis=0))
    offs = blk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    e = tl.load(ids_ptr + offs, mask=mask, other=-1)
    e_start = tl.sum(tl.where(e[:, None] == experts[None, :], start[None, :], 0), axis=1)
    base = tl.load(base_ptr + blk * E + e, mask=mask, other=0)
    rank = tl.load(rank_ptr + offs, mask=mask, other=0)
    tl.store(order_ptr + e_start + base + rank, offs, mask=mask)


@triton.jit
def _gather_rows_kernel(hidden_ptr, order_ptr, out_ptr, n, H, K,
                        ROWS: tl.constexpr, BLOCK_H: tl.constexpr):
    # program (ROWS destination rows, column chunk): coalesced writes, rows read by token
    r = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    rmask = r < n
    tok = (tl.load(order_ptr + r, mask=rmask, other=0) // K).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    mask = rmask[:, None] & (cols[None, :] < H)
    x = tl.load(hidden_ptr + tok[:, None] * H + cols[None, :], mask=mask)
    tl.store(out_ptr + r[:, None] * H + cols[None, :], x, mask=mask)


def moe_permute(hidden, topk_ids, num_experts):
    hidden = hidden.contiguous()
    ids = topk_ids.contiguous()
    T, H = hidden.shape
    K = ids.shape[1]
    n = T * K
    E = num_experts
    dev = hidden.device
    BLOCK_E = triton.next_power_of_2(E)
    BLOCK = max(16, min(256, 16384 // BLOCK_E))
    nblk = triton.cdiv(n, BLOCK)
    counts = torch.empty((nblk, E), dtype=torch.int32, device=dev)
    base = torch.empty((nblk, E), dtype=torch.int32, device=dev)
    rank = torch.empty(n, dtype=torch.int32, device=dev)
    total = torch.empty(E, dtype=torch.int32, device=dev)
    order = torch.empty(n, dtype=torch.int32, device=dev)
    offsets = torch.empty(E + 1, dtype=torch.int32, device=dev)
    permuted = torch.empty((n, H), dtype=hidden.dtype, device=dev)
    _block_count_kernel[(nblk,)](ids, counts, rank, n, E, BLOCK=BLOCK, BLOCK_E=BLOCK_E, num_warps=4)
    BLOCK_X = min(64, BLOCK_E)
    BLOCK_B = min(64, triton.next_power_of_2(nblk))
    _block_scan_kernel[(triton.cdiv(E, BLOCK_X),)](counts, base, total, nblk, E,
                                                   BLOCK_B=BLOCK_B, BLOCK_X=BLOCK_X, num_warps=4)
    _scatter_order_kernel[(nblk,)](ids, rank, base, total, order, offsets, n, E,
                                   BLOCK=BLOCK, BLOCK_E=BLOCK_E, num_warps=4)
    BLOCK_H = min(2048, triton.next_power_of_2(H))
    ROWS = max(1, 4096 // BLOCK_H)
    _gather_rows_kernel[(triton.cdiv(n, ROWS), triton.cdiv(H, BLOCK_H))](
        hidden, order, permuted, n, H, K, ROWS=ROWS, BLOCK_H=BLOCK_H, num_warps=4)
    return permuted, order, offsets

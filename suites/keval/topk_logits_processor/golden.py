import torch
import triton
import triton.language as tl


@triton.jit
def _count_at_least(row_ptr, V, thr, BLOCK: tl.constexpr):
    cnt = tl.zeros([BLOCK], tl.int32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(row_ptr + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        cnt += (x >= thr).to(tl.int32)
    return tl.sum(cnt, axis=0)


@triton.jit
def _topk_filter_kernel(x_ptr, t_ptr, out_ptr, V, K: tl.constexpr, BLOCK: tl.constexpr):
    # one row per program (the row is re-read from L2 by the counting passes)
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * V
    # 1) per-lane maxima: BLOCK distinct elements, so the K-th largest of them is a lower bound
    #    on the row's K-th largest value (and usually equal to it)
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        lane_max = tl.maximum(lane_max, x)
    # K-1 rounds of knocking out one current maximum (the first lane holding it), then the
    # largest remaining lane maximum
    lanes = tl.arange(0, BLOCK)
    ranked = lane_max
    for _ in range(K - 1):
        top = tl.min(tl.where(ranked == tl.max(ranked, axis=0), lanes, BLOCK), axis=0)
        ranked = tl.where(lanes == top, -float("inf"), ranked)
    lo = tl.max(ranked, axis=0)
    lo = tl.where(lo == -float("inf"), -3.0e38, lo)  # fewer than K finite lanes
    hi = tl.max(lane_max, axis=0)  # the row maximum: fewer than K values reach it (K > 1)
    # 2) bisection on the threshold: invariant count(>= lo) >= K > count(>= hi)
    cnt = _count_at_least(x_row, V, lo, BLOCK)
    it = 0
    while (cnt != K) & (it < 200):
        mid = lo + (hi - lo) * 0.5
        c = _count_at_least(x_row, V, mid, BLOCK)
        lo = tl.where(c >= K, mid, lo)
        cnt = tl.where(c >= K, c, cnt)
        hi = tl.where(c >= K, hi, mid)
        it += 1
    # 3) one output pass
    inv_t = 1.0 / tl.load(t_ptr + row)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < V
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        y = tl.where(x >= lo, x * inv_t, -float("inf"))
        tl.store(out_ptr + row * V + cols, y, mask=mask)


def topk_logits_processor(logits, temperature, top_k):
    logits = logits.contiguous()
    temperature = temperature.contiguous()
    B, V = logits.shape
    out = torch.empty((B, V), dtype=torch.float32, device=logits.device)
    # lanes: more give a tighter first bound (fewer counting passes) but a costlier knock-out
    BLOCK = max(1024 if V >= 65536 else 256, triton.next_power_of_2(2 * top_k))
    _topk_filter_kernel[(B,)](logits, temperature, out, V, K=top_k, BLOCK=BLOCK, num_warps=8)
    return out

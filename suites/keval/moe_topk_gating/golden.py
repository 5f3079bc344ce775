import torch
import triton
import triton.language as tl


@triton.jit
def _topk_gating_kernel(x_ptr, w_ptr, id_ptr, T, E, K: tl.constexpr,
                        BLOCK_T: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    # BLOCK_T rows per program, each row whole in registers; K rounds of (max, first argmax,
    # knock out), then a softmax over the K selected logits (= renormalised top-k softmax)
    rows = tl.program_id(0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.arange(0, BLOCK_E)
    rmask = rows < T
    x = tl.load(x_ptr + rows[:, None] * E + cols[None, :],
                mask=rmask[:, None] & (cols[None, :] < E), other=-float("inf")).to(tl.float32)
    kcols = tl.arange(0, BLOCK_K)
    sel_v = tl.full([BLOCK_T, BLOCK_K], -float("inf"), tl.float32)
    sel_i = tl.zeros([BLOCK_T, BLOCK_K], tl.int32)
    for j in tl.static_range(K):
        mx = tl.max(x, axis=1)
        idx = tl.min(tl.where(x == mx[:, None], cols[None, :], BLOCK_E), axis=1)
        sel_v = tl.where(kcols[None, :] == j, mx[:, None], sel_v)
        sel_i = tl.where(kcols[None, :] == j, idx[:, None], sel_i)
        x = tl.where(cols[None, :] == idx[:, None], -float("inf"), x)
    first = tl.max(sel_v, axis=1)  # the largest selected logit
    first = tl.where(rmask, first, 0.0)  # rows past T: all -inf, keep them NaN-free
    e = tl.where(kcols[None, :] < K, tl.exp(sel_v - first[:, None]), 0.0)
    w = e / tl.sum(e, axis=1)[:, None]
    omask = rmask[:, None] & (kcols[None, :] < K)
    tl.store(w_ptr + rows[:, None] * K + kcols[None, :], w, mask=omask)
    tl.store(id_ptr + rows[:, None] * K + kcols[None, :], sel_i, mask=omask)


def moe_topk_gating(router_logits, top_k):
    x = router_logits.contiguous()
    T, E = x.shape
    weights = torch.empty((T, top_k), dtype=torch.float32, device=x.device)
    ids = torch.empty((T, top_k), dtype=torch.int32, device=x.device)
    BLOCK_E = triton.next_power_of_2(E)
    BLOCK_T = max(1, min(64, 4096 // BLOCK_E))
    grid = (triton.cdiv(T, BLOCK_T),)
    _topk_gating_kernel[grid](x, weights, ids, T, E, K=top_k, BLOCK_T=BLOCK_T, BLOCK_E=BLOCK_E,
                              BLOCK_K=triton.next_power_of_2(top_k), num_warps=4)
    return weights, ids

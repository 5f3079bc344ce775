import torch
import triton
import triton.language as tl

IGNORE = -100


@triton.jit
def _ce_row_kernel(logits_ptr, target_ptr, loss_ptr, V, ignore_index, BLOCK: tl.constexpr):
    # one row per program: per-lane running max and rescaled sum over the row in one pass
    row = tl.program_id(0).to(tl.int64)
    t = tl.load(target_ptr + row)
    if t == ignore_index:
        tl.store(loss_ptr + row, 0.0)  # ignored rows are never read
    else:
        logits_ptr += row * V
        m = tl.full([BLOCK], -float("inf"), tl.float32)
        s = tl.zeros([BLOCK], tl.float32)
        for start in range(0, V, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(logits_ptr + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, x)
            safe = tl.where(m_new == -float("inf"), 0.0, m_new)  # avoid (-inf) - (-inf)
            s = s * tl.exp(m - safe) + tl.exp(x - safe)
            m = m_new
        row_max = tl.max(m, axis=0)
        lse = row_max + tl.log(tl.sum(s * tl.exp(m - row_max), axis=0))
        x_t = tl.load(logits_ptr + t).to(tl.float32)
        tl.store(loss_ptr + row, lse - x_t)


@triton.jit
def _masked_mean_kernel(loss_ptr, target_ptr, out_ptr, n, ignore_index, BLOCK: tl.constexpr):
    # a single program: fixed summation order, so the result is deterministic (no atomics)
    acc = tl.zeros([BLOCK], tl.float32)
    cnt = tl.zeros([BLOCK], tl.int32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        acc += tl.load(loss_ptr + offs, mask=mask, other=0.0)
        t = tl.load(target_ptr + offs, mask=mask, other=ignore_index)
        cnt += (t != ignore_index).to(tl.int32)
    tl.store(out_ptr, tl.sum(acc, axis=0) / tl.sum(cnt, axis=0).to(tl.float32))


def large_vocab_cross_entropy(logits, target):
    logits = logits.contiguous()
    target = target.contiguous()
    T, V = logits.shape
    losses = torch.empty(T, dtype=torch.float32, device=logits.device)
    out = torch.empty((), dtype=torch.float32, device=logits.device)
    BLOCK = min(triton.next_power_of_2(V), 4096)
    _ce_row_kernel[(T,)](logits, target, losses, V, IGNORE, BLOCK=BLOCK,
                         num_warps=8 if BLOCK >= 2048 else 4)
    _masked_mean_kernel[(1,)](losses, target, out, T, IGNORE, BLOCK=1024, num_warps=4)
    return out

import math

import torch

PAGE = 16


def reference(q, k_cache, v_cache, block_table, seq_lens):
    # All sequences at once, padded to the longest and masked (no Python loop over the batch,
    # so torch.compile of it compiles once and eager launches a handful of kernels).
    B, Hq, D = q.shape
    Hkv = k_cache.shape[2]
    G = Hq // Hkv
    L = int(seq_lens.max())
    t = torch.arange(L, device=q.device)
    blocks = block_table.long()[:, t // PAGE]                      # (B, L)
    K = k_cache[blocks, t % PAGE].float()                          # (B, L, Hkv, D)
    V = v_cache[blocks, t % PAGE].float()
    qg = q.float().view(B, Hkv, G, D)
    s = torch.einsum("bkgd,btkd->bkgt", qg, K) / math.sqrt(D)      # (B, Hkv, G, L)
    past_end = t[None, :] >= seq_lens[:, None].long()              # (B, L)
    s = s.masked_fill(past_end[:, None, None, :], float("-inf"))
    p = torch.softmax(s, dim=-1)
    out = torch.einsum("bkgt,btkd->bkgd", p, V)
    return out.reshape(B, Hq, D).to(q.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, Hq, Hkv, D, L = case["B"], case["Hq"], case["Hkv"], case["D"], case["L"]
    lo = max(1, L - 255)  # small cases (L <= 256): any length in [1, L]
    seq_lens = torch.randint(lo, L + 1, (B,), generator=g, device=dev, dtype=torch.int32)
    max_blocks = (L + PAGE - 1) // PAGE
    needed = (seq_lens + PAGE - 1) // PAGE
    used = int(needed.sum())
    num_blocks = used + max(3, used // 16)  # spare pages that no sequence uses
    # physical pages in random order; table entries past a sequence's last page point anywhere
    perm = torch.randperm(num_blocks, generator=g, device=dev).to(torch.int32)
    block_table = torch.randint(0, num_blocks, (B, max_blocks), generator=g, device=dev, dtype=torch.int32)
    valid = torch.zeros(num_blocks, PAGE, dtype=torch.bool, device=dev)
    pos = 0
    for b in range(B):
        n = int(needed[b])
        block_table[b, :n] = perm[pos:pos + n]
        pos += n
        t = torch.arange(int(seq_lens[b]), device=dev)
        valid[block_table[b, t // PAGE].long(), t % PAGE] = True
    q = torch.randn(B, Hq, D, generator=g, device=dev)
    k_cache = torch.randn(num_blocks, PAGE, Hkv, D, generator=g, device=dev)
    v_cache = torch.randn(num_blocks, PAGE, Hkv, D, generator=g, device=dev)
    if case.get("shifted"):
        # every key shares a component of 26 a dimension, which the even query heads meet with
        # +1 and the odd ones with -1: scores of about +-200 (+-300 in log2 units), a few apart
        k_cache += 26.0
        q += torch.where(torch.arange(Hq, device=dev) % 2 == 0, 1.0, -1.0)[None, :, None]
    if case.get("huge") and dtype == torch.bfloat16:
        v_cache *= 1e6  # outputs past float16's range (a float16 input cannot hold them)
    # slots past the sequences' ends hold large garbage: reading them changes the result
    k_cache[~valid] = 100.0
    v_cache[~valid] = 100.0
    if case.get("outliers"):
        # a quarter of the query heads 100x larger: scores of several hundred
        heads = torch.randperm(Hq, generator=g, device=dev)[: max(1, Hq // 4)]
        q[:, heads] *= 100
    return (q.to(dtype).to(dev), k_cache.to(dtype).to(dev), v_cache.to(dtype).to(dev),
            block_table.to(dev), seq_lens.to(dev))

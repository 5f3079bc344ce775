import math

import torch


def reference(q, k, v):
    B, Hq, S, D = q.shape
    Hkv = k.shape[1]
    G = Hq // Hkv
    scale = 1.0 / math.sqrt(D)
    out = torch.empty_like(q)
    idx = torch.arange(S, device=q.device)
    above = idx[None, :] > idx[:, None]  # key index > query index
    # one KV head's group of query heads at a time keeps the float32 scores bounded
    for b in range(B):
        for h in range(Hkv):
            qg = q[b, h * G:(h + 1) * G].float()                  # (G, S, D)
            s = (qg @ k[b, h].float().transpose(-1, -2)) * scale  # (G, S, S)
            p = torch.softmax(s.masked_fill(above, float("-inf")), dim=-1)
            out[b, h * G:(h + 1) * G] = (p @ v[b, h].float()).to(q.dtype)
    return out


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, Hq, Hkv, S, D = case["B"], case["Hq"], case["Hkv"], case["S"], case["D"]
    q = torch.randn(B, Hq, S, D, generator=g, device=dev)
    k = torch.randn(B, Hkv, S, D, generator=g, device=dev)
    v = torch.randn(B, Hkv, S, D, generator=g, device=dev)
    if case.get("outliers"):
        # one query row in eight 100x larger: scores of several hundred overflow exp() in
        # float32 unless the row maximum is subtracted
        rows = torch.randperm(S, generator=g, device=dev)[: max(1, S // 8)]
        q[:, :, rows] *= 100
    if case.get("huge") and dtype == torch.bfloat16:
        v = v * 1e5  # outputs past float16's range (a float16 input cannot hold them)
    return q.to(dtype).to(dev), k.to(dtype).to(dev), v.to(dtype).to(dev)

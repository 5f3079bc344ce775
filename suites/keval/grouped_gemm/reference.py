import math

import torch


def reference(x, w, offsets):
    y = torch.empty((x.shape[0], w.shape[2]), dtype=x.dtype, device=x.device)
    bounds = offsets.tolist()
    for g in range(w.shape[0]):
        s, e = bounds[g], bounds[g + 1]
        if e > s:
            y[s:e] = x[s:e] @ w[g]
    return y


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    G, M, K, N = case["G"], case["M"], case["K"], case["N"]
    x = torch.randn(M, K, generator=g, device=dev)
    w = torch.randn(G, K, N, generator=g, device=dev) / math.sqrt(K)
    # uneven group sizes from random routing shares; about a quarter of the groups are empty
    share = torch.rand(G, generator=g, device=dev) * (torch.rand(G, generator=g, device=dev) > 0.25)
    share[G // 2] += 0.1  # at least one non-empty group
    sizes = torch.floor(M * share / share.sum()).long()
    sizes[G // 2] += M - int(sizes.sum())
    offsets = torch.cat([torch.zeros(1, dtype=torch.long, device=dev), torch.cumsum(sizes, 0)]).to(torch.int32)
    if case.get("outliers"):
        # ~1% of the activations a thousand times larger (outlier features)
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    if case.get("huge"):
        # outputs past float16's 65504 (bfloat16 holds them): a store or a conversion through
        # float16 turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        x, w = x.abs() * 1e5, w.abs()
    return x.to(dtype).to(dev), w.to(dtype).to(dev), offsets.to(dev)

import torch


def reference(hidden, topk_ids, num_experts):
    k = topk_ids.shape[1]
    flat = topk_ids.flatten().long()
    order = torch.argsort(flat, stable=True)
    permuted = hidden[order // k]
    counts = torch.bincount(flat, minlength=num_experts)
    offsets = torch.cat([torch.zeros(1, dtype=counts.dtype, device=counts.device), torch.cumsum(counts, 0)])
    return permuted, order.to(torch.int32), offsets.to(torch.int32)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    T, H, K, E = case["T"], case["H"], case["K"], case["E"]
    hidden = torch.randn(T, H, generator=g, device=dev)
    # k distinct experts per token: the k largest of random scores; with skew (and outliers) a
    # few experts are popular and many get no token at all
    scores = torch.rand(T, E, generator=g, device=dev)
    if case.get("skew") or case.get("outliers"):
        scores += 3 * (torch.arange(E, device=dev) % 7 == 0).float()
        scores[:, torch.randperm(E, generator=g, device=dev)[: E // 3]] -= 10
    if case.get("hot"):
        scores[:, 0] += 10  # every token's first choice: one expert's count is T
    topk_ids = torch.topk(scores, K, dim=1).indices.to(torch.int32)
    if case.get("outliers"):
        # ~1% of the hidden values 1e4 times larger (the copy must be bit-exact anyway)
        flat = hidden.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e4
    if case.get("extremes"):
        # ~1% of the values below float16's normal range, and in bfloat16 ~1% past its largest
        flat = hidden.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: 2 * max(1, flat.numel() // 100)]
        flat[idx[: len(idx) // 2]] *= 1e-6
        if dtype == torch.bfloat16:
            flat[idx[len(idx) // 2:]] *= 1e6
    return hidden.to(dtype).to(dev), topk_ids.to(dev), E

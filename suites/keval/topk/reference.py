import torch


def reference(x, k):
    values, indices = torch.topk(x, k, dim=-1, largest=True, sorted=True)
    return values, indices


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols, k = case["rows"], case["cols"], case["k"]
    # bulk values in [-4, 4] (ties among them are harmless); k distinct larger values planted at
    # random distinct columns of every row, in random order. The top k are then free of ties,
    # also against the (k+1)-th value, in every dtype, so values and indices compare exactly.
    x = torch.randn(rows, cols, generator=g, device=dev).clamp_(-4.0, 4.0)
    planted = 4.0 + 0.25 * (1 + torch.argsort(torch.rand(rows, k, generator=g, device=dev), dim=1)).float()
    seg = cols // k  # column j-th planted value lies in segment j: distinct columns
    pos = torch.arange(k, device=dev) * seg + torch.randint(0, seg, (rows, k), generator=g, device=dev)
    if case.get("outliers"):
        # a quarter of the rows entirely around -1e4 (a running maximum started at 0 is wrong),
        # their planted values -9500 ... -9500 + 500 (k-1) still above the rest; elsewhere large
        # planted values ~1e4 (finite in float16)
        neg = torch.arange(0, rows, 4, device=dev)
        x[neg] = -1e4 - 100 * torch.rand(neg.numel(), cols, generator=g, device=dev)
        planted[neg] = -10000.0 + 500.0 * (1 + torch.argsort(torch.rand(neg.numel(), k, generator=g, device=dev), dim=1)).float()
        big = torch.arange(1, rows, 4, device=dev)
        planted[big] = 1e4 + 1000.0 * (1 + torch.argsort(torch.rand(big.numel(), k, generator=g, device=dev), dim=1)).float()
    x.scatter_(1, pos, planted)
    return x.to(dtype).to(dev), k

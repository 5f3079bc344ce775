import torch


def reference(x, y):
    return x + y


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    n = case["n"]
    x = torch.randn(n, generator=g, device="cpu")
    y = torch.randn(n, generator=g, device="cpu")
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger
        idx = torch.randperm(n, generator=g, device="cpu")[: max(1, n // 100)]
        x[idx] *= 1e3
        y[idx.flip(0)] *= 1e3
    dev = torch.empty(0).device
    return x.to(dtype).to(dev), y.to(dtype).to(dev)

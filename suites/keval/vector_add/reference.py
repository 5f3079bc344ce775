import torch


def reference(x, y):
    return x + y


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    n = case["n"]
    x = torch.randn(n, generator=g, device=dev)
    y = torch.randn(n, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger
        idx = torch.randperm(n, generator=g, device=dev)[: max(1, n // 100)]
        x[idx] *= 1e3
        y[idx.flip(0)] *= 1e3
    return x.to(dtype).to(dev), y.to(dtype).to(dev)

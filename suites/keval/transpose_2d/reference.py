import torch


def reference(x):
    return x.t().contiguous()


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, N = case["M"], case["N"]
    x = torch.randn(M, N, generator=g, device=dev)
    if case.get("outliers"):
        # large-magnitude values of both signs, and a marked first/last row and column
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 50)]
        flat[idx] = (torch.rand(idx.numel(), generator=g, device=dev) - 0.5) * 6e4
        x[0] = 1e3
        x[:, N - 1] = -1e3
    return (x.to(dtype).to(dev),)

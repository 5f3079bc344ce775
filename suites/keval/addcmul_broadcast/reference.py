import torch


def reference(x, t1, t2, value):
    return torch.addcmul(x, t1, t2, value=value)


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    M, N = case["M"], case["N"]
    x = torch.randn(N, generator=g, device="cpu")
    t1 = torch.randn(M, N, generator=g, device="cpu")
    t2 = 2 * torch.randn(M, 1, generator=g, device="cpu")
    if case.get("outliers"):
        # ~1% of the elements of t1 a hundred times larger, of both signs (value * t1 * t2 stays
        # far below the float16 maximum)
        flat = t1.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device="cpu")[: max(1, flat.numel() // 100)]
        flat[idx] *= 100
    u = torch.rand(2, generator=g, device="cpu")
    value = (0.5 + 1.5 * u[0].item()) * (1.0 if u[1].item() < 0.5 else -1.0)
    dev = torch.empty(0).device
    return x.to(dtype).to(dev), t1.to(dtype).to(dev), t2.to(dtype).to(dev), value

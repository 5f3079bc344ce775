import torch


def reference(x, t1, t2, value):
    return torch.addcmul(x, t1, t2, value=value)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, N = case["M"], case["N"]
    x = torch.randn(N, generator=g, device=dev)
    t1 = torch.randn(M, N, generator=g, device=dev)
    t2 = 2 * torch.randn(M, 1, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements of t1 a hundred times larger, of both signs (value * t1 * t2 stays
        # far below the float16 maximum)
        flat = t1.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 100
    u = torch.rand(2, generator=g, device=dev)
    value = (0.5 + 1.5 * u[0].item()) * (1.0 if u[1].item() < 0.5 else -1.0)
    return x.to(dtype).to(dev), t1.to(dtype).to(dev), t2.to(dtype).to(dev), value

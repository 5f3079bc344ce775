import torch
import torch.nn.functional as F


def reference(x, negative_slope):
    return F.leaky_relu(x, negative_slope)


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device="cpu")
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device="cpu")[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    # a slope that changes with the seed, far from the default 0.01
    negative_slope = 0.05 + 0.4 * torch.rand(1, generator=g, device="cpu").item()
    return x.to(dtype).to(torch.empty(0).device), negative_slope

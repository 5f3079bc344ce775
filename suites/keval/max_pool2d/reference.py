import torch
import torch.nn.functional as F


def reference(x):
    return F.max_pool2d(x, kernel_size=2, stride=2)


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    N, C, H, W = case["N"], case["C"], case["H"], case["W"]
    x = torch.randn(N, C, H, W, generator=g, device="cpu")
    if case.get("outliers"):
        # a channel of large negative values only (a maximum started at 0 instead of -inf is
        # wrong there) and ~1% large positive spikes
        x[:, C // 2] = -1e4 - 100 * torch.rand(N, H, W, generator=g, device="cpu")
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device="cpu")[: max(1, flat.numel() // 100)]
        flat[idx] = 1e4 * torch.rand(idx.numel(), generator=g, device="cpu")
    return (x.to(dtype).to(torch.empty(0).device),)

import torch
import torch.nn.functional as F


def reference(x):
    return F.max_pool2d(x, kernel_size=2, stride=2)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, C, H, W = case["N"], case["C"], case["H"], case["W"]
    x = torch.randn(N, C, H, W, generator=g, device=dev)
    if case.get("outliers"):
        # a channel of large negative values only (a maximum started at 0 instead of -inf is
        # wrong there) and ~1% large positive spikes
        x[:, C // 2] = -1e4 - 100 * torch.rand(N, H, W, generator=g, device=dev)
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] = 1e4 * torch.rand(idx.numel(), generator=g, device=dev)
    return (x.to(dtype).to(dev),)

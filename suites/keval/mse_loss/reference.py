import torch
import torch.nn.functional as F


def reference(x, y):
    return F.mse_loss(x.float(), y.float())


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    y = x + 0.5 * torch.randn(rows, cols, generator=g, device=dev)  # predictions near targets
    if case.get("outliers"):
        # ~1% of the predictions 1000x off: their squares (~1e6) dominate the mean
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    return x.to(dtype).to(dev), y.to(dtype).to(dev)

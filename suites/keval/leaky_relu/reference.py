import torch
import torch.nn.functional as F


def reference(x, negative_slope):
    return F.leaky_relu(x, negative_slope)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    # a slope that changes with the seed, far from the default 0.01
    negative_slope = 0.05 + 0.4 * torch.rand(1, generator=g, device=dev).item()
    return x.to(dtype).to(dev), negative_slope

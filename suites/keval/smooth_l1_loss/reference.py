import torch
import torch.nn.functional as F


def reference(x, y, beta=1.0):
    return F.smooth_l1_loss(x.float(), y.float(), beta=beta)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    # differences ~N(0, 0.64): both the quadratic (|d| < beta) and linear branches occur
    y = x + 0.8 * torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the predictions 1000x off (the linear branch keeps them from dominating)
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    if case.get("shifted"):
        x, y = x + 1000, y + 1000
    # beta other than the default 1.0, so a hard-coded threshold is caught
    return x.to(dtype).to(dev), y.to(dtype).to(dev), 0.5

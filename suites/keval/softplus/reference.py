import torch
import torch.nn.functional as F


def reference(x, beta, threshold):
    return F.softplus(x, beta=beta, threshold=threshold)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    # std 4: plenty of elements on both sides of the threshold (in [1, 4])
    x = 4 * torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs: exp(beta * x) overflows
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    u = torch.rand(2, generator=g, device=dev)
    beta = 0.5 + 1.5 * u[0].item()
    # small thresholds, so that the linear branch differs clearly from log1p(exp(z)) / beta
    threshold = 1.0 + 3.0 * u[1].item()
    if case.get("zeros"):
        # exact zeros, as after a ReLU or in padding: ~10% of the elements and a whole row
        # (softplus(0) = log(2) / beta, not 0)
        flat = x.view(-1)
        flat[torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 10)]] = 0.0
        x[rows // 2] = 0.0
    return x.to(dtype).to(dev), beta, threshold

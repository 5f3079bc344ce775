import torch


def reference(x, weight, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * weight


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    weight = 1 + 0.5 * torch.randn(cols, generator=g, device=dev)
    if case.get("outliers"):
        # rows 1000x larger, and a tiny row whose mean square (1e-8) is far below eps
        x[: rows // 8] *= 1e3
        x[rows // 2] *= 1e-4
    return x.to(dtype).to(dev), weight.to(dtype).to(dev)

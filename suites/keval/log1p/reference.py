import torch


def reference(x):
    return torch.log1p(x)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    n = rows * cols
    # magnitudes log-uniform in [1e-8, 10], random signs; negatives kept in [-0.99, 0) (also
    # after rounding to bfloat16, never -1)
    mag = torch.pow(10.0, -8 + 9 * torch.rand(n, generator=g, device=dev))
    neg = torch.rand(n, generator=g, device=dev) < 0.5
    x = torch.where(neg, -mag.clamp(max=0.99), mag)
    # ~1% exact zeros
    zero = torch.rand(n, generator=g, device=dev) < 0.01
    x = torch.where(zero, torch.zeros_like(x), x)
    if case.get("outliers"):
        # ~1% large values in [1e3, 3e4] (still finite in float16)
        idx = torch.randperm(n, generator=g, device=dev)[: max(1, n // 100)]
        x[idx] = torch.pow(10.0, 3 + 1.45 * torch.rand(idx.numel(), generator=g, device=dev))
    return (x.view(rows, cols).to(dtype).to(dev),)

import torch


def reference(x):
    # the exact variance (float64), rounded once to x's dtype
    return torch.var(x.double(), dim=-1, unbiased=False).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements a hundred times larger, of both signs (variances stay far below
        # the float16 maximum)
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 100
    # per-row integer offsets in [-1000, 1000] (exact in float16): a large mean, a small spread
    offset = torch.randint(-1000, 1001, (rows, 1), generator=g, device=dev).float()
    x = x + offset
    if case.get("huge"):
        # a power of two: values ~1e5, past float16's range, variances ~1e10
        x = x * 2.0**17
    return (x.to(dtype).to(dev),)

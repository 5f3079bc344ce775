import torch


def reference(x):
    return torch.cumprod(x.float(), dim=-1).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    # factors near 1 (as in products of survival or decay probabilities): the running product
    # drifts slowly and stays far from overflow and underflow even over ~10^4 steps
    x = 1 + 0.01 * torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # one large factor (|f| in [10, 50], either sign) in a quarter of the rows, and an
        # exact zero in every eighth row (all later products are 0, of either sign)
        r = torch.arange(0, rows, 4, device=dev)
        c = torch.randint(0, cols, (r.numel(),), generator=g, device=dev)
        sign = torch.randint(0, 2, (r.numel(),), generator=g, device=dev) * 2 - 1
        x[r, c] = sign * (10 + 40 * torch.rand(r.numel(), generator=g, device=dev))
        r = torch.arange(1, rows, 8, device=dev)
        x[r, torch.randint(0, cols, (r.numel(),), generator=g, device=dev)] = 0.0
    return (x.to(dtype).to(dev),)

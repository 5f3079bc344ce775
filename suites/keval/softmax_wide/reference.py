import torch


def reference(x):
    # the exact softmax (float64), rounded once to x's dtype
    return torch.softmax(x.double(), dim=-1).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = 2 * torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # exp(100) overflows float32: a kernel without max-subtraction gives inf/inf = NaN.
        # ~2% of the elements near +-100, and one row shifted wholesale by +100
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 50)]
        sign = torch.randint(0, 2, (idx.numel(),), generator=g, device=dev) * 2 - 1
        flat[idx] = sign * (95 + 5 * torch.rand(idx.numel(), generator=g, device=dev))
        x[rows // 2] += 100
    if case.get("negative_row"):
        # a row whose maximum is ~-190: exp of it underflows unless its own maximum is
        # subtracted (a padded chunk's maximum taken as 0 instead of -inf gives 0 / 0)
        x[0] -= 200
    return (x.to(dtype).to(dev),)

import torch


def reference(x, mask, value):
    return x.masked_fill(mask, value)


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device="cpu")
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device="cpu")[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    # ~30% of the positions masked, at random
    mask = torch.rand(rows, cols, generator=g, device="cpu") < 0.3
    if case.get("fill_inf"):
        value = float("-inf")
    else:
        # a finite fill on a 1/4 grid in [-8, 8], exact in every dtype
        value = torch.randint(-32, 33, (1,), generator=g, device="cpu").item() / 4
    dev = torch.empty(0).device
    return x.to(dtype).to(dev), mask.to(dev), value

import torch


def reference(x, mask, value):
    return x.masked_fill(mask, value)


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
    # ~30% of the positions masked, at random
    mask = torch.rand(rows, cols, generator=g, device=dev) < 0.3
    if case.get("fill_inf"):
        value = float("-inf")
    else:
        # a finite fill on a 1/4 grid in [-8, 8], exact in every dtype
        value = torch.randint(-32, 33, (1,), generator=g, device=dev).item() / 4
    return x.to(dtype).to(dev), mask.to(dev), value

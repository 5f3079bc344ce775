import torch


def reference(x, min_val, max_val):
    return torch.clamp(x, min=min_val, max=max_val)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = 2 * torch.randn(rows, cols, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    # bounds on a 1/8 grid (exact in float16 and bfloat16), min_val in [-4, -1/8],
    # max_val in [1/8, 4]; an `inverted` case swaps them, so that min_val > max_val
    k = torch.randint(1, 33, (2,), generator=g, device=dev)
    min_val, max_val = -k[0].item() / 8, k[1].item() / 8
    if case.get("inverted"):
        min_val, max_val = max_val, min_val
    return x.to(dtype).to(dev), min_val, max_val

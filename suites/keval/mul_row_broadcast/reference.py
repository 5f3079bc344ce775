import torch


def reference(x, w):
    return x * w


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, N = case["M"], case["N"]
    x = torch.randn(M, N, generator=g, device=dev)
    # scales around 1 with some spread, like a normalisation weight
    w = 1 + 0.5 * torch.randn(N, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements of x a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    return x.to(dtype).to(dev), w.to(dtype).to(dev)

import torch


def reference(a, b):
    return torch.maximum(a, b)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, M, N = case["B"], case["M"], case["N"]
    a = torch.randn(B, M, N, generator=g, device=dev)
    b = torch.randn(B, 1, N, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the elements of each a thousand times larger, of both signs
        for t in (a, b):
            flat = t.view(-1)
            idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
            flat[idx] *= 1e3
    return a.to(dtype).to(dev), b.to(dtype).to(dev)

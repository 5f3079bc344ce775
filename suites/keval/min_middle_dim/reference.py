import torch


def reference(x):
    return torch.amin(x, dim=1)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, M, N = case["B"], case["M"], case["N"]
    x = torch.randn(B, M, N, generator=g, device=dev)
    # every other batch entirely positive (minimum above zero): masked lanes must not give 0
    x[1::2] = x[1::2].abs() + 0.25
    if case.get("outliers"):
        # ~1% of the elements a thousand times larger, of both signs
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    return (x.to(dtype).to(dev),)

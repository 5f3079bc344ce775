import torch
import torch.nn.functional as F


def reference(x, weight, bias, num_groups, eps=1e-5):
    return F.group_norm(x.float(), num_groups, weight.float(), bias.float(), eps).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, C, H, W, G = case["N"], case["C"], case["H"], case["W"], case["G"]
    x = torch.randn(N, C, H, W, generator=g, device=dev)
    weight = 1 + 0.5 * torch.randn(C, generator=g, device=dev)
    bias = 0.5 * torch.randn(C, generator=g, device=dev)
    if case.get("outliers"):
        # per (sample, group): one group 1000x larger; one group offset by 100 with unit spread
        # (E[x^2] - E[x]^2 cancels catastrophically); one group with variance 1e-6 << eps
        cg = C // G
        x[0, :cg] *= 1e3
        x[N - 1, (G // 2) * cg:(G // 2 + 1) * cg] += 100
        x[N // 2, (G - 1) * cg:] *= 1e-3
    if case.get("offset_channel"):
        # the first channel of the last sample's first group offset by 10: a group whose parts
        # (chunks of it) have means far apart, so their combined variance needs the spread of
        # the means
        x[N - 1, 0] += 10
    return x.to(dtype).to(dev), weight.to(dtype).to(dev), bias.to(dtype).to(dev), G

import torch
import torch.nn.functional as F


def reference(x, weight, bias):
    # exact products and sums (float64), one rounding at the end
    C = x.shape[1]
    return F.conv2d(x.double(), weight.double(), bias.double(), stride=1, padding=1, groups=C).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, C, H, W = case["N"], case["C"], case["H"], case["W"]
    x = torch.randn(N, C, H, W, generator=g, device=dev)
    weight = torch.randn(C, 1, 3, 3, generator=g, device=dev) / 3  # outputs ~1
    bias = 0.5 * torch.randn(C, generator=g, device=dev)
    if case.get("outliers"):
        # one channel 1000x larger (a wrong channel stride mixes it into others) and a bright
        # first row and last column (wrong padding shows up there)
        x[:, C // 2] *= 1e3
        x[:, :, 0, :] += 20
        x[:, :, :, W - 1] -= 20
    return x.to(dtype).to(dev), weight.to(dtype).to(dev), bias.to(dtype).to(dev)

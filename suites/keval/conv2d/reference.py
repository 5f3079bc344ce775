import math

import torch
import torch.nn.functional as F


def reference(x, weight, bias):
    # exact products and sums (float64), one rounding at the end
    return F.conv2d(x.double(), weight.double(), bias.double(), stride=1, padding=1).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, Cin, Cout, H, W = case["N"], case["Cin"], case["Cout"], case["H"], case["W"]
    x = torch.randn(N, Cin, H, W, generator=g, device=dev)
    weight = torch.randn(Cout, Cin, 3, 3, generator=g, device=dev) / math.sqrt(9 * Cin)  # outputs ~1
    bias = 0.5 * torch.randn(Cout, generator=g, device=dev)
    if case.get("outliers"):
        # a few input channels 1000x larger (outputs up to ~1e3, finite in float16) and a
        # bright border row and column (wrong padding shows up there)
        x[:, : max(1, Cin // 8)] *= 1e3
        x[:, :, 0, :] += 20
        x[:, :, :, W - 1] -= 20
    if case.get("huge") and dtype == torch.bfloat16:
        # weights and bias past float16's 65504 (a float16 input cannot hold them)
        weight, bias = weight * 1e6, bias * 1e6
    return x.to(dtype).to(dev), weight.to(dtype).to(dev), bias.to(dtype).to(dev)

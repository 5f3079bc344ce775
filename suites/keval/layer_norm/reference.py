import torch
import torch.nn.functional as F


def reference(x, weight, bias, eps=1e-5):
    return F.layer_norm(x, x.shape[-1:], weight, bias, eps)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    rows, cols = case["rows"], case["cols"]
    x = torch.randn(rows, cols, generator=g, device=dev)
    weight = 1 + 0.5 * torch.randn(cols, generator=g, device=dev)
    bias = 0.5 * torch.randn(cols, generator=g, device=dev)
    if case.get("outliers"):
        # rows 1000x larger; a row offset by 100 (E[x^2] - E[x]^2 cancels catastrophically);
        # a row whose variance (1e-6) is far below eps (a missing eps blows up)
        x[: rows // 8] *= 1e3
        x[rows // 2] = 100 + torch.randn(cols, generator=g, device=dev)
        x[rows // 2 + 1] *= 1e-3
    if case.get("edge_peaks"):
        # one far value per row: the variance hangs on the first element, so a kernel that skips
        # it, or reads the next row's, is off by far more than the tolerance
        x[:, 0] += 40
    return x.to(dtype).to(dev), weight.to(dtype).to(dev), bias.to(dtype).to(dev)

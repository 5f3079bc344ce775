import torch
import torch.nn.functional as F


def reference(x):
    # exact sum (float64), divided by 9 (padding counts), one rounding at the end
    y = F.avg_pool2d(x.double(), kernel_size=3, stride=1, padding=1, count_include_pad=True)
    return y.to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, C, H, W = case["N"], case["C"], case["H"], case["W"]
    x = torch.randn(N, C, H, W, generator=g, device=dev)
    if case.get("outliers"):
        # a channel of large positive values (~1e3, no cancellation) and a bright first row and
        # last column: dividing border sums by the count of valid taps instead of 9 is wrong
        x[:, C // 2] = 1e3 * torch.rand(N, H, W, generator=g, device=dev)
        x[:, :, 0, :] += 20
        x[:, :, :, W - 1] += 20
    return (x.to(dtype).to(dev),)

import math

import torch


def reference(a, b):
    # exact products and sums (float64), one rounding at the end
    return torch.bmm(a.double(), b.double()).to(a.dtype)


def make_inputs(case, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    B, M, K, N = case["B"], case["M"], case["K"], case["N"]
    a = torch.randn(B, M, K, generator=g, device="cpu")
    b = torch.randn(B, K, N, generator=g, device="cpu") / math.sqrt(K)  # outputs of magnitude ~1
    if case.get("outliers"):
        # one batch entry 1000x larger, and a few rows of another (outputs ~1e3: still finite in
        # float16); batches of very different scale catch a wrong batch stride
        a[0] *= 1e3
        a[B - 1, : max(1, M // 8)] *= 1e3
    dev = torch.empty(0).device
    return a.to(dtype).to(dev), b.to(dtype).to(dev)

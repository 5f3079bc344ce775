import math

import torch


def reference(a, x):
    # exact products and sums (float64), one rounding at the end
    return (a.double() @ x.double()).to(a.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K = case["M"], case["K"]
    a = torch.randn(M, K, generator=g, device=dev) / math.sqrt(K)  # outputs of magnitude ~1
    x = torch.randn(K, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the vector 1000x larger (outlier features) and some rows of a 10x larger
        # (outputs up to ~2e3: finite in float16)
        idx = torch.randperm(K, generator=g, device=dev)[: max(1, K // 100)]
        x[idx] *= 1e3
        a[:: max(1, M // 8)] *= 10
    return a.to(dtype).to(dev), x.to(dtype).to(dev)

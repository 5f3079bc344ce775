import math

import torch


def reference(a, b):
    # exact products and sums (float64), one rounding to float32
    return (a.double() @ b.double()).float()


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    a = torch.randn(M, K, generator=g, device=dev)
    b = torch.randn(K, N, generator=g, device=dev) / math.sqrt(K)  # outputs of magnitude ~1 for any K
    if case.get("outliers"):
        # rows of a 1000x larger. With random signs their outputs would cancel down to ~1 while
        # float32 rounding errors grow with the 1e3 terms, so here b and the large rows are
        # positive: those outputs are ~1e3 * sqrt(K) without cancellation and the relative
        # tolerance applies; the other rows keep random signs
        b = (0.5 + torch.rand(K, N, generator=g, device=dev)) / math.sqrt(K)
        rows = max(1, M // 16)
        a[:rows] = 1e3 * (0.5 + torch.rand(rows, K, generator=g, device=dev))
    return a.to(dtype).to(dev), b.to(dtype).to(dev)

import math

import torch


def reference(a, b):
    # exact products and sums (float64), one rounding at the end
    return torch.bmm(a.double(), b.double()).to(a.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    B, M, K, N = case["B"], case["M"], case["K"], case["N"]
    a = torch.randn(B, M, K, generator=g, device=dev)
    b = torch.randn(B, K, N, generator=g, device=dev) / math.sqrt(K)  # outputs of magnitude ~1
    if case.get("outliers"):
        # one batch entry 1000x larger, and a few rows of another (outputs ~1e3: still finite in
        # float16); batches of very different scale catch a wrong batch stride
        a[0] *= 1e3
        a[B - 1, : max(1, M // 8)] *= 1e3
    if case.get("huge"):
        # outputs past float16's 65504 (bfloat16 and float32 hold them): a store or a
        # conversion through float16 turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        a, b = a.abs() * 1e5, b.abs()
    return a.to(dtype).to(dev), b.to(dtype).to(dev)

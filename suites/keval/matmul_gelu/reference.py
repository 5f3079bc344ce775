import math

import torch
import torch.nn.functional as F


def reference(a, b):
    # exact product (float64), exact-erf GELU, one rounding at the end
    return F.gelu(a.double() @ b.double()).to(a.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    a = torch.randn(M, K, generator=g, device=dev)
    b = 2 * torch.randn(K, N, generator=g, device=dev) / math.sqrt(K)  # pre-activations ~N(0, 4)
    if case.get("outliers"):
        # a few rows of a 1000x larger: pre-activations ~+-2e3, where GELU is x or 0
        a[: max(1, M // 16)] *= 1e3
    if case.get("huge"):
        # pre-activations ~1e6, past float16's 65504: a store or a conversion through float16
        # turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        a, b = a.abs() * 1e5, b.abs()
    return a.to(dtype).to(dev), b.to(dtype).to(dev)

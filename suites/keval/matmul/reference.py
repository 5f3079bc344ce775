import math

import torch


def reference(a, b):
    return a @ b


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    a = torch.randn(M, K, generator=g, device=dev)
    b = torch.randn(K, N, generator=g, device=dev) / math.sqrt(K)  # outputs of magnitude ~1 for any K
    if case.get("outliers"):
        # a few rows of a 1000x larger (outputs ~1e3 there; still finite in float16)
        a[: max(1, M // 16)] *= 1e3
    if case.get("huge"):
        # outputs past float16's 65504 (bfloat16 and float32 hold them): a store or a
        # conversion through float16 turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        a, b = a.abs() * 1e5, b.abs()
    return a.to(dtype).to(dev), b.to(dtype).to(dev)

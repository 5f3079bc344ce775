import math

import torch


def reference(a, b, bias):
    # exact products and sum (float64), bias added before the ReLU, one rounding at the end
    return torch.relu(a.double() @ b.double() + bias.double()).to(a.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    a = torch.randn(M, K, generator=g, device=dev)
    b = torch.randn(K, N, generator=g, device=dev) / math.sqrt(K)  # outputs of magnitude ~1 for any K
    bias = 0.5 * torch.randn(N, generator=g, device=dev)
    if case.get("outliers"):
        # a few rows of a 1000x larger (outputs ~1e3 there; still finite in float16)
        a[: max(1, M // 16)] *= 1e3
    if case.get("huge"):
        # outputs and bias past float16's 65504 (bfloat16 holds them): a store or a
        # conversion through float16 turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        a, b, bias = a.abs() * 1e5, b.abs(), bias.abs() * 1e5
    return a.to(dtype).to(dev), b.to(dtype).to(dev), bias.to(dtype).to(dev)

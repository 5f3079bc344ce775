import math

import torch
import torch.nn.functional as F


def reference(x, weight, bias):
    # exact products and sums (float64), bias added, one rounding at the end
    return F.linear(x.double(), weight.double(), bias.double()).to(x.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    x = torch.randn(M, K, generator=g, device=dev)
    weight = torch.randn(N, K, generator=g, device=dev) / math.sqrt(K)  # outputs of magnitude ~1
    bias = 0.5 * torch.randn(N, generator=g, device=dev)
    if case.get("outliers"):
        # ~1% of the activations 1000x larger (outlier features, as in LLM activations)
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    if case.get("huge"):
        # outputs and bias past float16's 65504 (bfloat16 holds them): a store or a
        # conversion through float16 turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        x, weight, bias = x.abs() * 1e5, weight.abs(), bias.abs() * 1e5
    return x.to(dtype).to(dev), weight.to(dtype).to(dev), bias.to(dtype).to(dev)

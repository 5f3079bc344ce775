import math

import torch


def reference(x, w, x_scale, w_scale, out_dtype):
    # float64 holds the exact integer sums; converting them to float32 rounds as an int32
    # accumulator's conversion does
    acc = (x.double() @ w.double()).float()
    return (acc * x_scale * w_scale).to(out_dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    xf = torch.randn(M, K, generator=g, device=dev)
    wf = torch.randn(K, N, generator=g, device=dev) / math.sqrt(K)
    if case.get("outliers"):
        # outlier features: a few channels 1000x larger, so their tokens' scales are large
        # and most of those rows quantise to small integers
        cols = torch.randperm(K, generator=g, device=dev)[: max(1, K // 32)]
        xf[:, cols] *= 1e3
    if case.get("huge"):
        # outputs past float16's 65504 (bfloat16 holds them): a store or a conversion through
        # float16 turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        xf, wf = xf.abs() * 1e5, wf.abs()
    # symmetric int8 quantisation: per-token scales for x, per-channel scales for w
    x_scale = xf.abs().amax(dim=1, keepdim=True) / 127
    w_scale = wf.abs().amax(dim=0, keepdim=True) / 127
    x = torch.round(xf / x_scale).clamp(-127, 127).to(torch.int8)
    w = torch.round(wf / w_scale).clamp(-127, 127).to(torch.int8)
    return x.to(dev), w.to(dev), x_scale.to(dev), w_scale.to(dev), dtype

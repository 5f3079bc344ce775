import math

import torch


def reference(x, w, scale):
    return x @ (w.to(x.dtype) * scale)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    x = torch.randn(M, K, generator=g, device=dev)
    w = torch.randint(-127, 128, (K, N), generator=g, device=dev, dtype=torch.int8)
    # int8 weights have std ~73; per-column scales around 1/(73*sqrt(K)) keep outputs ~1.
    # Scales are powers of two, so w * scale is exact in float16 and bfloat16: dequantising
    # first (as the reference does) and scaling the float32 accumulator agree, even next to
    # the 1e3 outliers below
    e = round(math.log2(73.0 * math.sqrt(K))) + torch.randint(-1, 2, (N,), generator=g, device=dev)
    scale = torch.pow(2.0, -e.double()).float()
    if case.get("outliers"):
        # ~1% of the activations a thousand times larger (outlier features)
        # (indices drawn with repeats, not a permutation of every element: that took 8 bytes
        # an activation, four times x's own memory; the gather-then-store keeps a repeat at 1e3)
        flat = x.view(-1)
        idx = torch.randint(0, flat.numel(), (max(1, flat.numel() // 100),), generator=g, device=dev)
        flat[idx] = flat[idx] * 1e3
    if case.get("huge"):
        # scales (2^17 and more) and outputs past float16's 65504, still powers of two in
        # bfloat16: a scale or a store through float16 turns them to inf
        # (inputs of one sign: no output cancels to near 0 against its rounding error)
        x, w, scale = x.abs(), w.abs(), scale * 2.0**26
    return x.to(dtype).to(dev), w.to(dev), scale.to(dtype).to(dev)

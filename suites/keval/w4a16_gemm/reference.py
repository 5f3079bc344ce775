import math

import torch

GROUP = 128


def reference(x, qweight, scales):
    K = qweight.shape[0] * 8
    N = qweight.shape[1]
    shifts = 4 * torch.arange(8, device=qweight.device, dtype=torch.int32)
    nib = (qweight[:, None, :] >> shifts[None, :, None]) & 0xF
    w = (nib.reshape(K, N) - 8).to(x.dtype) * scales.repeat_interleave(GROUP, dim=0)
    return x @ w


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    x = torch.randn(M, K, generator=g, device=dev)
    nib = torch.randint(0, 16, (K // 8, 8, N), generator=g, device=dev, dtype=torch.int64)
    words = (nib << (4 * torch.arange(8, device=dev))[None, :, None]).sum(dim=1)
    qweight = torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)  # two's complement
    # nibble std ~4.6: scales around 1/(4.6 sqrt(K)) keep the outputs ~1, varying by group and
    # column. Each scale has 5 significant bits (2^e * (16 + j) / 16), so (nibble - 8) * scale
    # is exact in float16 and bfloat16: dequantising first or scaling per-group partial sums
    # agree, and no conversion rounding (which Triton's CPU interpreter truncates) is involved
    e = round(math.log2(1.0 / (4.6 * math.sqrt(K)))) + torch.randint(-1, 1, (K // GROUP, N), generator=g, device=dev)
    j = torch.randint(0, 16, (K // GROUP, N), generator=g, device=dev)
    scales = torch.pow(2.0, e.double()) * (16 + j) / 16
    if case.get("outliers"):
        # ~1% of the activations a thousand times larger (outlier features)
        flat = x.view(-1)
        idx = torch.randperm(flat.numel(), generator=g, device=dev)[: max(1, flat.numel() // 100)]
        flat[idx] *= 1e3
    if case.get("huge_scales"):
        # scales past float16's 65504 (still 5 significant bits, exact in bfloat16), x as much
        # smaller: the same outputs, but a float16 conversion of a scale is inf
        scales = scales * 2.0**24
        x = x * 2.0**-24
    return x.to(dtype).to(dev), qweight.to(dev), scales.to(dtype).to(dev)

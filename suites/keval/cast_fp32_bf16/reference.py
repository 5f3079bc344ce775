import torch


def reference(x):
    return x.to(torch.bfloat16)


def make_inputs(case, dtype, seed):
    # dtype is the output's (bfloat16); the input is always float32
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    n = case["n"]
    # magnitudes spread over 2^-30 .. 2^30
    x = torch.randn(n, generator=g, device=dev) * torch.pow(
        2.0, torch.randint(-30, 31, (n,), generator=g, device=dev).float())
    bits = x.view(torch.int32)
    # ~1/4 of the values exactly halfway between two bfloat16 numbers (low 16 bits 0x8000),
    # with even and odd bfloat16 mantissas alike: ties must go to even
    tie = torch.rand(n, generator=g, device=dev) < 0.25
    bits[tie] = (bits[tie] & ~0xFFFF) | 0x8000
    # ~1/8 one unit of the last float32 place either side of halfway
    near = torch.rand(n, generator=g, device=dev) < 0.125
    step = torch.randint(0, 2, (n,), generator=g, device=dev, dtype=torch.int32) * 2 - 1
    bits[near] = ((bits[near] & ~0xFFFF) | 0x8000) + step[near]
    if case.get("outliers"):
        # the largest magnitudes (values past the largest bfloat16 round to inf), infinities,
        # signed zeros and float32 subnormals (kept, not flushed to zero)
        special = torch.tensor([3.4028234663852886e38, -3.4028234663852886e38, 3.3961e38, 3.3895e38,
                                float("inf"), float("-inf"), 0.0, -0.0, 1e-40, -1e-40, 1.4e-45,
                                1.1754942e-38, 9.2e-41, 1e38, -1e38], device=dev)
        idx = torch.randperm(n, generator=g, device=dev)[: special.numel() * 4]
        x[idx] = special.repeat(4)
        big = torch.randperm(n, generator=g, device=dev)[: n // 20]
        x[big] = torch.randn(big.numel(), generator=g, device=dev) * 1e37
        sub = torch.randperm(n, generator=g, device=dev)[: n // 20]
        x[sub] = torch.randn(sub.numel(), generator=g, device=dev) * 1e-39
    return (x.to(dev),)

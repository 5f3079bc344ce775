import math

import torch

# float8_e4m3fn values whose products (multiples of 0.25, |p| <= 16) sum exactly in any order
LEVELS = (-4.0, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)


def reference(a, w, a_scale, w_scale):
    return ((a.float() @ w.float().T) * a_scale * w_scale).to(torch.bfloat16)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, K, N = case["M"], case["K"], case["N"]
    levels = torch.tensor(LEVELS, device=dev)
    a = levels[torch.randint(0, len(LEVELS), (M, K), generator=g, device=dev)]
    w = levels[torch.randint(0, len(LEVELS), (N, K), generator=g, device=dev)]
    # the levels have rms ~2.2: scales around 1/(2.2 sqrt(K)) each keep the outputs ~1
    base = 1.0 / (2.2 * math.sqrt(math.sqrt(K)))
    a_scale = base * (0.5 + torch.rand(M, 1, generator=g, device=dev))
    w_scale = base * (0.5 + torch.rand(1, N, generator=g, device=dev))
    if case.get("outliers"):
        # outlier tokens and channels: scales 1e3 larger (outputs ~1e3-1e6)
        a_scale[: M // 4] *= 1e3
        w_scale[:, : N // 8] *= 1e3
    return (a.to(torch.float8_e4m3fn).to(dev), w.to(torch.float8_e4m3fn).to(dev),
            a_scale.to(dev), w_scale.to(dev))

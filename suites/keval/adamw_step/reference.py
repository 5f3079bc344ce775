import math

import torch


def reference(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay, step):
    p = param * (1 - lr * weight_decay)
    m = beta1 * exp_avg + (1 - beta1) * grad
    v = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
    bias1 = 1 - beta1 ** step
    bias2 = 1 - beta2 ** step
    denom = torch.sqrt(v) / math.sqrt(bias2) + eps
    p = p - (lr / bias1) * m / denom
    return p, m, v


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    N, step = case["N"], case["step"]
    param = 0.02 * torch.randn(N, generator=g, device=dev, dtype=torch.float32)
    grad = 1e-3 * torch.randn(N, generator=g, device=dev, dtype=torch.float32)
    exp_avg = 1e-3 * torch.randn(N, generator=g, device=dev, dtype=torch.float32)
    # Second moments of a trained model's gradients (>= 1e-7 here): with v near 0 and no eps
    # to speak of, lr * m / sqrt(v) turns the last-ulp rounding of m (from the cancellation in
    # beta1 * exp_avg + (1 - beta1) * grad) into errors of 1e-7 on parameters that cancel to
    # ~1e-6, which no tolerance can tell from a wrong kernel (v1 failed one element of 62.7M on
    # the H200). The outliers case still sets some exactly to 0 with a 0 gradient: m is then
    # one rounding of beta1 * exp_avg, with no cancellation.
    exp_avg_sq = (1e-3 * torch.randn(N, generator=g, device=dev, dtype=torch.float32)) ** 2 + 1e-7
    if case.get("outliers"):
        # ~1% of the gradients 1e5 times larger (a loss spike), and ~1% of the second moments
        # and gradients exactly 0 (eps alone keeps the denominator positive)
        idx = torch.randperm(N, generator=g, device=dev)
        big, zero = idx[: max(1, N // 100)], idx[N // 100: N // 50]
        grad[big] *= 1e5
        grad[zero] = 0.0
        exp_avg_sq[zero] = 0.0
    lr, beta1, beta2, eps, wd = 3e-4, 0.9, 0.95, 1e-8, 0.1
    return (param.to(dev), grad.to(dev), exp_avg.to(dev), exp_avg_sq.to(dev),
            lr, beta1, beta2, eps, wd, step)

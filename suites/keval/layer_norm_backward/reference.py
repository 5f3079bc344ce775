import torch


def reference(dy, x, weight, eps=1e-5):
    xf, dyf = x.float(), dy.float()
    g = dyf * weight.float()
    mean = xf.mean(-1, keepdim=True)
    rstd = torch.rsqrt(((xf - mean) ** 2).mean(-1, keepdim=True) + eps)
    xhat = (xf - mean) * rstd
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    dweight = (dyf * xhat).sum(0)
    dbias = dyf.sum(0)
    return dx.to(x.dtype), dweight.to(weight.dtype), dbias.to(weight.dtype)


def make_inputs(case, dtype, seed):
    dev = torch.empty(0).device  # the job's device: keval draws there (docs/task-format.md)
    g = torch.Generator(device=dev).manual_seed(seed)
    M, N = case["M"], case["N"]
    x = torch.randn(M, N, generator=g, device=dev)
    dy = torch.randn(M, N, generator=g, device=dev)
    weight = 1 + 0.5 * torch.randn(N, generator=g, device=dev)
    if case.get("outliers"):
        # rows 1000x larger; a row offset by 100 (E[x^2] - E[x]^2 cancels catastrophically);
        # upstream gradients 1000x larger in other rows
        x[: M // 8] *= 1e3
        x[M // 2] = 100 + torch.randn(N, generator=g, device=dev)
        dy[M // 4: M // 4 + M // 8] *= 1e3
    return dy.to(dtype).to(dev), x.to(dtype).to(dev), weight.to(dtype).to(dev)
